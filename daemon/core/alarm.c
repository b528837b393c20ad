/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alarm.c — wake alarms (PROTOCOL.md §6.10): one-shot and cron, owned by a user, persisted.
 *
 * A wall-clock timerfd (CLOCK_REALTIME, absolute, cancelled on clock changes) fires the earliest
 * alarm while awake; attempt.c arms the RTC for it before a non-forced suspend and calls
 * alarm_fire_due() on resume. Firing takes the hold-blocker first and only then tells the owner
 * and starts its command (job.c), so there is no gap in which the machine could suspend again. */
#include <errno.h>
#include <glib-unix.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "account.h"
#include "daemon.h"
#include "job.h"

static void alarm_free(Alarm *a)
{
        if (a->hold_timer)
                g_source_remove(a->hold_timer);
        job_detach(a->job);
        g_free(a->command);
        g_free(a->not_run);
        g_free(a);
}

bool alarm_visible_to(const Alarm *a, const Client *c)
{
        return c->uid == 0 || c->uid == a->owner;
}

void alarm_add_item_fields(const Alarm *a, SdpMessage *m)
{
        sdp_add_u64(m, "id", a->id);
        sdp_add(m, "name", a->name);
        sdp_add_u64(m, "owner", a->owner);
        sdp_add_u64(m, "next", a->next > 0 ? (uint64_t)a->next : 0);
        if (a->cron)
                sdp_add(m, "cron", a->cron_text);
        else
                sdp_add_u64(m, "at", (uint64_t)a->at);
        sdp_add_u64(m, "hold", a->hold_s);
        if (a->command)
                sdp_add(m, "command", a->command);
        sdp_add_u64(m, "fired", a->fired);
        sdp_add_bool(m, "holding", a->holding);
        if (a->not_run)
                sdp_add(m, "not_run", a->not_run);
}

/* A one-shot is done once fired, unless it is kept to say why its command did not run. */
static bool one_shot_done(const Alarm *a)
{
        return !a->cron && a->next == 0 && !a->not_run;
}

void alarm_save(Daemon *d)
{
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autofree char *data = NULL;
        gsize len;
        int r;

        g_key_file_set_integer(kf, "Alarms", "Version", 1);
        g_key_file_set_uint64(kf, "Alarms", "NextId", d->next_alarm_id);
        for (guint i = 0; i < d->alarms->len; i++) {
                Alarm *a = g_ptr_array_index(d->alarms, i);
                g_autofree char *group = g_strdup_printf("Alarm %u", a->id);
                if (a->removed || (one_shot_done(a) && !a->holding))
                        continue;
                g_key_file_set_string(kf, group, "Name", a->name);
                g_key_file_set_uint64(kf, group, "Owner", a->owner);
                if (a->owner_name[0])
                        g_key_file_set_string(kf, group, "User", a->owner_name);
                if (a->not_run)
                        g_key_file_set_string(kf, group, "NotRun", a->not_run);
                if (a->cron)
                        g_key_file_set_string(kf, group, "Cron", a->cron_text);
                else
                        g_key_file_set_int64(kf, group, "At", a->at);
                g_key_file_set_uint64(kf, group, "Hold", a->hold_s);
                g_key_file_set_boolean(kf, group, "HoldGiven", a->hold_given);
                if (a->command)
                        g_key_file_set_string(kf, group, "Command", a->command);
                g_key_file_set_uint64(kf, group, "Fired", a->fired);
        }
        data = g_key_file_to_data(kf, &len, NULL);
        r = store_write_atomic(d->state_dir, "alarms", data, len);
        if (r < 0)
                log_err("cannot save alarms in %s: %s", d->state_dir, g_strerror(-r));
}

static time_t compute_next(const Alarm *a, time_t now)
{
        time_t next;
        if (!a->cron)
                return a->at;
        return cron_next(&a->spec, now, &next) == 0 ? next : 0;
}

Alarm *alarm_earliest(Daemon *d)
{
        Alarm *best = NULL;
        for (guint i = 0; i < d->alarms->len; i++) {
                Alarm *a = g_ptr_array_index(d->alarms, i);
                if (a->removed || a->next <= 0)
                        continue;
                if (!best || a->next < best->next)
                        best = a;
        }
        return best;
}

void alarm_reschedule(Daemon *d)
{
        Alarm *a = alarm_earliest(d);
        struct itimerspec its = { 0 };
        if (a)
                its.it_value.tv_sec = a->next > 0 ? a->next : 1;
        if (timerfd_settime(d->alarm_timerfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL) < 0)
                log_err("timerfd_settime: %s", g_strerror(errno));
}

static void remove_alarm(Daemon *d, Alarm *a)
{
        g_ptr_array_remove(d->alarms, a);
        alarm_free(a);
}

static void alarm_changed(Daemon *d, const Alarm *a, const char *change)
{
        SdpMessage ev;
        sdp_message_init(&ev, SDP_ALARM_CHANGED);
        sdp_add_u64(&ev, "alarm", a->id);
        sdp_add(&ev, "name", a->name);
        sdp_add(&ev, "change", change);
        if (a->next > 0)
                sdp_add_u64(&ev, "next", (uint64_t)a->next);
        events_to_monitors(d, &ev);
}

static void end_hold(Daemon *d, Alarm *a, const char *why)
{
        if (!a->holding)
                return;
        log_info("alarm %s: hold ends (%s)", a->name, why);
        a->holding = false;
        if (a->hold_timer) {
                g_source_remove(a->hold_timer);
                a->hold_timer = 0;
        }
        /* a command still running goes on; the hold no longer waits for it */
        job_detach(a->job);
        a->job = NULL;
        if (a->removed || one_shot_done(a)) {
                uint32_t id = a->id;
                remove_alarm(d, a);
                alarm_save(d);
                blocker_remove(d, BLOCKER_ALARM, 0, id);
        } else {
                alarm_save(d);
                blocker_remove(d, BLOCKER_ALARM, 0, a->id);
        }
}

typedef struct {
        Daemon *d;
        uint32_t id;
} AlarmRef;

static Alarm *find_by_id(Daemon *d, uint32_t id)
{
        for (guint i = 0; i < d->alarms->len; i++) {
                Alarm *a = g_ptr_array_index(d->alarms, i);
                if (a->id == id)
                        return a;
        }
        return NULL;
}

static gboolean on_hold_timer(gpointer data)
{
        AlarmRef *ref = data;
        Alarm *a = find_by_id(ref->d, ref->id);
        if (a) {
                a->hold_timer = 0;
                end_hold(ref->d, a, a->command ? "hold limit reached, the command goes on" : "hold time over");
        }
        return G_SOURCE_REMOVE;
}

static void alarm_job_ended(Daemon *d, uint32_t alarm_id, const char *why)
{
        Alarm *a = find_by_id(d, alarm_id);
        if (!a)
                return;
        a->job = NULL;
        end_hold(d, a, why);
}

/* After every due alarm holds: a command that cannot start ends its hold, which may start an
 * attempt, and that must not come before the other alarms' holds. The owner's account is read
 * now, as cron reads it (account.c): a removed, renamed, locked or expired account gets no job,
 * and why is kept for alarm-list (not_run=) as well as logged. */
static void start_command(Daemon *d, Alarm *a)
{
        JobCreds cr;
        char why[256];
        bool had_reason;
        int r;

        if (!a->command || a->job || !a->holding)
                return;
        r = account_resolve(a->owner, a->owner_name, time(NULL), &cr, why, sizeof why);
        if (r == 0) {
                r = job_start(d, a->id, a->name, &cr, a->command, &a->job);
                if (r == -EPERM)
                        snprintf(why, sizeof why, "alarm commands are switched off (RunCommands=%s)", d->cfg.run_commands);
                else if (r < 0)
                        snprintf(why, sizeof why, "its command could not be started (%s)", g_strerror(-r));
        } else {
                log_warn("alarm %s (uid %u): its command is not run: %s", a->name, (unsigned)a->owner, why);
        }
        had_reason = a->not_run != NULL;
        g_free(a->not_run);
        a->not_run = r < 0 ? g_strdup(why) : NULL;
        if (r < 0)
                end_hold(d, a, why);
        else if (had_reason)
                alarm_save(d);
}

/* An alarm that fires this long after its time was not woken for: it came due while the machine
 * slept unarmed (a user suspend, a hibernation the RTC could not end) or the daemon was not
 * running. Below it is the ordinary delay of a resume the RTC made. */
#define ALARM_LATE_S 60

static void fire(Daemon *d, Alarm *a, uint64_t woke_attempt)
{
        char reason[128];
        SdpMessage ev;
        AlarmRef *ref;
        time_t now = time(NULL), late = now - a->next;

        a->fired++;
        a->next = a->cron ? compute_next(a, now) : 0;
        /* the hold first: from here on nothing suspends until it ends */
        if (!a->holding) {
                snprintf(reason, sizeof reason, "alarm %s", a->name);
                if (blocker_add(d, BLOCKER_ALARM, NULL, a->id, reason, 0, a->owner, "alarm") == 0)
                        a->holding = true;
        }
        log_info("alarm %s (uid %u) fired%s; holding for %s", a->name, (unsigned)a->owner,
                 late >= ALARM_LATE_S ? " late (it came due while the machine slept or the daemon was down)" : "",
                 a->command ? "its command" : "its hold time");
        alarm_changed(d, a, "fired");
        if (a->cron)
                alarm_changed(d, a, "rescheduled");
        sdp_message_init(&ev, SDP_ALARM_FIRED);
        sdp_add_u64(&ev, "alarm", a->id);
        sdp_add(&ev, "name", a->name);
        sdp_add_u64(&ev, "hold_ms", (uint64_t)a->hold_s * 1000);
        if (woke_attempt)
                sdp_add_u64(&ev, "attempt", woke_attempt);
        if (late >= ALARM_LATE_S)
                sdp_add_u64(&ev, "late_s", (uint64_t)late);
        events_to_uid(d, a->owner, &ev);

        if (a->hold_timer)
                g_source_remove(a->hold_timer);
        ref = g_new0(AlarmRef, 1);
        ref->d = d;
        ref->id = a->id;
        a->hold_timer = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, a->hold_s, on_hold_timer, ref, g_free);
        alarm_save(d);
}

void alarm_fire_due(Daemon *d, uint64_t woke_attempt)
{
        time_t now = time(NULL);
        g_autoptr(GArray) fired = g_array_new(FALSE, FALSE, sizeof(uint32_t));

        for (guint i = 0; i < d->alarms->len; i++) {
                Alarm *a = g_ptr_array_index(d->alarms, i);
                if (!a->removed && a->next > 0 && a->next <= now) {
                        fire(d, a, woke_attempt);
                        g_array_append_val(fired, a->id);
                }
        }
        /* by id: a command that cannot start ends its hold, and a one-shot's alarm with it */
        for (guint i = 0; i < fired->len; i++) {
                Alarm *a = find_by_id(d, g_array_index(fired, uint32_t, i));
                if (a)
                        start_command(d, a);
        }
        alarm_reschedule(d);
}

static gboolean on_timerfd(gint fd, GIOCondition cond, gpointer data)
{
        Daemon *d = data;
        uint64_t ticks;
        /* ECANCELED: the wall clock was set, and every resume from suspend counts as set (the
         * kernel injects the sleep time). A cron alarm whose next run is still ahead may now have
         * an earlier one (the clock went back); one already due is due: recomputing it from now
         * would skip the very run that woke the machine. */
        if (read(fd, &ticks, sizeof ticks) < 0 && errno == ECANCELED) {
                time_t now = time(NULL);
                for (guint i = 0; i < d->alarms->len; i++) {
                        Alarm *a = g_ptr_array_index(d->alarms, i);
                        time_t before = a->next;
                        if (a->cron && a->next > now && (a->next = compute_next(a, now)) != before)
                                alarm_changed(d, a, "rescheduled");
                }
        }
        /* During a suspend the resume path fires the alarms, with the attempt id. */
        if (d->state != ATTEMPT_SUSPENDED)
                alarm_fire_due(d, 0);
        else
                alarm_reschedule(d);
        d->unsettled = true;   /* an alarm due soon, or a hold ended: attempt_settle() decides */
        return G_SOURCE_CONTINUE;
}

static unsigned alarms_of(Daemon *d, uid_t uid)
{
        unsigned n = 0;
        for (guint i = 0; i < d->alarms->len; i++) {
                Alarm *a = g_ptr_array_index(d->alarms, i);
                n += !a->removed && a->owner == uid;
        }
        return n;
}

static Alarm *find_by_name(Daemon *d, uid_t uid, const char *name)
{
        for (guint i = 0; i < d->alarms->len; i++) {
                Alarm *a = g_ptr_array_index(d->alarms, i);
                if (!a->removed && a->owner == uid && strcmp(a->name, name) == 0)
                        return a;
        }
        return NULL;
}

int alarm_add(Daemon *d, Client *c, const SdpMessage *m, Alarm **out, SdpError *code, char *err, size_t errlen)
{
        const char *name = sdp_get(m, "name"), *cron = sdp_get(m, "cron"), *command = sdp_get(m, "command");
        time_t now = time(NULL);
        Alarm *a;
        CronSpec spec;
        uint64_t v;

        if (!d->features.rtc[0]) {
                *code = SDP_E_UNSUPPORTED;
                snprintf(err, errlen, "this machine has no RTC wake alarm: an alarm could not wake it");
                return -ENOTSUP;
        }
        if (find_by_name(d, c->uid, name)) {
                *code = SDP_E_EXISTS;
                snprintf(err, errlen, "you already have an alarm named %s", name);
                return -EEXIST;
        }
        if (c->uid != 0 && alarms_of(d, c->uid) >= d->cfg.max_alarms_per_user) {
                *code = SDP_E_LIMIT_EXCEEDED;
                snprintf(err, errlen, "at most %u alarms per user", d->cfg.max_alarms_per_user);
                return -E2BIG;
        }
        if (d->alarms->len >= d->cfg.max_alarms) {
                *code = SDP_E_LIMIT_EXCEEDED;
                snprintf(err, errlen, "at most %u alarms in total", d->cfg.max_alarms);
                return -E2BIG;
        }
        a = g_new0(Alarm, 1);
        g_strlcpy(a->name, name, sizeof a->name);
        a->owner = c->uid;
        /* the name goes with the uid: a uid later given to another user does not inherit it */
        account_name_of(c->uid, a->owner_name, sizeof a->owner_name);
        if (cron) {
                char why[128];
                if (cron_parse(cron, &spec, why, sizeof why) < 0) {
                        *code = SDP_E_BAD_FIELD;
                        snprintf(err, errlen, "cron: %s", why);
                        g_free(a);
                        return -EINVAL;
                }
                a->cron = true;
                a->spec = spec;
                g_strlcpy(a->cron_text, cron, sizeof a->cron_text);
        } else if (sdp_get_u64(m, "at", &v) == 0) {
                if ((time_t)v <= now) {
                        *code = SDP_E_BAD_FIELD;
                        snprintf(err, errlen, "at: %llu is in the past", (unsigned long long)v);
                        g_free(a);
                        return -EINVAL;
                }
                a->at = (time_t)v;
        } else {
                a->at = now + (time_t)sdp_get_u64_or(m, "in", 1);
        }
        a->next = compute_next(a, now);
        if (a->next <= 0) {
                *code = SDP_E_BAD_FIELD;
                snprintf(err, errlen, "cron: the expression never matches");
                g_free(a);
                return -EINVAL;
        }
        a->hold_given = sdp_get_u64(m, "hold", &v) == 0;
        a->hold_s = a->hold_given ? (unsigned)v : command ? d->cfg.default_command_hold_s : d->cfg.default_hold_s;
        a->command = g_strdup(command);
        a->id = ++d->next_alarm_id;
        g_ptr_array_add(d->alarms, a);
        alarm_save(d);
        alarm_reschedule(d);
        alarm_changed(d, a, "added");
        log_info("alarm %s added by uid %u, next at %lld", a->name, (unsigned)a->owner, (long long)a->next);
        *out = a;
        return 0;
}

int alarm_cancel(Daemon *d, Client *c, uint32_t id, const char *name)
{
        Alarm *a = name ? find_by_name(d, c->uid, name) : find_by_id(d, id);
        if (!a || a->removed || !alarm_visible_to(a, c))
                return -ENOENT;
        alarm_changed(d, a, "cancelled");
        log_info("alarm %s cancelled by uid %u", a->name, (unsigned)c->uid);
        a->removed = true;
        if (a->holding) {
                end_hold(d, a, "cancelled");
        } else {
                remove_alarm(d, a);
                alarm_save(d);
        }
        alarm_reschedule(d);
        return 0;
}

int alarm_release(Daemon *d, Client *c, uint32_t id)
{
        Alarm *a = find_by_id(d, id);
        if (!a || !a->holding || !alarm_visible_to(a, c))
                return -ENOENT;
        end_hold(d, a, "released by its owner");
        return 0;
}

static void load_owner(GKeyFile *kf, const char *group, Alarm *a)
{
        g_autofree char *user = g_key_file_get_string(kf, group, "User", NULL);
        /* a file of 0.2 has no User=: the uid's name now is the best there is */
        if (user)
                g_strlcpy(a->owner_name, user, sizeof a->owner_name);
        else
                account_name_of(a->owner, a->owner_name, sizeof a->owner_name);
        a->not_run = g_key_file_get_string(kf, group, "NotRun", NULL);
}

static void load(Daemon *d)
{
        g_autofree char *data = store_read(d->state_dir, "alarms");
        g_autoptr(GKeyFile) kf = g_key_file_new();
        gchar **groups;
        time_t now = time(NULL);

        if (!data)
                return;
        if (!g_key_file_load_from_data(kf, data, (gsize)-1, G_KEY_FILE_NONE, NULL)) {
                log_err("%s/alarms is corrupt; no alarms loaded", d->state_dir);
                return;
        }
        d->next_alarm_id = (uint32_t)g_key_file_get_uint64(kf, "Alarms", "NextId", NULL);
        groups = g_key_file_get_groups(kf, NULL);
        for (gchar **g = groups; *g; g++) {
                Alarm *a;
                g_autofree char *name = NULL, *cron = NULL;
                if (strncmp(*g, "Alarm ", 6) != 0)
                        continue;
                name = g_key_file_get_string(kf, *g, "Name", NULL);
                if (!name || !sdp_name_valid(name))
                        continue;
                a = g_new0(Alarm, 1);
                a->id = (uint32_t)strtoul(*g + 6, NULL, 10);
                g_strlcpy(a->name, name, sizeof a->name);
                a->owner = (uid_t)g_key_file_get_uint64(kf, *g, "Owner", NULL);
                cron = g_key_file_get_string(kf, *g, "Cron", NULL);
                if (cron) {
                        if (cron_parse(cron, &a->spec, NULL, 0) < 0) {
                                g_free(a);
                                continue;
                        }
                        a->cron = true;
                        g_strlcpy(a->cron_text, cron, sizeof a->cron_text);
                } else {
                        a->at = (time_t)g_key_file_get_int64(kf, *g, "At", NULL);
                }
                a->hold_s = (unsigned)g_key_file_get_uint64(kf, *g, "Hold", NULL);
                if (a->hold_s == 0)
                        a->hold_s = d->cfg.default_hold_s;
                a->hold_given = g_key_file_get_boolean(kf, *g, "HoldGiven", NULL);
                a->command = g_key_file_get_string(kf, *g, "Command", NULL);
                a->fired = g_key_file_get_uint64(kf, *g, "Fired", NULL);
                load_owner(kf, *g, a);
                /* a one-shot missed while the daemon was down fires now; one that fired without
                 * running its command stays fired, kept only to say why */
                a->next = !a->cron && a->not_run ? 0 : compute_next(a, now);
                if (a->id > d->next_alarm_id)
                        d->next_alarm_id = a->id;
                g_ptr_array_add(d->alarms, a);
        }
        g_strfreev(groups);
        log_info("%u alarm(s) loaded from %s", d->alarms->len, d->state_dir);
}

void alarm_init(Daemon *d)
{
        d->alarms = g_ptr_array_new();
        jobs_init(d, alarm_job_ended);
        d->alarm_timerfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
        if (d->alarm_timerfd < 0) {
                log_err("timerfd_create: %s", g_strerror(errno));
                return;
        }
        d->alarm_source = g_unix_fd_add(d->alarm_timerfd, G_IO_IN, on_timerfd, d);
        load(d);
        alarm_reschedule(d);
}

void alarm_free_all(Daemon *d)
{
        for (guint i = 0; i < d->alarms->len; i++)
                alarm_free(g_ptr_array_index(d->alarms, i));
        g_ptr_array_free(d->alarms, TRUE);
        jobs_free(d);
        if (d->alarm_source)
                g_source_remove(d->alarm_source);
        if (d->alarm_timerfd >= 0)
                close(d->alarm_timerfd);
}
