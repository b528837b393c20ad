/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attempt.c — the attempt state machine (ARCHITECTURE.md):
 *
 *   IDLE → PREPARE (read wakeup_count, on a worker thread: it may block)
 *        → NOTIFY  (ask watchers and clients with readable fds; each has a budget)
 *        → COMMIT  (decide_commit(); arm the RTC; write wakeup_count and state on the worker)
 *        → SUSPENDED … → RESUMED (tell everyone: duration, wake reason) → IDLE
 *
 * Any step may abort with a reason; failures back off. The main loop never blocks, so status
 * and every other request are served during the sleep. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gio/gio.h>

#include "daemon.h"

gint64 wall_ms(void)
{
        return g_get_real_time() / 1000;
}

/* Time asleep and durations never come from the wall clock, which NTP, an administrator or the
 * RTC read at resume may step at any moment. CLOCK_BOOTTIME goes on during a suspend (time
 * asleep, an attempt that spans one); CLOCK_MONOTONIC (g_get_monotonic_time, GLib's timers)
 * stops there and serves durations on the awake side. */
gint64 boottime_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_BOOTTIME, &ts);
        return (gint64)ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static uint64_t boot_ms_since(gint64 since_us)
{
        gint64 now = boottime_us();
        return now > since_us ? (uint64_t)((now - since_us) / 1000) : 0;
}

const char *attempt_state_name(AttemptState s)
{
        switch (s) {
        case ATTEMPT_IDLE: return "idle";
        case ATTEMPT_PREPARE: return "prepare";
        case ATTEMPT_NOTIFY: return "notify";
        case ATTEMPT_COMMIT: return "commit";
        case ATTEMPT_SUSPENDED: return "suspended";
        }
        return "?";
}

bool attempt_active(const Daemon *d)
{
        return d->state != ATTEMPT_IDLE;
}

/* c was asked by the NOTIFY under way and has not answered: it owes one datagram. */
bool attempt_awaits_answer(const Daemon *d, const Client *c)
{
        return d->state == ATTEMPT_NOTIFY && c->asked == d->current.id && c->answered != d->current.id;
}

/* How often an attempt commits again after client messages met its commit (recommit_done()). */
#define COMMIT_TRIES_MAX 3

/* The state, and who must know it at once: our /dev/sleepctl holder rests during an attempt. */
static void set_state(Daemon *d, AttemptState s)
{
        d->state = s;
        cooperate_set_attempting(d, s != ATTEMPT_IDLE);
        /* a user request goes ahead over blocks: delegated ones too, in the kernel */
        delegate_enforce(d, s == ATTEMPT_IDLE || d->current.kind != ATTEMPT_KIND_USER);
}

static bool alarm_due_soon(Daemon *d)
{
        Alarm *a = alarm_earliest(d);
        return a && a->next <= time(NULL) + (time_t)d->cfg.alarm_guard_s;
}

/* --- the worker: the only calls that may block for long --- */

typedef enum {
        CALL_READ_COUNT,   /* read wakeup_count (blocks while events are in progress) + sources */
        CALL_COMMIT,       /* write the count, then the state (blocks for the whole sleep) */
} KernelCallKind;

typedef struct {
        Sysfs *sysfs;
        KernelCallKind kind;
        uint64_t attempt;
        unsigned count;
        char state[8];
        char disk_mode[16];       /* written to /sys/power/disk first, unless empty */
        int r_disk, r_count, r_state;
        gint64 returned_us;       /* CLOCK_MONOTONIC when the state write returned (the resume) */
        bool have_snapshot;
        WakeupSnapshot snap;
} KernelCall;

static void worker(GTask *task, gpointer src, gpointer data, GCancellable *cancel)
{
        KernelCall *j = data;
        if (j->kind == CALL_READ_COUNT) {
                j->r_count = sysfs_read_wakeup_count(j->sysfs, &j->count);
                j->have_snapshot = j->r_count == 0 && sysfs_wakeup_snapshot(j->sysfs, &j->snap) == 0;
        } else {
                /* before the handshake: the count write must be the last step before the state */
                if (j->disk_mode[0] && (j->r_disk = sysfs_write_disk_mode(j->sysfs, j->disk_mode)) < 0) {
                        g_task_return_boolean(task, TRUE);
                        return;
                }
#ifdef SUSPENDD_MUTANT_NO_COUNT_WRITE
                j->r_count = 0;   /* test-only mutant (HACKING.md): the handshake skipped */
#else
                j->r_count = sysfs_write_wakeup_count(j->sysfs, j->count);
#endif
                if (j->r_count == 0) {
                        j->r_state = sysfs_write_state(j->sysfs, j->state);
                        j->returned_us = g_get_monotonic_time();
                }
        }
        g_task_return_boolean(task, TRUE);
}

/* A wakeup_count read that takes long is waiting for wakeup events in progress: say whose. */
static gboolean count_read_slow(gpointer data)
{
        Daemon *d = data;
        char holders[256];

        d->prepare_slow_timer = 0;
        if (sysfs_sleepctl_holders(d->sysfs, holders, sizeof holders) > 0)
                log_msg(5, d->current.id, "attempt %llu waits for /dev/sleepctl holders: %s",
                        (unsigned long long)d->current.id, holders);
        else
                log_msg(5, d->current.id, "attempt %llu waits for kernel wakeup events in progress",
                        (unsigned long long)d->current.id);
        return G_SOURCE_REMOVE;
}

static void count_read_done(Daemon *d)
{
        d->reading_count = false;
        if (d->prepare_slow_timer) {
                g_source_remove(d->prepare_slow_timer);
                d->prepare_slow_timer = 0;
        }
}

static void run_call(Daemon *d, KernelCall *j, GAsyncReadyCallback done)
{
        GTask *task = g_task_new(NULL, NULL, done, d);
        if (j->kind == CALL_READ_COUNT) {
                d->reading_count = true;
                if (!d->prepare_slow_timer)
                        d->prepare_slow_timer = g_timeout_add_seconds(1, count_read_slow, d);
                /* the read waits while a delegated block's wakeup source is active, and a
                 * given-back one stays active until asked: ask now, and on, while it reads */
                delegate_refresh(d);
        }
        g_task_set_task_data(task, j, g_free);
        g_task_run_in_thread(task, worker);
        g_object_unref(task);
}

/* --- history and events --- */

static void push_history(Daemon *d)
{
        memmove(&d->history[1], &d->history[0], sizeof d->history[0] * (ATTEMPT_HISTORY - 1));
        d->history[0] = d->current;
        if (d->n_history < ATTEMPT_HISTORY)
                d->n_history++;
}

static void clear_questions(Daemon *d)
{
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Client *c = v;
                c->asked = 0;
                c->fd_asked = false;
        }
        if (d->notify_timer) {
                g_source_remove(d->notify_timer);
                d->notify_timer = 0;
        }
        if (d->logind_wait_timer) {
                g_source_remove(d->logind_wait_timer);
                d->logind_wait_timer = 0;
        }
        d->logind_wait = false;
        handoff_attempt_waits_no_more(d);
        d->pending_answers = 0;
}

static gboolean backoff_over(gpointer data)
{
        Daemon *d = data;
        d->backoff_timer = 0;
        attempt_settle(d);
        return G_SOURCE_REMOVE;
}

/* The next back-off (decide_backoff): automatic attempts wait for it; explicit requests do not. */
static void back_off(Daemon *d)
{
        d->backoff_ms = decide_backoff(d->backoff_ms, d->cfg.backoff_initial_ms, d->cfg.backoff_max_ms);
        if (d->backoff_timer)
                g_source_remove(d->backoff_timer);
        d->backoff_timer = g_timeout_add(d->backoff_ms, backoff_over, d);
}

static void disarm_rtc(Daemon *d)
{
        if (d->armed_alarm && d->features.rtc[0]) {
                int r = sysfs_rtc_set_wakealarm(d->sysfs, d->features.rtc, 0);
                if (r < 0)
                        log_warn("cannot clear the RTC wake alarm: %s", g_strerror(-r));
        }
        d->armed_alarm = 0;
}

static void finish_abort(Daemon *d, const char *reason, const char *detail)
{
        SdpMessage ev;
        uint64_t id = d->current.id;

        g_strlcpy(d->current.result, "aborted", sizeof d->current.result);
        g_strlcpy(d->current.reason, reason, sizeof d->current.reason);
        /* valid text cut at a character boundary: the event and status carry it (it may name
         * wakeup sources, which anyone may create, and clients' texts) */
        sdp_text_sanitize(d->current.detail, sizeof d->current.detail, detail ? detail : "");
        detail = d->current.detail;
        d->current.ended_ms = wall_ms();
        d->current.duration_ms = boot_ms_since(d->current.started_boot_us);
        d->n_aborts++;
        log_msg(5, id, "attempt %llu (%s) aborted: %s%s%s", (unsigned long long)id,
                attempt_kind_name(d->current.kind), reason, detail && *detail ? ": " : "",
                detail ? detail : "");
        disarm_rtc(d);

        sdp_message_init(&ev, SDP_ABORTED);
        sdp_add_u64(&ev, "attempt", id);
        sdp_add(&ev, "reason", reason);
        if (detail && *detail)
                sdp_add(&ev, "detail", detail);
        sdp_add(&ev, "sleep_state", sleep_state_name(d->current.sleep));
        events_attempt(d, &ev, true);
        handoff_attempt_ended(d, id, &ev);   /* logind's continuation may still come */

        push_history(d);
        clear_questions(d);
        if (d->current.kind == ATTEMPT_KIND_DARK)
                d->dark_pending = true;   /* try again after the back-off */
        set_state(d, ATTEMPT_IDLE);   /* our /dev/sleepctl holder follows the blocks again */
        /* Back off so a stuck wakeup source or a vetoing watcher cannot make us spin. */
        back_off(d);
        attempt_settle(d);
}

void attempt_abort(Daemon *d, const char *reason, const char *detail)
{
        if (d->state == ATTEMPT_NOTIFY)
                finish_abort(d, reason, detail);
}

/* Why did we wake? The RTC with an alarm due is the alarm's wake (dark resume); anything else
 * is a full wake. */
static void work_out_wake(Daemon *d, bool *is_alarm_wake)
{
        WakeupSnapshot after;
        char sources[256] = "";
        time_t now = time(NULL);
        bool rtc = false;

        if (d->features.has_wakeup_sources && sysfs_wakeup_snapshot(d->sysfs, &after) == 0)
                sysfs_wakeup_diff(&d->before_sleep, &after, sources, sizeof sources, NULL);
        for (char *p = sources; *p;) {
                size_t n = strcspn(p, ",");
                const char *dev = d->features.rtc_device;
                if ((n >= 3 && strncmp(p, "rtc", 3) == 0) || (n >= 10 && strncmp(p, "alarmtimer", 10) == 0) ||
                    (dev[0] && n == strlen(dev) && strncmp(p, dev, n) == 0))
                        rtc = true;
                p += n + (p[n] == ',');
        }
        /* Without wakeup-source counts, the clock is the evidence: woke at the alarm time. */
        if (!sources[0] && d->armed_alarm && now >= d->armed_alarm - 1)
                rtc = true;
        /* The RTC wakes only for what we armed; the clock is no extra evidence when the source
         * is known (it may have drifted from the RTC's). */
        *is_alarm_wake = rtc && d->armed_alarm && (sources[0] || now >= d->armed_alarm - 2);
        if (*is_alarm_wake && d->armed_for_hibernate)
                g_strlcpy(d->current.wake, "hibernate-delay", sizeof d->current.wake);
        else if (*is_alarm_wake)
                g_strlcpy(d->current.wake, "alarm", sizeof d->current.wake);
        else if (rtc)
                g_strlcpy(d->current.wake, "rtc", sizeof d->current.wake);
        else if (sources[0])   /* names anyone may give (/sys/power/wake_lock): valid text */
                sdp_text_sanitize(d->current.wake, sizeof d->current.wake, sources);
        else
                g_strlcpy(d->current.wake, "unknown", sizeof d->current.wake);
}

/* What a dark resume sleeps into next (PROTOCOL.md §7.2): a hibernation goes back to
 * hibernation after the alarm's job; suspend-then-hibernate hibernates at once when the RTC woke
 * it for its deadline, or suspends again for the rest of the delay after an alarm's job; any
 * full wake ends it. */
static void dark_continuation(Daemon *d, bool alarm_wake)
{
        bool hibernate_wake = alarm_wake && d->armed_for_hibernate;

        d->dark_sleep = SLEEP_SUSPEND;
        if (d->current.sleep == SLEEP_SUSPEND_THEN_HIBERNATE && alarm_wake)
                d->dark_sleep = hibernate_wake ? SLEEP_HIBERNATE : SLEEP_SUSPEND_THEN_HIBERNATE;
        else if (d->current.sleep == SLEEP_HIBERNATE || d->current.sleep == SLEEP_HYBRID)
                d->dark_sleep = d->current.sleep;
        if (!alarm_wake || hibernate_wake || d->current.sleep != SLEEP_SUSPEND_THEN_HIBERNATE)
                d->hibernate_at = 0;
        if (hibernate_wake)
                log_msg(5, d->current.id, "attempt %llu: HibernateDelaySec is over: hibernating now",
                        (unsigned long long)d->current.id);
}

static void resumed(Daemon *d, gint64 returned_us)
{
        SdpMessage ev;
        uint64_t id = d->current.id;
        bool alarm_wake;
        Alarm *waker = alarm_earliest(d);
        char waker_name[65] = "";

        if (waker)
                g_strlcpy(waker_name, waker->name, sizeof waker_name);
        d->current.slept_ms = boot_ms_since(d->commit_boot_us);
        work_out_wake(d, &alarm_wake);
        dark_continuation(d, alarm_wake);
        d->current.dark = alarm_wake;
        g_strlcpy(d->current.result, "resumed", sizeof d->current.result);

        /* Everyone hears of the resume first: clearing the RTC and the log line (a journal that
         * is busy with the resume itself) come after, off the path a user waits on. */
        sdp_message_init(&ev, SDP_RESUMED);
        sdp_add_u64(&ev, "attempt", id);
        sdp_add_u64(&ev, "slept_ms", d->current.slept_ms);
        sdp_add(&ev, "wake", d->current.wake);
        if (alarm_wake && !d->armed_for_hibernate && waker_name[0])
                sdp_add(&ev, "alarm", waker_name);
        sdp_add_bool(&ev, "dark", alarm_wake);
        sdp_add(&ev, "sleep_state", sleep_state_name(d->current.sleep));
        events_attempt(d, &ev, true);
        /* what a desktop user feels: the kernel handing the resume back → `resumed` sent to
         * everyone (queued for a peer that is not reading) */
        d->current.resume_us = (uint64_t)MAX(g_get_monotonic_time() - returned_us, 0);

        disarm_rtc(d);
        d->current.ended_ms = wall_ms();
        d->current.duration_ms = boot_ms_since(d->current.started_boot_us);
        d->n_suspends++;
        d->backoff_ms = 0;
        if (alarm_wake)
                d->n_dark++;
        log_msg(5, id, "attempt %llu (%s) resumed after %llu ms, wake: %s%s; everyone told %llu us after the kernel returned",
                (unsigned long long)id, attempt_kind_name(d->current.kind), (unsigned long long)d->current.slept_ms,
                d->current.wake, alarm_wake ? " (dark resume)" : "", (unsigned long long)d->current.resume_us);
        handoff_attempt_ended(d, id, &ev);   /* logind's continuation may still come */

        push_history(d);
        clear_questions(d);
        set_state(d, ATTEMPT_IDLE);   /* our /dev/sleepctl holder follows the blocks again */
        /* Only the alarm's own wake is dark: anything else means someone wants the machine. */
        d->dark_pending = alarm_wake;
        d->armed_for_hibernate = false;
        d->user_requested = d->app_requested = false;
        /* Holds are taken before anyone hears of the alarm, so nothing can re-suspend
         * between the wake and the owner's job. */
        alarm_fire_due(d, id);
        alarm_reschedule(d);
        attempt_settle(d);
}

static void commit_met_wakeup(Daemon *d, const char *detail);

static void commit_done(GObject *src, GAsyncResult *res, gpointer data)
{
        Daemon *d = data;
        KernelCall *j = g_task_get_task_data(G_TASK(res));
        char detail[160];

        if (j->r_disk < 0) {
                snprintf(detail, sizeof detail, "writing %s to /sys/power/disk: %s", j->disk_mode,
                         g_strerror(-j->r_disk));
                finish_abort(d, "kernel-error", detail);
                return;
        }
        if (j->r_count < 0) {
                if (j->r_count == -EINVAL)
                        commit_met_wakeup(d, "wakeup_count changed: a wakeup event arrived before the state write");
                else {
                        snprintf(detail, sizeof detail, "writing wakeup_count: %s", g_strerror(-j->r_count));
                        finish_abort(d, "kernel-error", detail);
                }
                return;
        }
        if (j->r_state < 0) {
                if (j->r_state == -EBUSY)
                        commit_met_wakeup(d, "the kernel saw a pending wakeup event (EBUSY)");
                else if (j->r_state == -EAGAIN && d->features.has_sleep_mode)
                        finish_abort(d, "disabled", "the kernel's sleep_mode refused the suspend (EAGAIN)");
                else {
                        snprintf(detail, sizeof detail, "writing %s to /sys/power/state: %s", j->state,
                                 g_strerror(-j->r_state));
                        finish_abort(d, "kernel-error", detail);
                }
                return;
        }
        resumed(d, j->returned_us);
}

static void recount_done(GObject *src, GAsyncResult *res, gpointer data);
static bool readable_labels(Client *c, char *out, size_t size);

/* All answers are in (or late): read the count again, so that what happened during NOTIFY is
 * judged before the commit decision. The re-read blocks until IPC in flight (EPOLLWAKEUP) has
 * been handled, so any block that arrived before it is seen by decide_commit() below; anything
 * after it makes the count write fail. */
/* A delegated block is held (asked now) and the attempt is one that blocks stop. */
static bool delegated_block_stops(Daemon *d)
{
        delegate_refresh(d);
        return d->current.kind != ATTEMPT_KIND_USER && delegate_any_held(d);
}

static void commit(Daemon *d)
{
        KernelCall *j;

        d->current.notify_us = (uint64_t)(g_get_monotonic_time() - d->current.notify_start_us);
        if (d->notify_timer) {
                g_source_remove(d->notify_timer);
                d->notify_timer = 0;
        }
        set_state(d, ATTEMPT_COMMIT);
        /* A held delegated block keeps its wakeup source active, and the recount would wait in the
         * kernel until it is given back: decide now, as the recount's decision would. */
        if (delegated_block_stops(d)) {
                g_autofree char *who = blocker_describe_all(d, sizeof d->current.detail - 1);
                finish_abort(d, "blocked", who);
                return;
        }
        j = g_new0(KernelCall, 1);
        j->sysfs = d->sysfs;
        j->kind = CALL_READ_COUNT;
        j->attempt = d->current.id;
        run_call(d, j, recount_done);
}

typedef enum {
        RISE_NONE,              /* the count did not move */
        RISE_CLIENT_MESSAGES,   /* only our own clients' messages moved it */
        RISE_WAKEUP_EVENT,      /* a real wakeup event, or a rise nothing explains */
} CountRise;

/* Did a wakeup event arrive since the count d->wakeup_count and the sources BASE were read? Our
 * own clients' messages move the count too (they pass through EPOLLWAKEUP): those are explained by
 * IPC sources and were handled before the re-read returned. Any other source, or a rise nothing
 * explains, is a real wakeup event (DETAIL says which). */
static CountRise count_rise(Daemon *d, const WakeupSnapshot *base, bool base_valid, const KernelCall *j,
                            char *detail, size_t size)
{
        char names[200];
        uint64_t ipc = 0;
        unsigned rise = j->count - d->wakeup_count;

        if (rise == 0)
                return RISE_NONE;
        if (!base_valid || !j->have_snapshot) {
                snprintf(detail, size, "wakeup_count rose by %u during the attempt", rise);
                return RISE_WAKEUP_EVENT;
        }
        if (sysfs_wakeup_diff(base, &j->snap, names, sizeof names, &ipc) > 0) {
                snprintf(detail, size, "wakeup event from %s during the attempt", names);
                return RISE_WAKEUP_EVENT;
        }
        if (ipc < rise) {
                snprintf(detail, size, "wakeup_count rose by %u during the attempt, no source named", rise);
                return RISE_WAKEUP_EVENT;
        }
        log_msg(7, d->current.id, "wakeup_count moved by %u: client messages (EPOLLWAKEUP) only", rise);
        return RISE_CLIENT_MESSAGES;
}

/* PROTOCOL §6.6: a connection that let its readable fds go unanswered blocks until it answers
 * (a ready/veto, even late), removes the fd, or goes away. Added after the commit decision so
 * that this attempt's reason stays fd-readable. */
static void add_fd_blockers(Daemon *d)
{
        GHashTableIter it;
        gpointer v;
        char reason[160];

        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Client *c = v;
                if (!c->fd_late)
                        continue;
                c->fd_late = false;
                snprintf(reason, sizeof reason, "readable fds not answered (%s)", c->name[0] ? c->name : c->comm);
                blocker_add(d, BLOCKER_FD, c, 0, reason, c->pid, c->uid, c->comm);
        }
}

/* ... or until none of its fds is readable any more (checked whenever a decision is made). */
void attempt_refresh_fd_blockers(Daemon *d)
{
        GHashTableIter it;
        gpointer v;
        GArray *done = NULL;

        if (d->n_fd_blockers == 0)
                return;   /* the common case, without a scan of all blockers */
        g_hash_table_iter_init(&it, d->blockers);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Blocker *b = v;
                Client *c;
                char labels[512];
                if (b->source != BLOCKER_FD)
                        continue;
                c = g_hash_table_lookup(d->clients, GUINT_TO_POINTER(b->client));
                if (c && readable_labels(c, labels, sizeof labels))
                        continue;
                if (!done)
                        done = g_array_new(FALSE, FALSE, sizeof(unsigned));
                g_array_append_val(done, b->client);
        }
        for (guint i = 0; done && i < done->len; i++)
                blocker_remove(d, BLOCKER_FD, g_array_index(done, unsigned, i), 0);
        if (done)
                g_array_free(done, TRUE);
}

void attempt_fd_owner_answered(Daemon *d, Client *c)
{
        c->fd_late = false;
        blocker_remove(d, BLOCKER_FD, c->id, 0);
}

/* The RTC at the earliest of: the first alarm (not for a user request, which wakes only on a
 * user action, PROTOCOL.md §6.7) and suspend-then-hibernate's deadline (set when its first
 * suspend commits; a dark continuation keeps it). */
static void arm_rtc(Daemon *d)
{
        Alarm *a = d->current.kind == ATTEMPT_KIND_USER ? NULL : alarm_earliest(d);
        time_t at = a ? a->next : 0;
        int r;

        d->armed_alarm = 0;
        d->armed_for_hibernate = false;
        if (d->current.sleep == SLEEP_SUSPEND_THEN_HIBERNATE) {
                if (!d->hibernate_at || d->current.kind != ATTEMPT_KIND_DARK)
                        d->hibernate_at = time(NULL) + (time_t)d->cfg.hibernate_delay_s;
                /* an alarm due at the same moment runs first; the hibernation follows it */
                if (!at || d->hibernate_at < at)
                        at = d->hibernate_at, d->armed_for_hibernate = true;
                /* the kernel refuses an alarm in the past (ETIME): a deadline passed during
                 * NOTIFY wakes at once instead */
                if (at < time(NULL) + 2)
                        at = time(NULL) + 2;
        }
        if (!d->features.rtc[0])
                return;
        r = sysfs_rtc_set_wakealarm(d->sysfs, d->features.rtc, at);
        if (r < 0) {
                log_msg(4, d->current.id, "cannot arm the RTC: %s", g_strerror(-r));
                d->armed_for_hibernate = false;
                return;
        }
        d->armed_alarm = at;
        if (d->armed_for_hibernate)
                log_msg(6, d->current.id, "RTC armed for the hibernation at %lld", (long long)at);
        else if (a)
                log_msg(6, d->current.id, "RTC armed for alarm %s at %lld", a->name, (long long)at);
}

/* What the state write puts the machine into: SleepState for a suspend; disk for the others,
 * with /sys/power/disk as HibernateMode (auto: platform where the firmware offers it, as
 * systemd does) or suspend for hybrid sleep. */
static void kernel_state_of(Daemon *d, char *state, size_t size, char *disk_mode, size_t dsize)
{
        SleepState s = d->current.sleep;

        disk_mode[0] = '\0';
        if (s == SLEEP_SUSPEND || s == SLEEP_SUSPEND_THEN_HIBERNATE) {
                g_strlcpy(state, d->cfg.sleep_state, size);
                return;
        }
        g_strlcpy(state, "disk", size);
        if (s == SLEEP_HYBRID)
                g_strlcpy(disk_mode, "suspend", dsize);
        else if (strcmp(d->cfg.hibernate_mode, "auto") != 0)
                g_strlcpy(disk_mode, d->cfg.hibernate_mode, dsize);
        else
                g_strlcpy(disk_mode, sysfs_disk_mode_offered(d->sysfs, "platform") ? "platform" : "shutdown", dsize);
}

/* The commit decision's inputs, as they stand now. */
static CommitInput commit_input(Daemon *d)
{
        delegate_refresh(d);   /* a delegated hold taken or given back since the last ask */
        return (CommitInput){
                .kind = d->current.kind,
                .blockers = blocker_count(d),
                .disabled = disable_active(d),
                .vetoed = d->vetoed,
                .fd_unanswered = d->fd_unanswered,
                .late_watchers = (unsigned)d->late_now,
                .late_is_veto = d->cfg.watcher_timeout_is_veto,
                .alarm_due_soon = alarm_due_soon(d),
        };
}

/* The re-read's count is what the count write will offer; its sources are what the wake (and a
 * second commit) are judged against. */
static void take_recount(Daemon *d, const KernelCall *rj)
{
        d->wakeup_count = rj->count;
        d->before_sleep_valid = rj->have_snapshot;
        if (rj->have_snapshot)
                d->before_sleep = rj->snap;
}

static void write_state(Daemon *d)
{
        KernelCall *j;

        d->commit_boot_us = boottime_us();
        set_state(d, ATTEMPT_SUSPENDED);
        j = g_new0(KernelCall, 1);
        j->sysfs = d->sysfs;
        j->kind = CALL_COMMIT;
        j->count = d->wakeup_count;
        kernel_state_of(d, j->state, sizeof j->state, j->disk_mode, sizeof j->disk_mode);
        log_msg(6, d->current.id, "attempt %llu: writing %s%s%s", (unsigned long long)d->current.id,
                j->state, j->disk_mode[0] ? " with /sys/power/disk " : "", j->disk_mode);
        run_call(d, j, commit_done);
}

static void recount_done(GObject *src, GAsyncResult *res, gpointer data)
{
        Daemon *d = data;
        KernelCall *rj = g_task_get_task_data(G_TASK(res));
        size_t late;
        CommitVerdict verdict;
        char detail[300] = "";
        CommitInput in;

        count_read_done(d);
        if (d->state != ATTEMPT_COMMIT || rj->attempt != d->current.id)
                return;   /* the attempt ended meanwhile (e.g. shutdown) */
        if (rj->r_count < 0) {
                snprintf(detail, sizeof detail, "reading wakeup_count: %s", g_strerror(-rj->r_count));
                finish_abort(d, "kernel-error", detail);
                return;
        }
        if (count_rise(d, &d->at_prepare, d->at_prepare_valid, rj, detail, sizeof detail) == RISE_WAKEUP_EVENT) {
                finish_abort(d, "wakeup-event", detail);
                return;
        }
        take_recount(d, rj);
        late = d->late_now;
        if (d->fd_unanswered)
                g_strlcpy(detail, d->fd_detail, sizeof detail);
        in = commit_input(d);
        verdict = decide_commit(&in);
        add_fd_blockers(d);
        if (verdict != COMMIT_GO) {
                if (verdict == COMMIT_VETOED)
                        g_strlcpy(detail, d->veto_reason, sizeof detail);
                else if (verdict == COMMIT_BLOCKED) {
                        g_autofree char *who = blocker_describe_all(d, sizeof d->current.detail - 1);
                        snprintf(detail, sizeof detail, "%s", who);
                } else if (verdict == COMMIT_WATCHER_TIMEOUT)
                        snprintf(detail, sizeof detail, "%zu watcher(s) did not answer in time", late);
                finish_abort(d, commit_verdict_reason(verdict), detail);
                return;
        }
        arm_rtc(d);
        write_state(d);
}

/* The count write or the state write met a wakeup event. When it was only our own clients'
 * messages (a monitor's `status`, a `ping`) and, handled now, they change nothing the commit
 * decision rests on, the attempt commits again — a desktop applet polling status must not cost
 * the user the suspend. Anything else ends it as `wakeup-event`, as PROTOCOL.md §7.1 says: a
 * kernel event, a block, a disable, a rise nothing names. Bounded, so that a client that keeps
 * talking cannot hold the attempt in COMMIT. */
static void recommit_done(GObject *src, GAsyncResult *res, gpointer data)
{
        Daemon *d = data;
        KernelCall *rj = g_task_get_task_data(G_TASK(res));
        CommitInput in;
        char detail[300] = "";

        count_read_done(d);
        if (d->state != ATTEMPT_COMMIT || rj->attempt != d->current.id)
                return;   /* the attempt ended meanwhile (e.g. shutdown) */
        in = commit_input(d);
        if (rj->r_count < 0 || d->shutting_down ||
            count_rise(d, &d->before_sleep, d->before_sleep_valid, rj, detail, sizeof detail) != RISE_CLIENT_MESSAGES ||
            decide_commit(&in) != COMMIT_GO) {
                finish_abort(d, "wakeup-event", d->commit_failure);
                return;
        }
        take_recount(d, rj);
        log_msg(6, d->current.id, "attempt %llu: only client messages met the commit (%s): committing again",
                (unsigned long long)d->current.id, d->commit_failure);
        write_state(d);   /* the RTC stays armed from the first commit */
}

static void commit_met_wakeup(Daemon *d, const char *detail)
{
        KernelCall *j;

        /* more tries: not while a delegated block is held (the wakeup event was its write, and a
         * re-read of the count would wait until it is given back) */
        if (++d->commit_tries > COMMIT_TRIES_MAX || delegated_block_stops(d)) {
                finish_abort(d, "wakeup-event", detail);
                return;
        }
        g_strlcpy(d->commit_failure, detail, sizeof d->commit_failure);
        set_state(d, ATTEMPT_COMMIT);
        j = g_new0(KernelCall, 1);
        j->sysfs = d->sysfs;
        j->kind = CALL_READ_COUNT;
        j->attempt = d->current.id;
        run_call(d, j, recommit_done);
}

static void arm_notify_timer(Daemon *d);

static gboolean notify_timeout(gpointer data)
{
        Daemon *d = data;
        gint64 now = g_get_monotonic_time();
        GHashTableIter it;
        gpointer v;
        char who[160];

        d->notify_timer = 0;
        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Client *c = v;
                if (c->asked != d->current.id || c->answered == d->current.id || c->deadline > now)
                        continue;
                c->late++;
                d->n_late++;
                d->late_now++;
                c->answered = d->current.id;   /* a later answer is wrong-attempt */
                log_msg(4, d->current.id, "%s did not answer attempt %llu within %u ms (%s)",
                        client_describe(c, who, sizeof who), (unsigned long long)d->current.id,
                        c->budget_ms, c->fd_asked ? "readable fds: counts as a blocker" :
                        d->cfg.watcher_timeout_is_veto ? "treated as a veto" : "treated as ready");
                if (c->fd_asked) {
                        c->fd_late = true;
                        d->fd_unanswered = true;
                        snprintf(d->fd_detail, sizeof d->fd_detail,
                                 "%s (pid %d) did not answer for its readable fds",
                                 c->name[0] ? c->name : c->comm, (int)c->pid);
                }
                if (d->pending_answers > 0)
                        d->pending_answers--;
        }
        if (d->pending_answers == 0)
                commit(d);
        else
                arm_notify_timer(d);
        return G_SOURCE_REMOVE;
}

/* One timer for the earliest deadline still pending. */
static void arm_notify_timer(Daemon *d)
{
        gint64 earliest = G_MAXINT64, now = g_get_monotonic_time();
        GHashTableIter it;
        gpointer v;

        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Client *c = v;
                if (c->asked == d->current.id && c->answered != d->current.id && c->deadline < earliest)
                        earliest = c->deadline;
        }
        if (earliest == G_MAXINT64) {
                if (!d->logind_wait)   /* else its own timer ends the wait */
                        commit(d);
                return;
        }
        d->notify_timer = g_timeout_add(earliest > now ? (guint)((earliest - now + 999) / 1000) : 0,
                                        notify_timeout, d);
}

static bool readable_labels(Client *c, char *out, size_t size)
{
        GHashTableIter it;
        gpointer v;
        size_t n = 0;
        out[0] = '\0';
        if (!c->fds)   /* the common case, and its table is not touched (daemon.h) */
                return false;
        g_hash_table_iter_init(&it, c->fds);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                RegisteredFd *r = v;
                struct pollfd p = { .fd = r->fd, .events = POLLIN };
                r->readable = poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP));
                if (r->readable && n < size)
                        n += (size_t)snprintf(out + n, size - n, "%s%s", n ? "," : "", r->label);
        }
        sdp_text_cut(out, size - 1);   /* a label cut by snprintf loses its partial character */
        return n > 0;
}

/* logind's delay inhibitors are waited for like a watcher (logind.c), up to InhibitDelayMaxUSec;
 * an application attempt is handed to logind meanwhile (handoff.c), so that logind tells their
 * holders, and then its continuation (systemd-suspend.service's request) ends the wait. */
#define HANDOFF_START_MS 10000

static void logind_wait_end(Daemon *d, const char *why)
{
        if (!d->logind_wait)
                return;
        d->logind_wait = false;
        if (d->logind_wait_timer) {
                g_source_remove(d->logind_wait_timer);
                d->logind_wait_timer = 0;
        }
        handoff_attempt_waits_no_more(d);
        log_msg(6, d->current.id, "attempt %llu: %s", (unsigned long long)d->current.id, why);
        if (d->pending_answers > 0 && --d->pending_answers == 0 && d->state == ATTEMPT_NOTIFY)
                commit(d);
}

static gboolean logind_wait_over(gpointer data)
{
        Daemon *d = data;
        d->logind_wait_timer = 0;
        logind_wait_end(d, handoff_sent(d) ? "logind did not continue through systemd-suspend.service in time: going on"
                                           : "logind delay inhibitors still held at InhibitDelayMaxUSec: going on, as logind does");
        return G_SOURCE_REMOVE;
}

static void logind_wait_begin(Daemon *d, bool user)
{
        const char *desc = "";
        uint64_t max_ms = 0;

        /* a user request through logind (systemctl suspend) had its delay inhibitors already */
        if (user || logind_delay_inhibitors(d, &desc, &max_ms) == 0)
                return;
        d->logind_wait = true;
        d->logind_wait_extended = false;
        d->pending_answers++;
        d->logind_wait_timer = g_timeout_add((guint)MIN(max_ms, G_MAXUINT), logind_wait_over, d);
        log_msg(5, d->current.id, "attempt %llu waits up to %llu ms for logind delay inhibitors: %s",
                (unsigned long long)d->current.id, (unsigned long long)max_ms, desc);
        handoff_begin(d, d->current.id);
}

/* logind waits for its holders up to the same bound, then starts systemd-suspend.service: once
 * handed off, the continuation is given that bound and HANDOFF_START_MS for the unit to start
 * (the wait ends there even if it never comes, as it did before the handoff). */
static void logind_wait_extend(Daemon *d)
{
        uint64_t max_ms = 0;

        logind_delay_inhibitors(d, NULL, &max_ms);
        if (d->logind_wait_timer)
                g_source_remove(d->logind_wait_timer);
        d->logind_wait_timer = g_timeout_add((guint)MIN(max_ms + HANDOFF_START_MS, G_MAXUINT), logind_wait_over, d);
        d->logind_wait_extended = true;
}

/* What logind.c and handoff.c recorded since the last look: the attempt was handed to logind
 * (its continuation ends the wait), or the delay inhibitors are gone while it was not (a handoff
 * that failed waits like no handoff). Handed to logind, the holders let go because logind told
 * them: its sleep follows, so their release ends nothing. */
static void logind_wait_settle(Daemon *d)
{
        if (!d->logind_wait)
                return;
        if (handoff_sent(d)) {
                if (!d->logind_wait_extended)
                        logind_wait_extend(d);
        } else if (logind_delay_inhibitors(d, NULL, NULL) == 0) {
                logind_wait_end(d, "logind delay inhibitors released");
        }
}

void attempt_logind_continues(Daemon *d)
{
        logind_wait_end(d, "logind told its delay inhibitors; systemd-suspend.service continues the attempt");
}

/* `suspending` as most connections get it, without readable labels: encoded once per budget
 * (monitors' is budget 0), its bytes reused for every connection with that budget. */
typedef struct {
        bool valid;
        unsigned budget;
        EncodedEvent e;
} SharedSuspending;

static void send_suspending(Daemon *d, Client *c, unsigned budget, const char *readable, SharedSuspending *shared)
{
        SdpMessage ev;

        if (!readable && shared->valid && shared->budget == budget) {
                events_to_encoded(d, c, &shared->e);
                return;
        }
        sdp_message_init(&ev, SDP_SUSPENDING);
        sdp_add_u64(&ev, "attempt", d->current.id);
        sdp_add_u64(&ev, "deadline_ms", budget);
        sdp_add(&ev, "kind", attempt_kind_name(d->current.kind));
        if (readable)
                sdp_add(&ev, "readable", readable);
        sdp_add(&ev, "sleep_state", sleep_state_name(d->current.sleep));
        if (!readable && events_encode(&shared->e, &ev)) {
                shared->valid = true;
                shared->budget = budget;
                events_to_encoded(d, c, &shared->e);
                return;
        }
        events_to(d, c, &ev);
}

static void notify(Daemon *d)
{
        GHashTableIter it;
        gpointer v;
        gint64 now = g_get_monotonic_time();
        bool user = d->current.kind == ATTEMPT_KIND_USER;
        g_autofree SharedSuspending *shared = g_new0(SharedSuspending, 1);

        set_state(d, ATTEMPT_NOTIFY);
        d->current.notify_start_us = now;
        d->vetoed = false;
        d->veto_reason[0] = '\0';
        d->pending_answers = 0;
        d->late_now = 0;
        d->fd_unanswered = false;
        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Client *c = v;
                char labels[512];
                bool readable;
                unsigned budget;

                if (c->closing || !c->hello)
                        continue;
                readable = readable_labels(c, labels, sizeof labels);
                if (!c->watching && !readable) {
                        if (c->monitoring)
                                send_suspending(d, c, 0, NULL, shared);
                        continue;
                }
                budget = c->watching ? c->budget_ms : d->cfg.watcher_budget_default_ms;
                if (budget > d->cfg.attempt_budget_max_ms)
                        budget = d->cfg.attempt_budget_max_ms;
                if (user && budget > d->cfg.user_request_budget_ms)
                        budget = d->cfg.user_request_budget_ms;
                c->asked = d->current.id;
                c->fd_asked = readable && !c->watching;
                c->deadline = now + (gint64)budget * 1000;
                d->pending_answers++;
                d->current.asked++;
                send_suspending(d, c, budget, readable ? labels : NULL, shared);
        }
        logind_wait_begin(d, user);
        if (d->pending_answers == 0)
                commit(d);
        else
                arm_notify_timer(d);
}

static void prepare_done(GObject *src, GAsyncResult *res, gpointer data)
{
        Daemon *d = data;
        KernelCall *j = g_task_get_task_data(G_TASK(res));
        char detail[160];

        count_read_done(d);
        if (j->r_count < 0) {
                snprintf(detail, sizeof detail, "reading wakeup_count: %s", g_strerror(-j->r_count));
                finish_abort(d, "kernel-error", detail);
                return;
        }
        d->wakeup_count = j->count;
        d->at_prepare_valid = j->have_snapshot;
        if (j->have_snapshot)
                d->at_prepare = j->snap;
        if (d->shutting_down) {
                finish_abort(d, "shutdown", "the daemon is stopping");
                return;
        }
        notify(d);
}

/* No attempt id could be reserved on disk (store.c): the requests are refused (a requester gets
 * `internal`), and automatic attempts wait for the back-off as after an abort, so a disk that
 * keeps failing is retried, not spun on. */
static void start_failed(Daemon *d, int r)
{
        log_err("no attempt starts: its id could not be reserved in the state file (%s)", g_strerror(-r));
        d->user_requested = d->app_requested = false;
        back_off(d);
}

static void start(Daemon *d, AttemptKind kind, SleepState sleep)
{
        KernelCall *j;
        uint64_t id;
        int r;

        /* never repeats, also across a crash: an id only once its bound is on disk */
        r = state_next_attempt_id(d, &id);
        if (r < 0) {
                start_failed(d, r);
                return;
        }
        memset(&d->current, 0, sizeof d->current);
        d->commit_tries = 0;
        d->current.id = id;
        d->current.kind = kind;
        d->current.sleep = sleep;
        d->current.started_ms = wall_ms();
        d->current.started_boot_us = boottime_us();
        g_strlcpy(d->current.result, "in-progress", sizeof d->current.result);
        d->n_attempts++;
        if (kind == ATTEMPT_KIND_USER)
                d->user_requested = false;
        if (kind == ATTEMPT_KIND_APPLICATION)
                d->app_requested = false;
        if (kind == ATTEMPT_KIND_DARK)
                d->dark_pending = false;
        log_msg(6, d->current.id, "attempt %llu (%s, %s) starts", (unsigned long long)d->current.id,
                attempt_kind_name(kind), sleep_state_name(sleep));
        /* our own holder would make our own wakeup_count reads wait for it (and a user request
         * ignores blocks): it rests while we suspend; blocks that come now abort the attempt */
        set_state(d, ATTEMPT_PREPARE);
        j = g_new0(KernelCall, 1);
        j->sysfs = d->sysfs;
        j->kind = CALL_READ_COUNT;
        run_call(d, j, prepare_done);
}

void attempt_settle(Daemon *d)
{
        DecisionInput in;
        Decision dec;
        SleepState sleep = SLEEP_SUSPEND;

        if (d->state == ATTEMPT_NOTIFY && disable_active(d)) {
                finish_abort(d, "disabled", "suspend was disabled during the attempt");
                return;   /* it settled again */
        }
        if (d->state == ATTEMPT_NOTIFY)
                logind_wait_settle(d);
        if (d->state != ATTEMPT_IDLE)
                return;
        attempt_refresh_fd_blockers(d);
        delegate_refresh(d);
        in = (DecisionInput){
                .shutting_down = d->shutting_down,
                .attempt_active = false,
                .immediate_mode = d->mode == MODE_IMMEDIATE,
                .backing_off = d->backoff_timer != 0,
                .user_request = d->user_requested,
                .app_request = d->app_requested,
                .dark_pending = d->dark_pending,
                .blockers = blocker_count(d),
                .disabled = disable_active(d),
                .alarm_due_soon = alarm_due_soon(d),
        };
        dec = decide_next(&in);
        if (!dec.start) {
                /* a refused application request does not linger */
                d->app_requested = false;
                return;
        }
        switch (dec.kind) {
        case ATTEMPT_KIND_USER:
        case ATTEMPT_KIND_APPLICATION: sleep = d->requested_sleep; break;
        case ATTEMPT_KIND_DARK:
                sleep = d->dark_sleep;
                /* the delay ran out during the alarm's job: no suspend for no time */
                if (sleep == SLEEP_SUSPEND_THEN_HIBERNATE && d->hibernate_at && d->hibernate_at <= time(NULL) + 2)
                        sleep = SLEEP_HIBERNATE, d->hibernate_at = 0;
                break;
        case ATTEMPT_KIND_IMMEDIATE: sleep = SLEEP_SUSPEND; break;
        }
        d->requested_sleep = SLEEP_SUSPEND;
        start(d, dec.kind, sleep);
}

uint64_t attempt_request(Daemon *d, AttemptKind kind, SleepState sleep)
{
        if (attempt_active(d)) {   /* request.c joins only an attempt of the same sleep state */
                /* join the attempt in progress; a user request makes it forced */
                if (kind == ATTEMPT_KIND_USER && d->state <= ATTEMPT_NOTIFY) {
                        d->current.kind = ATTEMPT_KIND_USER;
                        delegate_enforce(d, false);   /* its count read may wait on a hold now */
                }
                return d->current.id;
        }
        if (kind == ATTEMPT_KIND_USER)
                d->user_requested = true;
        else
                d->app_requested = true;
        d->requested_sleep = sleep;
        attempt_settle(d);
        return attempt_active(d) ? d->current.id : 0;
}

void attempt_answer(Daemon *d, Client *c, bool ready, const char *reason)
{
        char who[160];

        c->answered = d->current.id;
        if (d->pending_answers > 0)
                d->pending_answers--;
        if (!ready) {
                client_describe(c, who, sizeof who);
                log_msg(5, d->current.id, "%s vetoes attempt %llu: %s", who,
                        (unsigned long long)d->current.id, reason ? reason : "");
                if (!d->vetoed)
                        snprintf(d->veto_reason, sizeof d->veto_reason, "%s: %s",
                                 c->watch_name[0] ? c->watch_name : c->comm, reason ? reason : "");
                sdp_text_cut(d->veto_reason, sizeof d->veto_reason - 1);   /* whole characters */
                d->vetoed = true;
                if (d->current.kind != ATTEMPT_KIND_USER) {
                        commit(d);   /* no need to wait for the others */
                        return;
                }
        }
        if (d->pending_answers == 0)
                commit(d);
}

void attempt_client_gone(Daemon *d, Client *c)
{
        if (d->state != ATTEMPT_NOTIFY || c->asked != d->current.id || c->answered == d->current.id)
                return;
        c->answered = d->current.id;   /* a dead watcher has no objection left */
        if (d->pending_answers > 0)
                d->pending_answers--;
        c->asked = 0;
        if (d->pending_answers == 0)
                commit(d);
}

void attempt_init(Daemon *d)
{
        set_state(d, ATTEMPT_IDLE);   /* our /dev/sleepctl holder follows the blocks again */
}
