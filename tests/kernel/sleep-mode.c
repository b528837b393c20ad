/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Guest test of /sys/power/sleep_mode (kernel-patches/0001): read, write, invalid input,
 * permissions, and "disabled" refusing suspend, hibernation and the snapshot device with EAGAIN.
 * pm_test=core is set first, so a transition that wrongly went ahead would return instead of
 * sleeping. Runs only inside the QEMU guest (SUSPENDD_GUEST); TAP on stdout. */
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
