#!/usr/bin/python3
"""A fake systemd-logind for the logind bridge's host test (logind.test): owns
org.freedesktop.login1 on the bus at argv[1] and serves the part of the Manager interface the
bridge uses — ListInhibitors, the properties BlockInhibited, DelayInhibited and
InhibitDelayMaxUSec (GetAll) — emitting PropertiesChanged as systemd 252 does, on every
inhibitor start and stop, with the new value (--invalidate: as an invalidated property instead).

Driven by JSON lines on stdin, each answered by one JSON line on stdout:
  {"op": "add", "id": 1, "what": "sleep", "who": "fwupd", "why": "…", "mode": "block", "uid": 0, "pid": 1}
  {"op": "remove", "id": 1}
  {"op": "delaymax", "usec": 30000000}     (sets InhibitDelayMaxUSec, emits PropertiesChanged)
  {"op": "hold"} / {"op": "release"}       (ListInhibitors calls wait unanswered until released)
  {"op": "stats"}                          -> {"ok": true, "lists": N, "held": M}
--init=JSON starts with a list of inhibitors (objects as for "add").
A first line {"ready": true} says the name is owned.
"""
import json
import sys

from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.freedesktop.login1.Manager">
    <method name="ListInhibitors"><arg type="a(ssssuu)" direction="out"/></method>
    <property name="BlockInhibited" type="s" access="read"/>
    <property name="DelayInhibited" type="s" access="read"/>
    <property name="InhibitDelayMaxUSec" type="t" access="read"/>
  </interface>
</node>"""
IFACE = "org.freedesktop.login1.Manager"
PATH = "/org/freedesktop/login1"

invalidate = "--invalidate" in sys.argv
address = [a for a in sys.argv[1:] if not a.startswith("--")][0]
inhibitors = {}          # id -> dict
for a in sys.argv[1:]:
    if a.startswith("--init="):   # inhibitors held before the name is owned
        inhibitors = {i["id"]: i for i in json.loads(a[len("--init="):])}
delay_max = 5000000
holding = False
held = []
lists = 0
conn = Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
loop = GLib.MainLoop()


def inhibited(mode):
    whats = set()
    for i in inhibitors.values():
        if i["mode"] == mode:
            whats.update(i["what"].split(":"))
    return ":".join(sorted(whats))


def listing():
    return GLib.Variant("(a(ssssuu))", ([(i["what"], i["who"], i["why"], i["mode"], i["uid"], i["pid"])
                                         for i in inhibitors.values()],))


def on_call(c, sender, path, iface, method, params, invocation):
    global lists
    lists += 1
    if holding:
        held.append(invocation)
    else:
        invocation.return_value(listing())


def on_get(c, sender, path, iface, prop):
    if prop == "InhibitDelayMaxUSec":
        return GLib.Variant("t", delay_max)
    return GLib.Variant("s", inhibited("block" if prop == "BlockInhibited" else "delay"))


def changed(prop):
    value = on_get(conn, None, PATH, IFACE, prop)
    args = (IFACE, {}, [prop]) if invalidate else (IFACE, {prop: value}, [])
    conn.emit_signal(None, PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                     GLib.Variant("(sa{sv}as)", args))


def handle(cmd):
    global delay_max, holding
    op = cmd["op"]
    if op == "add":
        inhibitors[cmd["id"]] = cmd
        changed("BlockInhibited" if cmd["mode"] == "block" else "DelayInhibited")
    elif op == "remove":
        i = inhibitors.pop(cmd["id"])
        changed("BlockInhibited" if i["mode"] == "block" else "DelayInhibited")
    elif op == "delaymax":
        delay_max = cmd["usec"]
        changed("InhibitDelayMaxUSec")
    elif op == "hold":
        holding = True
    elif op == "release":
        holding = False
        while held:
            held.pop(0).return_value(listing())
    return {"ok": True, "lists": lists, "held": len(held)}


def on_stdin(fd, cond):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    print(json.dumps(handle(json.loads(line))), flush=True)
    return True


node = Gio.DBusNodeInfo.new_for_xml(XML)
conn.register_object(PATH, node.interfaces[0], on_call, on_get, None)


def acquired(c, name):
    print(json.dumps({"ready": True}), flush=True)


def lost(c, name):
    print(json.dumps({"ready": False, "error": "name lost"}), flush=True)
    loop.quit()


Gio.bus_own_name_on_connection(conn, "org.freedesktop.login1", Gio.BusNameOwnerFlags.NONE, acquired, lost)
GLib.io_add_watch(sys.stdin.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_stdin)
loop.run()
