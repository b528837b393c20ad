#!/usr/bin/python3
"""A stand-in for systemd's D-Bus API on a private bus, for the host tests of alarm commands as
transient units (daemon/core/job.c). It owns org.freedesktop.systemd1 and implements what the daemon
uses: Manager.Subscribe, Manager.StartTransientUnit (it runs ExecStart as User=/Group=/
SupplementaryGroups= with Environment=, like systemd), Unit.ActiveState with PropertiesChanged,
Manager.JobRemoved, Unit.Unref, Service.Result. Every call is logged as one JSON line to LOG.

    fake-systemd.py BUS_ADDRESS LOG

A command containing FAKE_REFUSE is refused (AccessDenied); one containing FAKE_EXEC_FAIL fails
to start (JobRemoved result=failed, ActiveState=failed)."""
import json
import os
import subprocess
import sys

from gi.repository import Gio, GLib

XML = """<node>
<interface name="org.freedesktop.systemd1.Manager">
  <method name="Subscribe"/>
  <method name="StartTransientUnit">
    <arg type="s" direction="in"/><arg type="s" direction="in"/>
    <arg type="a(sv)" direction="in"/><arg type="a(sa(sv))" direction="in"/>
    <arg type="o" direction="out"/>
  </method>
  <signal name="JobRemoved"><arg type="u"/><arg type="o"/><arg type="s"/><arg type="s"/></signal>
</interface>
<interface name="org.freedesktop.systemd1.Unit">
  <property name="ActiveState" type="s" access="read"/>
  <method name="Unref"/>
</interface>
<interface name="org.freedesktop.systemd1.Service">
  <property name="Result" type="s" access="read"/>
</interface>
</node>"""
NODE = Gio.DBusNodeInfo.new_for_xml(XML)
MANAGER, UNIT, SERVICE = NODE.interfaces
PATH = "/org/freedesktop/systemd1"

bus = Gio.DBusConnection.new_for_address_sync(
    sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
log_file = open(sys.argv[2], "a", buffering=1)
units = {}      # name -> dict(state, result, reg ids, path)
next_job = [1]


def log(**what):
    log_file.write(json.dumps(what) + "\n")


def escape_path(name):
    return PATH + "/unit/" + "".join(c if c.isalnum() and c.isascii() else "_%02x" % ord(c) for c in name)


def set_state(name, state, result=None):
    u = units[name]
    u["state"] = state
    if result:
        u["result"] = result
    log(event="state", unit=name, state=state)
    bus.emit_signal(None, u["path"], "org.freedesktop.DBus.Properties", "PropertiesChanged",
                    GLib.Variant("(sa{sv}as)", ("org.freedesktop.systemd1.Unit", {"ActiveState": GLib.Variant("s", state)}, [])))


def job_removed(name, result):
    next_job[0] += 1
    bus.emit_signal(None, PATH, MANAGER.name, "JobRemoved",
                    GLib.Variant("(uoss)", (next_job[0], "%s/job/%d" % (PATH, next_job[0]), name, result)))


def unit_call(conn, sender, path, iface, method, params, inv):
    name = next((n for n, u in units.items() if u["path"] == path), None)
    log(event="unref" if method == "Unref" else method, unit=name)
    inv.return_value(None)
    if name and method == "Unref" and units[name]["state"] in ("inactive", "failed"):
        for reg in units[name]["regs"]:
            bus.unregister_object(reg)
        del units[name]


def unit_prop(conn, sender, path, iface, prop):
    u = next((u for u in units.values() if u["path"] == path), None)
    if u is None:
        return None
    return GLib.Variant("s", u["state"] if prop == "ActiveState" else u["result"])


def start(name, props):
    argv = props["ExecStart"][0][1]
    uid, gid = int(props["User"]), int(props["Group"])
    groups = [int(g) for g in props.get("SupplementaryGroups", [])]
    env = dict(e.split("=", 1) for e in props.get("Environment", []))
    env.setdefault("PATH", "/usr/bin:/bin")
    set_state(name, "activating")
    if "FAKE_EXEC_FAIL" in " ".join(argv):
        set_state(name, "failed", "exit-code")
        job_removed(name, "failed")
        return False

    def become():
        os.setgroups(groups)
        os.setgid(gid)
        os.setuid(uid)
    proc = subprocess.Popen(argv, env=env, preexec_fn=become, cwd="/", stdin=subprocess.DEVNULL)
    set_state(name, "active")
    job_removed(name, "done")

    def exited(pid, status):
        ok = os.waitstatus_to_exitcode(status) == 0
        set_state(name, "inactive" if ok else "failed", "success" if ok else "exit-code")
    GLib.child_watch_add(GLib.PRIORITY_DEFAULT, proc.pid, exited)
    return False


def manager_call(conn, sender, path, iface, method, params, inv):
    if method == "Subscribe":
        log(event="Subscribe")
        inv.return_value(None)
        return
    name, mode, props, aux = params.unpack()
    props = dict(props)
    log(event="StartTransientUnit", unit=name, mode=mode, props=props, aux=aux)
    if name in units:
        inv.return_dbus_error("org.freedesktop.systemd1.UnitExists", "Unit %s already exists." % name)
        return
    if "FAKE_REFUSE" in " ".join(props["ExecStart"][0][1]):
        inv.return_dbus_error("org.freedesktop.DBus.Error.AccessDenied", "Access denied (fake)")
        return
    path = escape_path(name)
    regs = [bus.register_object(path, UNIT, unit_call, unit_prop, None),
            bus.register_object(path, SERVICE, unit_call, unit_prop, None)]
    units[name] = {"state": "inactive", "result": "success", "path": path, "regs": regs}
    set_state(name, "inactive")   # systemd may announce a new unit inactive before it runs
    inv.return_value(GLib.Variant("(o)", ("%s/job/%d" % (PATH, next_job[0]),)))
    GLib.idle_add(start, name, props)


bus.register_object(PATH, MANAGER, manager_call, None, None)
bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
              GLib.Variant("(su)", ("org.freedesktop.systemd1", 4)), None, Gio.DBusCallFlags.NONE, -1, None)
log(event="ready")
GLib.MainLoop().run()
