/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched.c — the daemon's CPU scheduling policy: SCHED_BATCH.
 *
 * The daemon runs SCHED_BATCH. One-way requests come in bursts — a block and its unblock,
 * neither waited for — and under SCHED_OTHER each datagram wakes the daemon and it preempts the
 * sender, so where the two share a CPU every message costs two context switches. SCHED_BATCH
 * does not preempt on wakeup: the burst is read in one wake (recvmmsg) when the sender yields.
 * Nothing depends on how soon that is: a queued message holds its EPOLLWAKEUP wakeup source until
 * the daemon has read it, so no suspend passes it, and a client that waits for a reply sleeps,
 * which lets the daemon run at once.
 *
 * The price, measured with chrt in one run (1000 watchers answering at once): NOTIFY took
 * 13.6 ms against 11.1 ms under SCHED_OTHER, as answers queue a little longer before the daemon
 * runs; switching the main thread to SCHED_OTHER for NOTIFY did not win it back (13.0 ms).
 *
 * The switch comes before any thread exists, so GLib's threads inherit SCHED_BATCH. A policy
 * chosen for the daemon (CPUSchedulingPolicy=, chrt) other than SCHED_OTHER is left alone, and
 * alarm commands it forks get SCHED_OTHER back (job.c). */
#include <errno.h>
#include <sched.h>

#include "daemon.h"

bool sched_prefer_batch(void)
{
        struct sched_param p = { .sched_priority = 0 };

        if ((sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) != SCHED_OTHER)
                return false;
        if (sched_setscheduler(0, SCHED_BATCH, &p) < 0) {
                log_warn("cannot switch to SCHED_BATCH (one-way requests then cost more): %s", g_strerror(errno));
                return false;
        }
        return true;
}
