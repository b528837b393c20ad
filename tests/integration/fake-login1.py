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
  {"op": "stats"}                          -> {"ok": true, "lists": N, "held": M, "suspends": S,
                                               "prepared": P, "sleeps": [{"rc": RC, "out": TEXT}, ...]}
The sleep, as logind 252 does it: Manager.Suspend emits PrepareForSleep(true) and returns; an
inhibitor added with "release_on_prepare": true then lets go (as a desktop daemon's delay
inhibitor does); logind waits until no delay inhibitor is left or InhibitDelayMaxUSec, then
starts systemd-suspend.service — here: runs the "sleep-cmd" argv — and when it ends emits
PrepareForSleep(false). It also stands in for systemd's view of that unit: it owns
org.freedesktop.systemd1 with Manager.LoadUnit and the unit's Service.ExecStart (stock:
systemd-sleep; "exec-start" sets the argv lists, as a drop-in would).
  {"op": "sleep-cmd", "argv": [...]}       {"op": "exec-start", "argv": [[...], ...]}
  {"op": "hold-sleep"} / {"op": "run-sleep"}   (the unit starts only after run-sleep)
--init=JSON starts with a list of inhibitors (objects as for "add").
A first line {"ready": true} says the name is owned.
"""
import json
import os
import subprocess
import sys
import time

from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.freedesktop.login1.Manager">
    <method name="ListInhibitors"><arg type="a(ssssuu)" direction="out"/></method>
    <property name="BlockInhibited" type="s" access="read"/>
    <property name="DelayInhibited" type="s" access="read"/>
    <property name="InhibitDelayMaxUSec" type="t" access="read"/>
    <method name="Suspend"><arg type="b" direction="in"/></method>
    <signal name="PrepareForSleep"><arg type="b"/></signal>
  </interface>
</node>"""
SYSTEMD_XML = """
<node>
  <interface name="org.freedesktop.systemd1.Manager">
    <method name="LoadUnit"><arg type="s" direction="in"/><arg type="o" direction="out"/></method>
  </interface>
  <interface name="org.freedesktop.systemd1.Service">
    <property name="ExecStart" type="a(sasbttttuii)" access="read"/>
  </interface>
</node>"""
UNIT_PATH = "/org/freedesktop/systemd1/unit/systemd_2dsuspend_2eservice"
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
suspends = 0
prepared = 0
sleeping = False
hold_sleep = False
sleep_ready = False       # logind's wait is over; the unit waits for run-sleep
sleep_cmd = ["true"]
exec_start = [["/lib/systemd/systemd-sleep", "suspend"]]
sleeps = []
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


def prepare(start):
    conn.emit_signal(None, PATH, IFACE, "PrepareForSleep", GLib.Variant("(b)", (start,)))


def run_unit():
    """systemd-suspend.service: its command, then PrepareForSleep(false)."""
    global sleeping, sleep_ready
    sleep_ready = False
    p = subprocess.Popen(sleep_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def ended(pid, status):
        global sleeping
        sleeps.append({"rc": os.waitstatus_to_exitcode(status), "out": p.stdout.read()})
        sleeping = False
        prepare(False)
    GLib.child_watch_add(GLib.PRIORITY_DEFAULT, p.pid, ended)


def start_sleep():
    """After PrepareForSleep(true): release_on_prepare holders let go, then wait for the rest."""
    global sleep_ready
    for i in [i for i in inhibitors.values() if i.get("release_on_prepare")]:
        handle({"op": "remove", "id": i["id"]})
    deadline = time.monotonic() + delay_max / 1e6

    def check():
        global sleep_ready
        if any(i["mode"] == "delay" for i in inhibitors.values()) and time.monotonic() < deadline:
            return True
        sleep_ready = True
        if not hold_sleep:
            run_unit()
        return False
    GLib.timeout_add(20, check)


def on_call(c, sender, path, iface, method, params, invocation):
    global lists, suspends, prepared, sleeping
    if method == "Suspend":
        if sleeping:
            invocation.return_dbus_error("org.freedesktop.login1.OperationInProgress",
                                         "There's already a shutdown or sleep operation in progress")
            return
        suspends += 1
        prepared += 1
        sleeping = True
        prepare(True)
        invocation.return_value(None)
        GLib.idle_add(lambda: start_sleep() and False)
        return
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


def on_systemd_call(c, sender, path, iface, method, params, invocation):
    invocation.return_value(GLib.Variant("(o)", (UNIT_PATH,)))


def on_systemd_get(c, sender, path, iface, prop):
    return GLib.Variant("a(sasbttttuii)", [(a[0], a, False, 0, 0, 0, 0, 0, 0, 0) for a in exec_start])


def handle(cmd):
    global delay_max, holding, sleep_cmd, exec_start, hold_sleep
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
    elif op == "sleep-cmd":
        sleep_cmd = cmd["argv"]
    elif op == "exec-start":
        exec_start = cmd["argv"]
    elif op == "hold-sleep":
        hold_sleep = True
    elif op == "run-sleep":
        hold_sleep = False
        if sleep_ready:
            run_unit()
    return {"ok": True, "lists": lists, "held": len(held), "suspends": suspends, "prepared": prepared,
            "sleeps": sleeps}


def on_stdin(fd, cond):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    print(json.dumps(handle(json.loads(line))), flush=True)
    return True


node = Gio.DBusNodeInfo.new_for_xml(XML)
conn.register_object(PATH, node.interfaces[0], on_call, on_get, None)
systemd_node = Gio.DBusNodeInfo.new_for_xml(SYSTEMD_XML)
conn.register_object("/org/freedesktop/systemd1", systemd_node.interfaces[0], on_systemd_call, None, None)
conn.register_object(UNIT_PATH, systemd_node.interfaces[1], None, on_systemd_get, None)


def acquired(c, name):
    print(json.dumps({"ready": True}), flush=True)


def lost(c, name):
    print(json.dumps({"ready": False, "error": "name lost"}), flush=True)
    loop.quit()


Gio.bus_own_name_on_connection(conn, "org.freedesktop.systemd1", Gio.BusNameOwnerFlags.NONE, None, None)
Gio.bus_own_name_on_connection(conn, "org.freedesktop.login1", Gio.BusNameOwnerFlags.NONE, acquired, lost)
GLib.io_add_watch(sys.stdin.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_stdin)
loop.run()
