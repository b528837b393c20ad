/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Guest test of /sys/power/sleep_mode (kernel-patches/0001): read, write, invalid input,
 * permissions, and "disabled" refusing suspend, hibernation and the snapshot device with EAGAIN
 * (also a user space hibernation frozen before: its SNAPSHOT_S2RAM and SNAPSHOT_CREATE_IMAGE).
 * pm_test=core is set first, so a transition that wrongly went ahead would return instead of
 * sleeping. Runs only inside the QEMU guest (SUSPENDD_GUEST); TAP on stdout. */
#include <linux/suspend_ioctls.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "guest-tap.h"

/* How many kernel log lines contain text. */
static int log_lines(const char *text)
{
        char cmd[256], buf[32] = "";
        FILE *p;
        snprintf(cmd, sizeof cmd, "dmesg | grep -c '%s'", text);
        p = popen(cmd, "r");
        if (p) {
                if (!fgets(buf, sizeof buf, p))
                        buf[0] = '\0';
                pclose(p);
        }
        return atoi(buf);
}

/* Waits up to 10 s until cond() holds (polling every 50 ms). */
static bool within_10s(bool (*cond)(void))
{
        for (int i = 0; i < 200; i++) {
                if (cond())
                        return true;
                usleep(50000);
        }
        return cond();
}

static int entries_before;
static bool paused_logged(void) { return log_lines("autosleep: paused while sleep is disabled") > 0; }
static bool entered_again(void) { return log_lines("PM: suspend entry") > entries_before; }

int main(void)
{
        const char *mode = "/sys/power/sleep_mode";
        char buf[128];
        long r;
        int st;

        require_guest();
        if (access(mode, F_OK) != 0) {
                printf("1..0 # SKIP no %s: unpatched kernel\n", mode);
                return 77;
        }
        put("/sys/power/pm_test", "core");
        /* 0002 adds "cooperative" (and /dev/sleepctl); 0001 alone lists two modes */
        const char *more = access("/dev/sleepctl", F_OK) == 0 ? " cooperative" : "";
        char want_direct[64], want_disabled[64];
        snprintf(want_direct, sizeof want_direct, "[direct] disabled%s\n", more);
        snprintf(want_disabled, sizeof want_disabled, "direct [disabled]%s\n", more);

        get(mode, buf, sizeof buf);
        ok(strcmp(buf, want_direct) == 0, "read: '[direct] disabled' (got '%.*s')", (int)strcspn(buf, "\n"), buf);
        /* A user space hibernation frozen before "disabled" was written must not go on to any
         * sleep: SNAPSHOT_S2RAM (suspend to RAM after SNAPSHOT_FREEZE) is refused like
         * SNAPSHOT_CREATE_IMAGE, and SNAPSHOT_UNFREEZE still works so the session can end. */
        {
                int fd = open("/dev/snapshot", O_RDONLY | O_CLOEXEC);
                int frozen = fd >= 0 ? ioctl(fd, SNAPSHOT_FREEZE) : -1;
                long w = put(mode, "disabled");
                int s2ram = fd >= 0 ? ioctl(fd, SNAPSHOT_S2RAM) : 0;
                int s2ram_errno = errno;
                loff_t in_suspend = 0;
                int image = fd >= 0 ? ioctl(fd, SNAPSHOT_CREATE_IMAGE, &in_suspend) : 0;
                int image_errno = errno;
                int thawed = fd >= 0 ? ioctl(fd, SNAPSHOT_UNFREEZE) : -1;

                if (fd >= 0)
                        close(fd);
                ok(fd >= 0 && frozen == 0 && w == 8, "a user space hibernation is frozen, then 'disabled' written");
                ok(s2ram < 0 && s2ram_errno == EAGAIN, "disabled: SNAPSHOT_S2RAM after SNAPSHOT_FREEZE fails with "
                   "EAGAIN (%s)", s2ram < 0 ? strerror(s2ram_errno) : "it suspended");
                ok(image < 0 && image_errno == EAGAIN, "disabled: SNAPSHOT_CREATE_IMAGE fails with EAGAIN (%s)",
                   image < 0 ? strerror(image_errno) : "an image was made");
                ok(thawed == 0, "disabled: SNAPSHOT_UNFREEZE still thaws (%s)", thawed == 0 ? "ok" : strerror(errno));
                r = put(mode, "direct");
                ok(r == 6, "back to 'direct' (%ld)", r);
        }
        r = put(mode, "disabled\n");
        ok(r == 9, "writing 'disabled\\n' returns its 9 bytes (got %ld)", r);
        get(mode, buf, sizeof buf);
        ok(strcmp(buf, want_disabled) == 0, "read: 'direct [disabled]'");
        r = put(mode, "disabled");
        ok(r == 8, "writing the current mode again returns the byte count, not 0 (got %ld)", r);

        r = put("/sys/power/state", "mem");
        ok(r == -EAGAIN, "disabled: writing mem to /sys/power/state fails with EAGAIN (%s)", strerror(r < 0 ? (int)-r : 0));
        r = put("/sys/power/state", "freeze");
        ok(r == -EAGAIN, "disabled: writing freeze fails with EAGAIN (%s)", strerror(r < 0 ? (int)-r : 0));
        r = put("/sys/power/state", "disk");
        ok(r == -EAGAIN, "disabled: hibernation (disk) fails with EAGAIN (%s)", strerror(r < 0 ? (int)-r : 0));
        {
                int fd = open("/dev/snapshot", O_RDONLY | O_CLOEXEC);
                int e = errno;
                if (fd >= 0)
                        close(fd);
                ok(fd < 0 && e == EAGAIN, "disabled: opening /dev/snapshot fails with EAGAIN (%s)", fd < 0 ? strerror(e) : "opened");
        }

        r = put(mode, "sideways");
        ok(r == -EINVAL, "an unknown mode is EINVAL (%ld)", r);
        r = put(mode, "\n");
        ok(r == -EINVAL, "an empty line is EINVAL (%ld)", r);
        get(mode, buf, sizeof buf);
        ok(strcmp(buf, want_disabled) == 0, "invalid writes leave the mode alone");

        if (fork() == 0) {
                if (setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(2);
                _exit(put(mode, "direct") == -EACCES ? 0 : 1);
        }
        wait(&st);
        ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a non-root write gets EACCES");

        r = put(mode, "direct");
        ok(r == 6, "writing 'direct' restores it (%ld)", r);
        get(mode, buf, sizeof buf);
        ok(strcmp(buf, want_direct) == 0, "read: '[direct] disabled' again");
        r = put("/sys/power/state", "mem");
        ok(r == 3, "direct: a pm_test suspend cycle works again (%ld)", r);

        /* Autosleep while sleep is disabled: it must neither retry in a loop nor fill the log
         * (it tried twice a second, two log lines each), and must go on once sleep is no longer
         * disabled (issue 27 item 1). The log line of the pause proves autosleep ran. */
        if (access("/sys/power/autosleep", F_OK) == 0) {
                int entries;
                put(mode, "disabled");
                entries_before = log_lines("PM: suspend entry");
                r = put("/sys/power/autosleep", "mem");
                bool paused = within_10s(paused_logged);
                entries = log_lines("PM: suspend entry");
                ok(r == 3 && paused && entries == entries_before,
                   "autosleep with sleep disabled pauses (logged once) without trying: %d suspend entries "
                   "(%s)", entries - entries_before, paused ? "pause logged" : "no pause logged in 10 s");
                r = put(mode, "direct");
                ok(r == 6 && within_10s(entered_again), "writing 'direct' lets autosleep go on (a pm_test cycle)");
                r = put("/sys/power/autosleep", "off");
                ok(r == 3, "autosleep off (%ld)", r);
                ok(log_lines("autosleep: paused while sleep is disabled") == 1, "the pause was logged once");
        } else {
                ok(false, "no /sys/power/autosleep: CONFIG_PM_AUTOSLEEP is in the guest config");
        }

        put("/sys/power/pm_test", "none");
        return finish();
}
