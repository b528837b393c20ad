/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Guest test of the cooperative sleep mode and /dev/sleepctl (kernel-patches/0002): the device's
 * read/write/ioctl ABI and permissions, holders named in /sys/class/wakeup, a cooperative suspend
 * waiting for a holder until RELAX, timeout, close or death releases it, timeout 0 holding
 * indefinitely, the re-arm after a transition, a signal ending the wait (and only a signal: a
 * frozen writer waits again), a wakeup event after the wait aborting the suspend (console-owner.h), no deadlock with /sys/power/autosleep, 1000 holders, and
 * open/ioctl/close stress while suspends run. pm_test=freezer (delay 0) makes every transition a
 * freeze/thaw cycle through the PM notifiers, so nothing really sleeps. Guest only; TAP on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../daemon/sleepctl-uapi.h"
#include "console-owner.h"
#include "guest-tap.h"
#include "transition.h"

#ifndef SLEEPCTL_MAX_TIMEOUT_MS   /* a uapi header of a series before the limit */
#define SLEEPCTL_MAX_TIMEOUT_MS 86400000u
#endif

#define CGROUP "/sys/fs/cgroup/sleepctl-test"

/* A cgroup v2 directory of our own (mounting the hierarchy if nobody did: the small guest). */
static bool cgroup2_dir(const char *dir)
{
        if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) != 0) {
                mkdir("/sys/fs/cgroup", 0755);
                if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL) != 0)
                        return false;
        }
        return (mkdir(dir, 0755) == 0 || errno == EEXIST) && access(CGROUP "/cgroup.freeze", F_OK) == 0;
}

/* Waits up to secs until the file contains text. */
static bool file_has(const char *path, const char *text, double secs)
{
        double end = now_s() + secs;
        char buf[512];
        do {
                get(path, buf, sizeof buf);
                if (strstr(buf, text))
                        return true;
                usleep(20000);
        } while (now_s() < end);
        return false;
}

/* The /sys/class/wakeup entry whose name is NAME: its directory in dir (or "" if none). */
static void find_source(const char *name, char *dir, size_t size)
{
        DIR *d = opendir("/sys/class/wakeup");
        struct dirent *e;
        char path[320], buf[128];
        dir[0] = '\0';
        while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof path, "/sys/class/wakeup/%s/name", e->d_name);
                get(path, buf, sizeof buf);
                buf[strcspn(buf, "\n")] = '\0';
                if (strcmp(buf, name) == 0) {
                        snprintf(dir, size, "/sys/class/wakeup/%s", e->d_name);
                        break;
                }
        }
        if (d)
                closedir(d);
}

static long source_field(const char *dir, const char *field)
{
        char path[400], buf[64];
        snprintf(path, sizeof path, "%s/%s", dir, field);
        get(path, buf, sizeof buf);
        return buf[0] ? strtol(buf, NULL, 10) : -1;
}

/* The sum of active_count over the wakeup sources named NAME (several holders of one process). */
static long activations(const char *name, int *matching)
{
        DIR *d = opendir("/sys/class/wakeup");
        struct dirent *e;
        char path[320], buf[128];
        long sum = 0;
        while (d && (e = readdir(d))) {
                snprintf(path, sizeof path, "/sys/class/wakeup/%s/name", e->d_name);
                get(path, buf, sizeof buf);
                buf[strcspn(buf, "\n")] = '\0';
                if (strcmp(buf, name) != 0)
                        continue;
                snprintf(path, sizeof path, "/sys/class/wakeup/%s", e->d_name);
                sum += source_field(path, "active_count");
                if (matching)
                        ++*matching;
        }
        if (d)
                closedir(d);
        return sum;
}

/* A writer queued behind a holder, the holder relaxed: the writer's wait ends and its suspend
 * starts; the console owner makes a wakeup event (or not) inside the transition. Returns the
 * writer's exit (0, or its errno; -1 still running), and the owner's in *owner. */
static int event_after_wait(bool event, int *owner)
{
        int h = holder(0), ready[2], r, st;
        char c = 0;
        pid_t o, w;

        if (h < 0 || pipe(ready) < 0)
                return -2;
        o = console_owner(event ? holder_event : NULL, ready[1]);
        if (read(ready[0], &c, 1) != 1 || c != 'r') {
                waitpid(o, &st, 0);
                *owner = WIFEXITED(st) ? WEXITSTATUS(st) : 254;
                close(h);
                return -2;
        }
        ioctl(h, SLEEPCTL_STAY_AWAKE);
        w = start_transition("mem");
        r = finished_within(w, 0.3);   /* it waits: the wait is before the console switch */
        ioctl(h, SLEEPCTL_RELAX);
        if (r < 0)
                r = finished_within(w, 30.0);
        reap(w);
        *owner = finished_within(o, 30.0);
        reap(o);
        close(h);
        close(ready[0]);
        close(ready[1]);
        return r;
}

int main(void)
{
        char buf[256], dir[320], name[64];
        uint32_t t;
        int fd, st, r;
        pid_t pid;
        double t0;

        start_sleepctl_test();

        /* the device's ABI */
        fd = open(DEV, O_RDWR | O_CLOEXEC);
        ok(fd >= 0, "root opens %s", DEV);
        r = (int)read(fd, &t, sizeof t);
        ok(r == 4 && t == SLEEPCTL_DEFAULT_TIMEOUT_MS, "read: the default timeout is 500 ms (%d bytes, %u)", r, t);
        /* the value reads like a 4-byte file, as /dev/cpu_dma_latency's does (issue 27 item 6) */
        r = (int)read(fd, &t, sizeof t);
        ok(r == 0, "the next read is end of file (%d)", r);
        ok(lseek(fd, 0, SEEK_SET) == 0 && read(fd, &t, sizeof t) == 4 && t == SLEEPCTL_DEFAULT_TIMEOUT_MS,
           "after lseek to 0 it reads again");
        r = (int)pread(fd, buf, 2, 0);
        ok(r < 0 && errno == EINVAL, "read into 2 bytes: EINVAL");
        r = (int)pread(fd, &t, sizeof t, 1);
        ok(r < 0 && errno == EINVAL, "a read from inside the value (offset 1): EINVAL");
        r = (int)write(fd, "ab", 2);
        ok(r < 0 && errno == EINVAL, "write of 2 bytes: EINVAL");
        t = 1234;
        r = (int)write(fd, &t, sizeof t);
        ok(r == 4, "write of a 4-byte timeout returns 4 (%d)", r);
        t = 0;
        r = (int)pread(fd, &t, sizeof t, 0);
        ok(r == 4 && t == 1234, "read back (pread at 0): 1234 (%u)", t);
        /* A timeout the wakeup source's timer cannot keep is refused, not turned into another
         * hold: msecs_to_jiffies() of 2^31 ms and more is MAX_JIFFY_OFFSET (the hold would be
         * indefinite) and the timer wheel cuts far timers at about 12 days (HZ=1000). */
        t = SLEEPCTL_MAX_TIMEOUT_MS;
        r = (int)write(fd, &t, sizeof t);
        ok(r == 4, "the longest timeout, %u ms (24 h), is taken (%d)", SLEEPCTL_MAX_TIMEOUT_MS, r);
        {
                static const uint32_t too_long[] = { SLEEPCTL_MAX_TIMEOUT_MS + 1, 1u << 31, 0xffffffffu };
                for (size_t i = 0; i < sizeof too_long / sizeof too_long[0]; i++) {
                        t = too_long[i];
                        errno = 0;
                        r = (int)write(fd, &t, sizeof t);
                        ok(r < 0 && errno == EINVAL, "a timeout of %u ms is refused: EINVAL (%d, %s)", too_long[i], r,
                           strerror(errno));
                }
        }
        t = 0;
        r = (int)pread(fd, &t, sizeof t, 0);
        ok(r == 4 && t == SLEEPCTL_MAX_TIMEOUT_MS, "and the refused writes left the timeout as it was (%u)", t);
        t = 1234;
        ok(write(fd, &t, sizeof t) == 4, "1234 ms again");
        r = ioctl(fd, _IO(SLEEPCTL_IOC_MAGIC, 0x7f));
        ok(r < 0 && errno == ENOTTY, "an unknown ioctl: ENOTTY");
        r = ioctl(fd, _IO('3', 1));   /* the snapshot magic the RFC shared */
        ok(r < 0 && errno == ENOTTY, "the snapshot device's magic is not sleepctl's: ENOTTY");
        snprintf(name, sizeof name, "sleepctl:sleepctl.test:%d", (int)getpid());
        find_source(name, dir, sizeof dir);
        ok(dir[0] != '\0', "the holder is a wakeup source named %s (%s)", name, dir[0] ? dir : "not found");
        r = ioctl(fd, SLEEPCTL_STAY_AWAKE);
        ok(r == 0 && source_field(dir, "active_count") == 1, "STAY_AWAKE activates it (active_count %ld)",
           source_field(dir, "active_count"));
        usleep(20000);
        r = ioctl(fd, SLEEPCTL_RELAX);
        ok(r == 0 && source_field(dir, "active_time_ms") == 0, "RELAX deactivates it (active_time_ms %ld)",
           source_field(dir, "active_time_ms"));
        close(fd);
        find_source(name, dir, sizeof dir);
        ok(dir[0] == '\0', "close removes its wakeup source");
        /* a comm with blanks, a control character and ':' would break the debugfs table and
         * the name's own form: they become '_' (issue 27 item 6) */
        {
                char old[16] = "";
                prctl(PR_GET_NAME, old);
                prctl(PR_SET_NAME, "a b\tc:d\x7f");
                fd = open(DEV, O_RDWR | O_CLOEXEC);
                prctl(PR_SET_NAME, old);
                snprintf(name, sizeof name, "sleepctl:a_b_c_d_:%d", (int)getpid());
                find_source(name, dir, sizeof dir);
                ok(fd >= 0 && dir[0] != '\0', "a holder opened by \"a b\\tc:d\\x7f\" is named %s (%s)", name,
                   dir[0] ? dir : "not found");
                close(fd);
        }

        pid = fork();
        if (pid == 0) {
                if (setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(2);
                int f = open(DEV, O_RDWR);
                _exit(f < 0 && (errno == EPERM || errno == EACCES) ? 0 : 1);
        }
        waitpid(pid, &st, 0);
        ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "an unprivileged process cannot open it");

        /* the mode */
        get(MODE, buf, sizeof buf);
        ok(strcmp(buf, "[direct] disabled cooperative\n") == 0, "sleep_mode lists cooperative (%.*s)", (int)strcspn(buf, "\n"), buf);
        ok(put(MODE, "cooperative\n") == 12, "writing 'cooperative' returns its byte count");
        get(MODE, buf, sizeof buf);
        ok(strcmp(buf, "direct disabled [cooperative]\n") == 0, "read: direct disabled [cooperative]");
        ok(put(STATE, "mem") == 3, "cooperative, no holder: a suspend cycle goes through");

        /* a holder with timeout 0: the suspend waits until RELAX */
        fd = holder(0);
        ioctl(fd, SLEEPCTL_STAY_AWAKE);
        pid = start_transition("mem");
        ok(finished_within(pid, 2.0) == -1, "a holder with timeout 0: the suspend waits (still waiting after 2 s)");
        t0 = now_s();
        ioctl(fd, SLEEPCTL_RELAX);
        r = finished_within(pid, 20.0);
        ok(r == 0, "RELAX lets it go through (exit %d, %.2f s after RELAX)", r, now_s() - t0);
        reap(pid);

        /* the timeout releases */
        t = 1500;
        r = (int)write(fd, &t, sizeof t);
        t0 = now_s();
        ioctl(fd, SLEEPCTL_STAY_AWAKE);
        pid = start_transition("mem");
        r = finished_within(pid, 20.0);
        ok(r == 0 && now_s() - t0 >= 1.4, "a 1500 ms timeout releases the holder: the suspend waited %.2f s (exit %d)", now_s() - t0, r);
        reap(pid);

        /* close releases */
        t = 0;
        r = (int)write(fd, &t, sizeof t);
        ioctl(fd, SLEEPCTL_STAY_AWAKE);
        pid = start_transition("mem");
        ok(finished_within(pid, 1.0) == -1, "holding again with timeout 0");
        close(fd);
        r = finished_within(pid, 20.0);
        ok(r == 0, "closing the holder releases it (exit %d)", r);
        reap(pid);

        /* the holder's death releases */
        {
                int ready[2];
                char c;
                if (pipe(ready) < 0)
                        return 1;
                pid_t h = fork();
                if (h == 0) {
                        int f = holder(0);
                        ioctl(f, SLEEPCTL_STAY_AWAKE);
                        if (write(ready[1], "x", 1) < 0)
                                _exit(1);
                        pause();
                        _exit(0);
                }
                if (read(ready[0], &c, 1) != 1)
                        c = 0;
                pid = start_transition("mem");
                ok(c == 'x' && finished_within(pid, 1.0) == -1, "another process holds: the suspend waits");
                kill(h, SIGKILL);
                waitpid(h, &st, 0);
                r = finished_within(pid, 20.0);
                ok(r == 0, "SIGKILL of the holder releases it (exit %d)", r);
                reap(pid);
                close(ready[0]);
                close(ready[1]);
        }

        /* a process that saved a wakeup count has waited already: it does not wait, it aborts */
        {
                char count[32];
                fd = holder(0);
                get("/sys/power/wakeup_count", count, sizeof count);
                count[strcspn(count, "\n")] = '\0';
                r = (int)put("/sys/power/wakeup_count", count);
                ioctl(fd, SLEEPCTL_STAY_AWAKE);
                pid = start_transition("mem");
                r = finished_within(pid, 10.0);
                ok(r == EBUSY || r == EAGAIN,
                   "after a wakeup_count write, an active holder aborts the suspend instead of holding it (exit %d: %s)",
                   r, r > 0 ? strerror(r) : "still waiting");
                reap(pid);
                close(fd);
        }

        /* A wakeup event after a queued writer's wait has ended aborts its suspend: the wait saved
         * the wakeup count (issue 27 item 7: writers queued behind a block go through when it
         * ends, but not past a new event). The window is microseconds wide; the console switch
         * of suspend_prepare() lies in it and is held open by a VT_PROCESS owner, so the event
         * lands there every time. Without the event the same path goes through. */
        {
                int owner, runs = 5, aborted = 0, went = 0, hooked = 0;
                for (int i = 0; i < runs; i++) {
                        r = event_after_wait(true, &owner);
                        aborted += r == EBUSY;
                        hooked += owner == 0;
                }
                ok(aborted == runs && hooked == runs,
                   "an event inside the transition of a writer queued behind a holder aborts it (EBUSY): "
                   "%d of %d, the console owner saw %d switches", aborted, runs, hooked);
                hooked = 0;
                for (int i = 0; i < runs; i++) {
                        r = event_after_wait(false, &owner);
                        went += r == 0;
                        hooked += owner == 0;
                }
                ok(went == runs && hooked == runs,
                   "the same path without the event goes through: %d of %d, the console owner saw %d switches",
                   went, runs, hooked);
        }

        /* a signal ends the wait */
        fd = holder(0);
        ioctl(fd, SLEEPCTL_STAY_AWAKE);
        pid = start_transition("mem");
        usleep(500000);
        kill(pid, SIGUSR1);
        r = finished_within(pid, 10.0);
        ok(r == EINTR, "a signal interrupts the wait: EINTR (exit %d: %s)", r, r > 0 ? strerror(r) : "");
        reap(pid);
        pid = start_transition("disk");
        ok(finished_within(pid, 1.0) == -1, "hibernation (disk) waits for the holder too");
        kill(pid, SIGUSR1);
        r = finished_within(pid, 10.0);
        ok(r == EINTR, "... until interrupted (exit %d)", r);
        reap(pid);

        /* Only a signal ends the wait. A frozen cgroup interrupts it with the freezer's fake
         * signal, as another transition's freezer does: the writer must be frozen and wait again
         * when thawed, not fail with EINTR (issue 27 item 4). */
        if (cgroup2_dir(CGROUP)) {
                ioctl(fd, SLEEPCTL_STAY_AWAKE);
                pid = start_transition_in(CGROUP, "mem");
                ok(finished_within(pid, 1.0) == -1, "a writer in a cgroup of its own waits for the holder");
                put(CGROUP "/cgroup.freeze", "1");
                bool frozen = file_has(CGROUP "/cgroup.events", "frozen 1", 10.0);
                put(CGROUP "/cgroup.freeze", "0");
                bool thawed = file_has(CGROUP "/cgroup.events", "frozen 0", 10.0);
                r = finished_within(pid, 1.0);
                ok(frozen && thawed && r == -1, "frozen and thawed, its write did not fail: it waits again (%s)",
                   r == -1 ? "waiting" : r > 0 ? strerror(r) : "it went through");
                ioctl(fd, SLEEPCTL_RELAX);
                r = finished_within(pid, 10.0);
                ok(r == 0, "... and goes through on RELAX (exit %d: %s)", r, r > 0 ? strerror(r) : "");
                reap(pid);
                rmdir(CGROUP);
        } else {
                ok(false, "no cgroup2 file system for the freezer check");
        }

        /* A hibernation through /dev/snapshot waits when it opens the device, before the
         * PREPARE notifiers run, not only at SNAPSHOT_FREEZE after them (issue 27 item 5). */
        {
                ioctl(fd, SLEEPCTL_STAY_AWAKE);
                pid = fork();
                if (pid == 0) {
                        close_range(3, ~0U, 0);
                        int s = open("/dev/snapshot", O_RDONLY | O_CLOEXEC);
                        _exit(s >= 0 ? 0 : errno);
                }
                int first = finished_within(pid, 1.0);
                ok(first == -1, "opening /dev/snapshot for a hibernation waits for the holder (%s)",
                   first == -1 ? "waiting" : first == 0 ? "it opened at once" : strerror(first));
                ioctl(fd, SLEEPCTL_RELAX);
                r = first == -1 ? finished_within(pid, 10.0) : first;
                ok(r == 0, "... and opens once the holder relaxed (exit %d: %s)", r, r > 0 ? strerror(r) : "");
                reap(pid);
        }

        /* A writer waiting for a holder does not hold autosleep's lock: writing
         * /sys/power/autosleep (which takes that lock with autosleep's own wakeup source active,
         * so a wait under the lock never ended) returns, and the writer goes through on RELAX
         * (issue 27 item 1). */
        if (access("/sys/power/autosleep", F_OK) == 0) {
                ioctl(fd, SLEEPCTL_STAY_AWAKE);
                pid = start_transition("mem");
                ok(finished_within(pid, 1.0) == -1, "a writer waits for the holder");
                pid_t as = fork();
                if (as == 0) {
                        close_range(3, ~0U, 0);
                        _exit(put("/sys/power/autosleep", "off") == 3 ? 0 : 1);
                }
                int ra = finished_within(as, 10.0);
                ok(ra == 0, "writing 'off' to /sys/power/autosleep meanwhile returns (%s)",
                   ra == -1 ? "still blocked after 10 s" : ra == 0 ? "ok" : "failed");
                ioctl(fd, SLEEPCTL_RELAX);
                r = finished_within(pid, 10.0);
                ok(r == 0, "... and the writer goes through on RELAX (exit %d: %s)", r,
                   r == -1 ? "deadlocked" : r > 0 ? strerror(r) : "");
                reap(pid);   /* a deadlocked writer ends with SIGKILL, which lets autosleep go on */
                reap(as);
        } else {
                ok(false, "no /sys/power/autosleep: CONFIG_PM_AUTOSLEEP is in the guest config");
        }

        /* the count a cooperative transition saved does not outlive it: after a hibernation
         * (pm_test freezer, which never consumes the count) a suspend still waits for a holder */
        ioctl(fd, SLEEPCTL_RELAX);
        ok(put(STATE, "disk") == 4, "cooperative, no holder: a hibernation (pm_test freezer) goes through");
        ioctl(fd, SLEEPCTL_STAY_AWAKE);
        pid = start_transition("mem");
        ok(finished_within(pid, 1.0) == -1, "after it a suspend waits for a holder again (no stale saved count)");
        ioctl(fd, SLEEPCTL_RELAX);
        r = finished_within(pid, 10.0);
        ok(r == 0, "... and goes through on RELAX (exit %d)", r);
        reap(pid);

        /* a hold taken without a timeout stays until RELAX: neither a timeout written since nor a
         * repeated STAY_AWAKE turns it into a timed one */
        ioctl(fd, SLEEPCTL_STAY_AWAKE);
        t = 200;
        r = (int)write(fd, &t, sizeof t);
        ioctl(fd, SLEEPCTL_STAY_AWAKE);
        pid = start_transition("mem");
        ok(r == 4 && finished_within(pid, 1.0) == -1,
           "an indefinite hold outlives a 200 ms timeout written since and a repeated STAY_AWAKE");
        ioctl(fd, SLEEPCTL_RELAX);
        r = finished_within(pid, 10.0);
        ok(r == 0, "... until RELAX (exit %d)", r);
        reap(pid);

        /* the holder is the open file description: a dup and a forked child share it, and only
         * the last close releases it */
        {
                int h1 = holder(0), h2 = dup(h1), go[2] = { -1, -1 };
                pid_t sharer = -1;
                ioctl(h2, SLEEPCTL_STAY_AWAKE);
                close(h1);
                pid = start_transition("mem");
                ok(h2 >= 0 && finished_within(pid, 1.0) == -1,
                   "a dup keeps the hold after the original descriptor is closed");
                if (pipe(go) == 0 && (sharer = fork()) == 0) {   /* shares h2 */
                        char c;
                        close(go[1]);
                        if (read(go[0], &c, 1) < 0)
                                _exit(1);
                        _exit(0);   /* its copy of h2 goes here */
                }
                close(go[0]);
                close(h2);
                ok(sharer > 0 && finished_within(pid, 1.0) == -1,
                   "a forked child still has it: after the parent's close the suspend still waits");
                close(go[1]);   /* the child exits: the last reference */
                if (sharer > 0)
                        waitpid(sharer, NULL, 0);
                r = finished_within(pid, 10.0);
                ok(r == 0, "the child's exit, the last close, releases it (exit %d)", r);
                reap(pid);
        }
        t = 0;
        r = (int)write(fd, &t, sizeof t);
        ioctl(fd, SLEEPCTL_STAY_AWAKE);

        /* disabled beats holders; direct ignores them for /sys/power/state */
        put(MODE, "disabled");
        ok(put(STATE, "mem") == -EAGAIN, "disabled with a holder: EAGAIN at once");
        put(MODE, "direct");
        ok(put(STATE, "mem") == 3, "direct with an active holder: a direct write goes through");
        ioctl(fd, SLEEPCTL_RELAX);
        close(fd);

        /* direct: wakeup_count readers see an active holder as an event in progress */
        fd = holder(1000);
        t0 = now_s();
        ioctl(fd, SLEEPCTL_STAY_AWAKE);
        get("/sys/power/wakeup_count", buf, sizeof buf);
        ok(now_s() - t0 >= 0.9, "direct: reading wakeup_count blocks while a holder is active (%.2f s for a 1000 ms hold)", now_s() - t0);

        /* re-arm after a transition: timeout > 0 only */
        {
                int fd0 = holder(0), matching = 0;
                long before, after;
                snprintf(name, sizeof name, "sleepctl:sleepctl.test:%d", (int)getpid());
                before = activations(name, &matching);
                ok(put(STATE, "mem") == 3, "a suspend cycle with two idle holders (1000 ms and 0)");
                after = activations(name, NULL);
                ok(matching == 2 && after == before + 1,
                   "after it, only the holder with a timeout is re-armed (activations %ld -> %ld)", before, after);
                t0 = now_s();
                get("/sys/power/wakeup_count", buf, sizeof buf);
                ok(now_s() - t0 >= 0.5, "the re-armed holder is active after the resume (wakeup_count blocked %.2f s)", now_s() - t0);
                close(fd0);
        }
        close(fd);

        /* 1000 holders */
        {
                struct rlimit rl = { 4096, 4096 };
                static int fds[1000];
                int opened = 0;
                setrlimit(RLIMIT_NOFILE, &rl);
                put(MODE, "cooperative");
                for (int i = 0; i < 1000; i++) {
                        fds[i] = holder(0);
                        opened += fds[i] >= 0;
                        if (fds[i] >= 0)
                                ioctl(fds[i], SLEEPCTL_STAY_AWAKE);
                }
                ok(opened == 1000, "1000 holders open and hold (%d)", opened);
                for (int i = 0; i < 999; i++)
                        ioctl(fds[i], SLEEPCTL_RELAX);
                pid = start_transition("mem");
                ok(finished_within(pid, 1.5) == -1, "999 relaxed, one holds: the suspend waits");
                ioctl(fds[999], SLEEPCTL_RELAX);
                r = finished_within(pid, 30.0);
                ok(r == 0, "the last RELAX lets it through (exit %d)", r);
                reap(pid);
                int left = 0;
                t0 = now_s();
                for (int i = 0; i < 1000; i++)
                        if (fds[i] >= 0)
                                close(fds[i]);
                snprintf(name, sizeof name, "sleepctl:sleepctl.test:%d", (int)getpid());
                activations(name, &left);
                ok(left == 0, "closing 1000 holders (%.2f s) removes every wakeup source of ours (%d left)",
                   now_s() - t0, left);
        }

        /* stress: open/ioctl/close in 4 processes while suspend cycles run */
        {
                pid_t workers[4];
                int cycles = 0, bad = 0;
                for (int w = 0; w < 4; w++) {
                        workers[w] = fork();
                        if (workers[w] == 0) {
                                unsigned seed = (unsigned)getpid();
                                for (;;) {
                                        int f = holder(rand_r(&seed) % 3 ? 50 : 0);
                                        if (f < 0)
                                                continue;
                                        ioctl(f, SLEEPCTL_STAY_AWAKE);
                                        if (rand_r(&seed) % 2)
                                                ioctl(f, SLEEPCTL_RELAX);
                                        close(f);
                                        usleep(rand_r(&seed) % 20000);   /* gaps, or no suspend could start */
                                }
                        }
                }
                double end = now_s() + 15;
                int ended = 0, started = 0;
                while (now_s() < end) {
                        pid = start_transition("mem");
                        started++;
                        r = finished_within(pid, 20.0);
                        ended += r >= 0;
                        if (r == 0)
                                cycles++;
                        else if (r != EBUSY && r != EAGAIN)
                                bad++;
                        reap(pid);
                }
                for (int w = 0; w < 4; w++) {
                        kill(workers[w], SIGKILL);
                        waitpid(workers[w], &st, 0);
                }
                ok(bad == 0 && ended == started,
                   "15 s of open/STAY_AWAKE/RELAX/close in 4 processes during suspends: all %d transitions ended, "
                   "%d went through, the rest aborted by holders (EBUSY/EAGAIN), %d other errors", started, cycles, bad);
                ok(put(STATE, "mem") == 3, "a suspend cycle after the stress");
        }

        put(MODE, "direct");
        put("/sys/power/pm_test", "none");
        return finish();
}
