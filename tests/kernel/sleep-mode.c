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

        put("/sys/power/pm_test", "none");
        return finish();
}
