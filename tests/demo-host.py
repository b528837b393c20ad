#!/usr/bin/python3
"""The README's demo against the fake kernel on this host (when QEMU cannot run it): the same
scenario as tests/guest/demo.scenario, with the fake kernel's RTC and a lid event standing in
for real hardware. Never touches the host's /sys/power (--sysfs-root on a FUSE mount)."""
import os, subprocess, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "integration"))
from harness import Env, SUSPENDCTL

def step(text):
    print("\n=== %s ===" % text, flush=True)

with Env(config="[Attempt]\nHibernateDelaySec=5\n") as env:
    e = dict(os.environ, SUSPENDD_SOCKET=env.socket)
    def ctl(*args, show=True):
        if show:
            print("$ suspendctl " + " ".join(args), flush=True)
        p = subprocess.run([SUSPENDCTL] + list(args), env=e, capture_output=True, text=True, timeout=60)
        for line in (p.stdout + p.stderr).splitlines():
            print("    " + line, flush=True)
        return p.returncode
    monitor_log = os.path.join(env.dir, "monitor.log")
    mon = subprocess.Popen([SUSPENDCTL, "monitor"], env=e, stdout=open(monitor_log, "w"), stderr=subprocess.STDOUT)
    seen = [0]
    def events():
        print("--- events seen by 'suspendctl monitor' ---", flush=True)
        time.sleep(0.3)
        lines = open(monitor_log).read().splitlines()
        for line in lines[seen[0]:]:
            print("    " + line, flush=True)
        seen[0] = len(lines)

    step("1. suspendd runs against the fake kernel at %s" % env.root)
    ctl("status")
    step("2. a download holds the system awake (a blocker)")
    print("$ suspendctl block --why 'downloading updates' -- sleep 600 &", flush=True)
    blocker = subprocess.Popen([SUSPENDCTL, "block", "--why", "downloading updates", "--", "sleep", "600"], env=e)
    env.wait_for(lambda: any(i.get("reason") == "downloading updates" for i in env.status()))
    ctl("status")
    step("3. an application asks to suspend: refused, naming the blocker")
    print("(exit status %d)" % ctl("suspend"), flush=True)
    step("4. the download ends; the blocker goes with its process")
    blocker.terminate(); blocker.wait()
    events()
    step("5. a backup job wants to run in 10 s: a wake alarm with a command")
    job, job_log = os.path.join(env.dir, "backup"), os.path.join(env.dir, "backup.log")
    with open(job, "w") as f:
        f.write("#!/bin/sh\necho \"[backup] running at $(date +%%T)\" >> %s\nsleep 2\necho \"[backup] done at $(date +%%T)\" >> %s\n"
                % (job_log, job_log))
    os.chmod(job, 0o755)
    ctl("alarm", "add", "--in", "10s", "--name", "backup", "--", job)
    step("6. now the request succeeds: the (fake) machine suspends, the RTC wakes it for the alarm")
    ctl("suspend")
    events()
    step("7. the backup runs; then the machine sleeps again by itself (dark resume)")
    env.kernel("wait-entered 2")
    print("    (asleep again; now the lid opens: a full wake)", flush=True)
    env.kernel("wake PNP0C0D:00")
    env.kernel("wait-completed 2")
    time.sleep(0.5)
    events()
    for line in open(job_log).read().splitlines():
        print("    " + line, flush=True)
    step("8. the lid closes for the night: suspend-then-hibernate (HibernateDelaySec=5)")
    print("    (the RTC is armed for the deadline; when it wakes the machine, the daemon hibernates at once)", flush=True)
    entered = int(env.kstats()["entered"])
    ctl("suspend-then-hibernate")
    env.kernel("wait-entered %d" % (entered + 2))
    env.kernel("wait-sleeping")
    print("    (hibernated: the fake kernel wrote '%s' with /sys/power/disk %s; now the power button)"
          % (env.kstats()["last_state"], env.kstats()["last_disk_mode"]), flush=True)
    env.kernel("wake PNP0C0D:00")
    env.kernel("wait-completed %d" % (entered + 2))
    time.sleep(0.5)
    events()
    ctl("status")
    mon.terminate(); mon.wait()
print("\n=== demo done (fake kernel) ===")
