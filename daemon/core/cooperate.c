/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cooperate.c — the kernel's cooperative mode (kernel-patches/0002).
 *
 * With [Kernel] SleepMode=cooperative (or auto, on a kernel that offers it) the daemon writes
 * sleep_mode=cooperative and keeps its own /dev/sleepctl holder (timeout 0) active exactly while
 * its block set is not empty and it is not in an attempt itself. A process that bypasses suspendd and writes /sys/power/state then
 * waits in the kernel until every suspendd blocker is gone. Other processes' holders are wakeup
 * sources named "sleepctl:<comm>:<pid>": while one is active the daemon's wakeup_count read
 * waits (the attempt waits), and status names them.
 *
 * If the daemon dies its holder goes with its fd (its clients' blocks went with their
 * connections anyway); the kernel stays cooperative. A clean stop puts back the mode it found
 * ("direct" if it found "cooperative", left by a run that died). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

static bool kernel_offers_cooperative(const Daemon *d)
{
        const SysfsFeatures *f = &d->features;
        return f->has_sleep_mode && f->has_sleepctl && strstr(f->sleep_modes, "cooperative") != NULL;
}

static void apply(Daemon *d);

void cooperate_init(Daemon *d)
{
        const char *want = d->cfg.sleep_mode;
        char cur[16] = "";
        int fd, r;

        d->sleepctl_fd = -1;
        d->sleepctl_holding = false;
        d->coop_prev_mode[0] = '\0';
        if (strcmp(want, "direct") == 0)
                return;
        if (!kernel_offers_cooperative(d)) {
                if (strcmp(want, "cooperative") == 0)
                        log_warn("[Kernel] SleepMode=cooperative, but the kernel has no cooperative sleep_mode "
                                 "and /dev/sleepctl (kernel-patches/0002); staying direct");
                return;
        }
        fd = sysfs_sleepctl_open(d->sysfs);
        if (fd < 0) {
                log_warn("cannot open /dev/sleepctl: %s; staying direct", g_strerror(-fd));
                return;
        }
        r = sysfs_sleepctl_set_timeout(fd, 0);   /* ours holds until we relax it */
        if (r < 0) {
                log_warn("cannot set the /dev/sleepctl timeout: %s; staying direct", g_strerror(-r));
                close(fd);
                return;
        }
        if (sysfs_read_sleep_mode(d->sysfs, cur, sizeof cur) < 0)
                cur[0] = '\0';
        if (strcmp(cur, "disabled") == 0) {
                /* a disable (ours in its grace period, or someone else's) stays; when ours
                 * ends, disable.c restores this mode */
                g_strlcpy(d->saved_sleep_mode, "cooperative", sizeof d->saved_sleep_mode);
                g_strlcpy(d->coop_prev_mode, "direct", sizeof d->coop_prev_mode);
        } else if (strcmp(cur, "cooperative") != 0) {
                r = sysfs_write_sleep_mode(d->sysfs, "cooperative");
                if (r < 0) {
                        log_warn("cannot write sleep_mode=cooperative: %s; staying %s", g_strerror(-r), cur);
                        close(fd);
                        return;
                }
                g_strlcpy(d->coop_prev_mode, cur, sizeof d->coop_prev_mode);
        } else {
                /* left by a previous run that died: the kernel's default is what to put back */
                g_strlcpy(d->coop_prev_mode, "direct", sizeof d->coop_prev_mode);
        }
        d->sleepctl_fd = fd;
        log_info("cooperative mode: sleep_mode=cooperative; direct writes to /sys/power/state wait while suspendd blocks");
        apply(d);
}

/* Our holder follows what blocker.c and attempt.c tell us: active exactly while the block set is
 * not empty and we are not suspending ourselves. During our own attempt it must rest: reading
 * wakeup_count waits for every active holder, ours too; a block that arrives then aborts the
 * attempt (the recount, or EPOLLWAKEUP in the commit window). */
static void apply(Daemon *d)
{
        bool want = d->coop_blocked && !d->coop_attempting;
        int r;

        if (d->sleepctl_fd < 0 || want == d->sleepctl_holding)
                return;
        r = want ? sysfs_sleepctl_stay_awake(d->sleepctl_fd) : sysfs_sleepctl_relax(d->sleepctl_fd);
        if (r < 0)
                log_err("/dev/sleepctl %s: %s", want ? "STAY_AWAKE" : "RELAX", g_strerror(-r));
        else
                d->sleepctl_holding = want;
}

void cooperate_set_blocked(Daemon *d, bool blocked)
{
        d->coop_blocked = blocked;
        apply(d);
}

void cooperate_set_attempting(Daemon *d, bool attempting)
{
        d->coop_attempting = attempting;
        apply(d);
}

bool cooperate_active(const Daemon *d)
{
        return d->sleepctl_fd >= 0;
}

void cooperate_stop(Daemon *d)
{
        if (d->sleepctl_fd < 0)
                return;
        close(d->sleepctl_fd);   /* releases our holder */
        d->sleepctl_fd = -1;
        d->sleepctl_holding = false;
        if (d->coop_prev_mode[0] && !d->kernel_disabled) {
                int r = sysfs_write_sleep_mode(d->sysfs, d->coop_prev_mode);
                if (r < 0)
                        log_err("cannot restore sleep_mode=%s: %s", d->coop_prev_mode, g_strerror(-r));
        }
        /* a disable that outlives us restores the mode we found, not ours */
        if (d->coop_prev_mode[0] && strcmp(d->saved_sleep_mode, "cooperative") == 0)
                g_strlcpy(d->saved_sleep_mode, d->coop_prev_mode, sizeof d->saved_sleep_mode);
}
