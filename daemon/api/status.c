/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.c — the full snapshot (PROTOCOL.md §6.14), one `item` per thing, then `ok items=N`. */
#include <stdio.h>
#include <string.h>

#include "daemon.h"

static void item_begin(SdpMessage *m, uint64_t seq, const char *type)
{
        sdp_message_init(m, SDP_ITEM);
        sdp_add_u64(m, "seq", seq);
        sdp_add(m, "type", type);
}

static void add_attempt(SdpMessage *m, const AttemptRecord *a)
{
        sdp_add_u64(m, "attempt", a->id);
        sdp_add(m, "kind", attempt_kind_name(a->kind));
        sdp_add(m, "sleep_state", sleep_state_name(a->sleep));
        sdp_add(m, "result", a->result);
        if (a->reason[0])
                sdp_add(m, "reason", a->reason);
        if (a->detail[0])
                sdp_add(m, "detail", a->detail);
        sdp_add_u64(m, "started", (uint64_t)a->started_ms);
        if (a->ended_ms)
                sdp_add_u64(m, "duration_ms", a->duration_ms);
        if (a->notify_start_us) {
                sdp_add_u64(m, "asked", a->asked);
                sdp_add_u64(m, "notify_us", a->notify_us);
        }
        if (a->wake[0]) {
                sdp_add_u64(m, "slept_ms", a->slept_ms);
                sdp_add(m, "wake", a->wake);
                sdp_add_bool(m, "dark", a->dark);
                sdp_add_u64(m, "resume_us", a->resume_us);
        }
}

static void item_daemon(Reply *r, Daemon *d)
{
        SdpMessage m;

        item_begin(&m, r->seq, "daemon");
        sdp_add(&m, "version", PACKAGE_VERSION);
        sdp_add(&m, "mode", mode_name(d->mode));
        sdp_add_u64(&m, "pid", (uint64_t)getpid());
        sdp_add_u64(&m, "started", (uint64_t)(d->started / 1000000));
        sdp_add(&m, "state", d->backoff_timer && !attempt_active(d) ? "backoff" : attempt_state_name(d->state));
        sdp_add_u64(&m, "backoff_ms", d->backoff_timer ? d->backoff_ms : 0);
        sdp_add_bool(&m, "dark_pending", d->dark_pending);
        if (d->dark_pending)
                sdp_add(&m, "dark_sleep_state", sleep_state_name(d->dark_sleep));
        sdp_add_u64(&m, "hibernate_at", d->hibernate_at > 0 ? (uint64_t)d->hibernate_at : 0);
        reply_item(r, &m);
}

static void item_kernel(Reply *r, Daemon *d)
{
        SdpMessage m;
        char missing[512], modes[64], holders[512] = "", clean[512], disk[32];
        HibernateFacts facts;
        const char *hibernate;

        item_begin(&m, r->seq, "kernel");
        sdp_add(&m, "root", sysfs_root(d->sysfs));
        sdp_add(&m, "states", d->features.states);
        sdp_add(&m, "mem_sleep", d->features.mem_sleep[0] ? d->features.mem_sleep : "absent");
        /* read now: suspendd itself changes it (cooperative, disabled) */
        if (!d->features.has_sleep_mode || sysfs_read_sleep_modes(d->sysfs, modes, sizeof modes) < 0)
                g_strlcpy(modes, d->features.has_sleep_mode ? d->features.sleep_modes : "absent", sizeof modes);
        sdp_add(&m, "sleep_mode", modes);
        sdp_add(&m, "sleepctl", d->features.has_sleepctl ? "present" : "absent");
        sdp_add_bool(&m, "cooperative", cooperate_active(d));
        if (d->features.has_sleepctl)
                sysfs_sleepctl_holders(d->sysfs, holders, sizeof holders);
        /* process names from the kernel: made valid text (PROTOCOL.md §3) */
        sdp_text_sanitize(clean, sizeof clean, holders);
        sdp_add(&m, "holders", clean);
        sdp_add(&m, "rtc", d->features.rtc[0] ? d->features.rtc : "absent");
        if (sysfs_read_disk_mode(d->sysfs, disk, sizeof disk) < 0)
                g_strlcpy(disk, "absent", sizeof disk);
        sdp_add(&m, "disk", disk);
        sysfs_hibernate_facts(d->sysfs, d->cfg.sleep_state, d->features.rtc[0] != '\0', &facts);
        hibernate = decide_sleep_unsupported(&facts, SLEEP_HIBERNATE, NULL);
        sdp_add(&m, "hibernate", hibernate ? hibernate : "supported");
        sysfs_describe_missing(&d->features, missing, sizeof missing);
        sdp_add(&m, "missing", missing);
        reply_item(r, &m);
}

/* One connection: its client item, and its watch, disable and registered fds if any. */
static void items_client(Reply *r, const Client *o)
{
        GHashTableIter it;
        gpointer v;
        SdpMessage m;

        item_begin(&m, r->seq, "client");
        sdp_add_u64(&m, "client", o->id);
        sdp_add_u64(&m, "pid", (uint64_t)o->pid);
        sdp_add_u64(&m, "uid", o->uid);
        sdp_add(&m, "comm", o->comm);
        if (o->name[0])
                sdp_add(&m, "name", o->name);
        sdp_add_u64(&m, "since", (uint64_t)(o->since / 1000000));
        if (o->delegations)   /* held ones are also `blocker` items, source=delegated */
                sdp_add_u64(&m, "delegated", g_hash_table_size(o->delegations));
        reply_item(r, &m);
        if (o->watching) {
                item_begin(&m, r->seq, "watcher");
                sdp_add_u64(&m, "client", o->id);
                sdp_add(&m, "name", o->watch_name);
                sdp_add_u64(&m, "pid", (uint64_t)o->pid);
                sdp_add_u64(&m, "uid", o->uid);
                sdp_add(&m, "comm", o->comm);
                sdp_add_u64(&m, "budget_ms", o->budget_ms);
                sdp_add_u64(&m, "late", o->late);
                reply_item(r, &m);
        }
        if (o->disabling) {
                item_begin(&m, r->seq, "disable");
                sdp_add_u64(&m, "client", o->id);
                sdp_add_u64(&m, "pid", (uint64_t)o->pid);
                sdp_add_u64(&m, "uid", o->uid);
                sdp_add(&m, "comm", o->comm);
                sdp_add(&m, "reason", o->disable_reason);
                sdp_add_u64(&m, "since", (uint64_t)(o->disable_since / 1000000));
                reply_item(r, &m);
        }
        if (o->fds)
                g_hash_table_iter_init(&it, o->fds);
        while (o->fds && g_hash_table_iter_next(&it, NULL, &v)) {
                RegisteredFd *reg = v;
                item_begin(&m, r->seq, "fd");
                sdp_add_u64(&m, "client", o->id);
                sdp_add_u64(&m, "id", reg->id);
                sdp_add(&m, "label", reg->label);
                sdp_add_bool(&m, "readable", reg->readable);
                reply_item(r, &m);
        }
}

static void item_blocker(Reply *r, const Blocker *b)
{
        SdpMessage m;

        item_begin(&m, r->seq, "blocker");
        sdp_add_u64(&m, "client", b->client);
        sdp_add_u64(&m, "id", b->id);
        sdp_add_u64(&m, "pid", (uint64_t)b->pid);
        sdp_add_u64(&m, "uid", b->uid);
        sdp_add(&m, "comm", b->comm);
        sdp_add(&m, "reason", b->reason);
        sdp_add_u64(&m, "since", (uint64_t)(b->since / 1000000));
        sdp_add(&m, "source", blocker_source_name(b->source));
        reply_item(r, &m);
}

/* The attempt in progress, if any, then the history, newest first. */
static void items_attempts(Reply *r, Daemon *d)
{
        SdpMessage m;

        if (attempt_active(d)) {
                item_begin(&m, r->seq, "attempt");
                add_attempt(&m, &d->current);
                sdp_add(&m, "state", attempt_state_name(d->state));
                reply_item(r, &m);
        }
        for (unsigned i = 0; i < d->n_history; i++) {
                item_begin(&m, r->seq, "attempt");
                add_attempt(&m, &d->history[i]);
                reply_item(r, &m);
        }
}

static void item_counters(Reply *r, Daemon *d)
{
        SdpMessage m;

        item_begin(&m, r->seq, "counters");
        sdp_add_u64(&m, "attempts", d->n_attempts);
        sdp_add_u64(&m, "suspends", d->n_suspends);
        sdp_add_u64(&m, "aborts", d->n_aborts);
        sdp_add_u64(&m, "dark_resumes", d->n_dark);
        sdp_add_u64(&m, "clients", g_hash_table_size(d->clients));
        sdp_add_u64(&m, "blockers", blocker_count(d));
        sdp_add_u64(&m, "late_watchers", d->n_late);
        sdp_add_u64(&m, "encode_failures", d->n_encode_failures);
        reply_item(r, &m);
}

void status_reply(Reply *r)
{
        Client *c = r->c;
        Daemon *d = c->d;
        GHashTableIter it;
        gpointer v;
        SdpMessage m;

        delegate_refresh(d);   /* which delegated blocks are held, as of now */
        item_daemon(r, d);
        item_kernel(r, d);
        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v))
                if (!((Client *)v)->closing)
                        items_client(r, v);
        if (d->disable_grace) {
                item_begin(&m, r->seq, "disable");
                sdp_add_u64(&m, "client", 0);
                sdp_add(&m, "reason", "kept from a previous daemon run until its holders reconnect");
                reply_item(r, &m);
        }
        g_hash_table_iter_init(&it, d->blockers);
        while (g_hash_table_iter_next(&it, NULL, &v))
                item_blocker(r, v);
        for (guint i = 0; i < d->alarms->len; i++) {
                Alarm *a = g_ptr_array_index(d->alarms, i);
                if (a->removed || !alarm_visible_to(a, c))
                        continue;
                item_begin(&m, r->seq, "alarm");
                alarm_add_item_fields(a, &m);
                reply_item(r, &m);
        }
        items_attempts(r, d);
        item_counters(r, d);
        sdp_message_init(&m, SDP_OK);
        sdp_add_u64(&m, "items", r->items);   /* reply_item() counts them */
        reply_ok(r, &m);
}
