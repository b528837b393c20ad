/* SPDX-License-Identifier: GPL-2.0-or-later */
/* request.c — one decoded request: check the policy (PROTOCOL.md §8), act, reply.
 * Every refusal is an `error` with a stable code and a log line (client_reply_error). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "job.h"

static bool allowed(Reply *r, PolicyRule rule)
{
        Client *c = r->c;
        const SuspenddConfig *cfg = &c->d->cfg;
        if (policy_allows(cfg, rule, c->uid, c->gid, c->groups, c->n_groups))
                return true;
        reply_error(r, SDP_E_PERMISSION_DENIED, NULL, "rule", policy_rule_name(rule),
                    "policy rule '%s' does not allow uid %u (allowed: %s)",
                    policy_rule_name(rule), (unsigned)c->uid,
                    cfg->rules[rule].text[0] ? cfg->rules[rule].text : "root only");
        return false;
}

static void handle_hello(Reply *r, const SdpMessage *m)
{
        Client *c = r->c;
        uint64_t v = sdp_get_u64_or(m, "version", 1);
        unsigned version = v < SDP_VERSION ? (unsigned)v : SDP_VERSION;
        const char *name = sdp_get(m, "name");
        SdpMessage ok;

        if (c->hello && v != c->hello_version) {
                reply_error(r, SDP_E_BAD_VERSION, "version", NULL, NULL,
                            "this connection said hello version=%llu and speaks version %u",
                            (unsigned long long)c->hello_version, c->version);
                return;
        }
        c->hello = true;
        c->hello_version = v;
        c->version = version;
        if (name)
                g_strlcpy(c->name, name, sizeof c->name);
        sdp_message_init(&ok, SDP_OK);
        sdp_add_u64(&ok, "version", version);
        sdp_add(&ok, "server", "suspendd " PACKAGE_VERSION);
        sdp_add_u64(&ok, "client", c->id);
        sdp_add_u64(&ok, "uid", c->uid);
        sdp_add_u64(&ok, "pid", (uint64_t)c->pid);
        sdp_add(&ok, "mode", mode_name(c->d->mode));
        reply_ok(r, &ok);
}

static unsigned blocks_of(const Client *c)
{
        return c->n_blocks + (c->delegations ? g_hash_table_size(c->delegations) : 0);
}

/* PROTOCOL.md §6.3, delegated form: the block's eventfd goes back with the `ok`. */
static void handle_delegate(Reply *r, const SdpMessage *m, uint32_t id)
{
        Client *c = r->c;
        Daemon *d = c->d;
        SdpMessage ok;
        int fd, rc;

        if (sdp_get_bool(m, "noreply", false)) {
                reply_error(r, SDP_E_CONFLICTING_FIELDS, "noreply", NULL, NULL,
                            "delegate=1 needs its reply: the descriptor comes with it");
                return;
        }
        if (!d->can_hold_wakeups || d->delegate_epfd < 0) {
                reply_error(r, SDP_E_UNSUPPORTED, "delegate", NULL, NULL,
                            "delegated blocks need EPOLLWAKEUP, which the daemon cannot use here "
                            "(no CAP_BLOCK_SUSPEND): use a plain block");
                return;
        }
        rc = delegate_open(d, c, id, sdp_get(m, "reason"), &fd);
        if (rc < 0) {
                reply_error(r, SDP_E_INTERNAL, NULL, NULL, NULL, "cannot delegate block %u: %s", id,
                            g_strerror(-rc));
                return;
        }
        sdp_message_init(&ok, SDP_OK);
        sdp_add_bool(&ok, "delegated", true);
        reply_ok_fd(r, &ok, fd);
}

/* PROTOCOL.md §6.16: the daemon's liveness page, read-only, with the `ok`. */
static void handle_liveness(Reply *r)
{
        SdpMessage ok;
        int fd = liveness_fd(r->c->d);

        if (fd < 0) {
                reply_error(r, SDP_E_INTERNAL, NULL, NULL, NULL, "cannot make the liveness page: %s",
                            g_strerror(-fd));
                return;
        }
        sdp_message_init(&ok, SDP_OK);
        reply_ok_fd(r, &ok, fd);
}

static void handle_block(Reply *r, const SdpMessage *m, bool block)
{
        Client *c = r->c;
        Daemon *d = c->d;
        uint32_t id = (uint32_t)sdp_get_u64_or(m, "id", 0);
        bool noreply = sdp_get_bool(m, "noreply", false);
        int rc;

        if (!allowed(r, POLICY_BLOCK))
                return;
        if (block) {
                if (blocks_of(c) >= d->cfg.max_blocks_per_client) {
                        reply_error(r, SDP_E_LIMIT_EXCEEDED, NULL, "limit", "blocks-per-client",
                                    "at most %u blocks per connection", d->cfg.max_blocks_per_client);
                        return;
                }
                /* one id space for plain and delegated blocks: unblock needs no kind */
                if (delegate_exists(c, id) || blocker_exists(d, BLOCKER_CLIENT, c->id, id)) {
                        reply_error(r, SDP_E_EXISTS, "id", NULL, NULL, "block %u already exists", id);
                        return;
                }
                if (sdp_get_bool(m, "delegate", false)) {
                        handle_delegate(r, m, id);
                        return;
                }
                blocker_add(d, BLOCKER_CLIENT, c, id, sdp_get(m, "reason"), c->pid, c->uid,
                            c->name[0] ? c->name : c->comm);
                /* a blocker during NOTIFY aborts the attempt at COMMIT; nothing to do now */
        } else {
                rc = delegate_close(d, c, id);
                if (rc == -ENOENT)
                        rc = blocker_remove(d, BLOCKER_CLIENT, c->id, id);
                if (rc == -ENOENT) {
                        reply_error(r, SDP_E_NOT_FOUND, "id", NULL, NULL, "no block %u", id);
                        return;
                }
                attempt_settle(d);   /* decided before the reply: a suspend may start now */
        }
        r->quiet_ok = noreply;
        reply_ok(r, NULL);
}

static void handle_watch(Reply *r, const SdpMessage *m, bool watch)
{
        Client *c = r->c;
        Daemon *d = c->d;
        SdpMessage ok;

        if (!allowed(r, POLICY_WATCH))
                return;
        if (!watch) {
                if (!c->watching) {
                        reply_error(r, SDP_E_NOT_FOUND, NULL, NULL, NULL, "not watching");
                        return;
                }
                c->watching = false;
                attempt_client_gone(d, c);   /* an unanswered question counts as answered */
                reply_ok(r, NULL);
                return;
        }
        if (c->watching) {
                reply_error(r, SDP_E_BUSY, NULL, NULL, NULL, "already watching");
                return;
        }
        c->watching = true;
        g_strlcpy(c->watch_name, sdp_get(m, "name") ? sdp_get(m, "name") : c->comm, sizeof c->watch_name);
        c->budget_ms = (unsigned)sdp_get_u64_or(m, "budget_ms", d->cfg.watcher_budget_default_ms);
        if (c->budget_ms > d->cfg.watcher_budget_max_ms)
                c->budget_ms = d->cfg.watcher_budget_max_ms;
        sdp_message_init(&ok, SDP_OK);
        sdp_add_u64(&ok, "budget_ms", c->budget_ms);
        reply_ok(r, &ok);
}

static void handle_answer(Reply *r, const SdpMessage *m, bool ready)
{
        Client *c = r->c;
        Daemon *d = c->d;
        uint64_t attempt = sdp_get_u64_or(m, "attempt", 0);

        r->quiet_ok = sdp_get_bool(m, "noreply", false);   /* §6.5: success is silent, errors are not */
        attempt_fd_owner_answered(d, c);
        if (!attempt_active(d) || d->state != ATTEMPT_NOTIFY || c->asked != attempt ||
            attempt != d->current.id || c->answered == attempt) {
                reply_error(r, SDP_E_WRONG_ATTEMPT, "attempt", NULL, NULL,
                            "attempt %llu is not asking this connection",
                            (unsigned long long)attempt);
                return;
        }
        reply_ok(r, NULL);
        attempt_answer(d, c, ready, sdp_get(m, "reason"));
}

static void handle_fd_add(Reply *r, const SdpMessage *m, int *fds, size_t n_fds)
{
        Client *c = r->c;
        Daemon *d = c->d;
        uint32_t id = (uint32_t)sdp_get_u64_or(m, "id", 0);
        RegisteredFd *reg;
        struct stat st;
        struct pollfd pfd;

        if (!allowed(r, POLICY_WATCH))
                goto close_all;
        if (n_fds != 1) {
                reply_error(r, SDP_E_BAD_FD, NULL, NULL, NULL,
                            "fd-add carries exactly one descriptor, got %zu", n_fds);
                goto close_all;
        }
        /* pollable: not a directory, and poll() accepts it */
        pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
        if (fstat(fds[0], &st) < 0 || S_ISDIR(st.st_mode) || poll(&pfd, 1, 0) < 0 ||
            (pfd.revents & POLLNVAL)) {
                reply_error(r, SDP_E_BAD_FD, NULL, NULL, NULL, "descriptor cannot be polled");
                goto close_all;
        }
        if (!c->fds)   /* most connections never register one: NOTIFY skips them (daemon.h) */
                c->fds = g_hash_table_new(g_direct_hash, g_direct_equal);
        if (g_hash_table_contains(c->fds, GUINT_TO_POINTER(id))) {
                reply_error(r, SDP_E_EXISTS, "id", NULL, NULL, "fd %u already registered", id);
                goto close_all;
        }
        if (g_hash_table_size(c->fds) >= d->cfg.max_fds_per_client) {
                reply_error(r, SDP_E_LIMIT_EXCEEDED, NULL, "limit", "fds-per-client",
                            "at most %u fds per connection", d->cfg.max_fds_per_client);
                goto close_all;
        }
        reg = g_new0(RegisteredFd, 1);
        reg->id = id;
        reg->fd = fds[0];
        g_strlcpy(reg->label, sdp_get(m, "label") ? sdp_get(m, "label") : "fd", sizeof reg->label);
        g_hash_table_insert(c->fds, GUINT_TO_POINTER(id), reg);
        reply_ok(r, NULL);
        return;
close_all:
        for (size_t i = 0; i < n_fds; i++)
                close(fds[i]);
}

static void handle_fd_remove(Reply *r, const SdpMessage *m)
{
        Client *c = r->c;
        uint32_t id = (uint32_t)sdp_get_u64_or(m, "id", 0);
        RegisteredFd *reg = c->fds ? g_hash_table_lookup(c->fds, GUINT_TO_POINTER(id)) : NULL;
        if (!allowed(r, POLICY_WATCH))
                return;
        if (!reg) {
                reply_error(r, SDP_E_NOT_FOUND, "id", NULL, NULL, "no fd %u", id);
                return;
        }
        g_hash_table_remove(c->fds, GUINT_TO_POINTER(id));
        close(reg->fd);
        g_free(reg);
        reply_ok(r, NULL);
        attempt_fd_owner_answered(c->d, c);
        attempt_settle(c->d);
}

/* systemd-suspend.service's `suspendctl suspend --user` while logind's sleep is an attempt we
 * handed to it (handoff.c): it continues that attempt — joining it as it is, not forcing it — or,
 * if that attempt has ended, hears its outcome; it never starts a second suspend. */
static bool continue_handed(Reply *r)
{
        Client *c = r->c;
        Daemon *d = c->d;
        g_autofree SdpMessage *outcome = NULL;
        uint64_t attempt = handoff_take_continuation(d, &outcome);
        SdpMessage ok;

        if (attempt == 0 || (!outcome && !(attempt_active(d) && d->current.id == attempt)))
                return false;
        if (!outcome)
                c->requested = attempt;
        sdp_message_init(&ok, SDP_OK);
        sdp_add_u64(&ok, "attempt", attempt);
        reply_ok(r, &ok);
        if (outcome)
                client_send(c, outcome);
        else
                attempt_logind_continues(d);
        return true;
}

/* §6.7: whether the kernel and the system can do `sleep` now; else `unsupported` naming why. */
static bool sleep_supported(Reply *r, SleepState sleep)
{
        Daemon *d = r->c->d;
        HibernateFacts facts;
        const char *why = NULL, *reason;

        if (sleep == SLEEP_SUSPEND)
                return true;
        sysfs_hibernate_facts(d->sysfs, d->cfg.sleep_state, d->features.rtc[0] != '\0', &facts);
        reason = decide_sleep_unsupported(&facts, sleep, &why);
        if (!reason)
                return true;
        reply_error(r, SDP_E_UNSUPPORTED, "state", "reason", reason, "%s is not possible (%s): %s",
                    sleep_state_name(sleep), reason, why);
        return false;
}

/* §6.7: an attempt in progress is joined only by a request for the same sleep state. */
static bool joinable(Reply *r, SleepState sleep)
{
        Daemon *d = r->c->d;
        char id[24];

        if (!attempt_active(d) || d->current.sleep == sleep)
                return true;
        snprintf(id, sizeof id, "%llu", (unsigned long long)d->current.id);
        reply_error(r, SDP_E_BUSY, "state", "attempt", id,
                    "attempt %llu (%s) is in progress: a %s request cannot join it",
                    (unsigned long long)d->current.id, sleep_state_name(d->current.sleep),
                    sleep_state_name(sleep));
        return false;
}

static void handle_suspend(Reply *r, const SdpMessage *m)
{
        Client *c = r->c;
        Daemon *d = c->d;
        const char *kind = sdp_get(m, "kind");
        bool user = kind && strcmp(kind, "user") == 0;
        SleepState sleep = SLEEP_SUSPEND;
        SdpMessage ok;
        uint64_t attempt;
        Alarm *next;

        if (sdp_get(m, "state"))
                sleep_state_from_name(sdp_get(m, "state"), &sleep);   /* the codec checked the word */
        if (!allowed(r, user ? POLICY_FORCE : POLICY_REQUEST))
                return;
        /* §6.7: stopping, disabled, unsupported, another state in progress, then (immediate
         * mode, or an attempt to join) blocked, then alarm-due */
        if (d->shutting_down) {
                reply_error(r, SDP_E_BUSY, NULL, NULL, NULL,
                            "the daemon is stopping: it starts no attempt and joins none");
                return;
        }
        if (disable_active(d)) {
                g_autofree char *who = disable_describe(d, REPLY_TEXT_MAX);
                reply_error(r, SDP_E_DISABLED, NULL, "holders", who, "suspend is disabled by %s", who);
                return;
        }
        if (!sleep_supported(r, sleep))
                return;
        /* logind's continuation comes through systemd-suspend.service whatever the handed
         * attempt's state (handoff.c calls Manager.Suspend: PrepareForSleep is the same for every
         * sleep), so it may join an attempt of another state (PROTOCOL.md §10.2) */
        if (user && sleep == SLEEP_SUSPEND && continue_handed(r))
                return;
        if (!joinable(r, sleep))
                return;
        /* immediate mode suspends by itself; hibernation it does only when asked */
        if (!user && d->mode == MODE_IMMEDIATE && sleep == SLEEP_SUSPEND) {
                sdp_message_init(&ok, SDP_OK);
                sdp_add_u64(&ok, "attempt", 0);
                sdp_add(&ok, "noop", "1");
                sdp_add(&ok, "message", "immediate mode: the daemon suspends whenever nothing blocks");
                reply_ok(r, &ok);
                return;
        }
        if (!user && !attempt_active(d)) {
                attempt_refresh_fd_blockers(d);
                delegate_refresh(d);
                if (blocker_count(d) > 0) {
                        g_autofree char *who = blocker_describe_all(d, REPLY_TEXT_MAX);
                        reply_error(r, SDP_E_BLOCKED, NULL, "blockers", who,
                                    "suspend is blocked by %u blocker%s: %s", (unsigned)blocker_count(d),
                                    blocker_count(d) == 1 ? "" : "s", who);
                        return;
                }
                next = alarm_earliest(d);
                if (next && next->next <= time(NULL) + (time_t)d->cfg.alarm_guard_s) {
                        reply_error(r, SDP_E_ALARM_DUE, NULL, "alarm", next->name,
                                    "alarm %s is due in %lld s", next->name,
                                    (long long)(next->next - time(NULL)));
                        return;
                }
        }
        attempt = attempt_request(d, user ? ATTEMPT_KIND_USER : ATTEMPT_KIND_APPLICATION, sleep);
        if (attempt == 0) {
                /* the checks above passed a moment ago: only an alarm that came due since */
                next = alarm_earliest(d);
                if (next && next->next <= time(NULL) + (time_t)d->cfg.alarm_guard_s)
                        reply_error(r, SDP_E_ALARM_DUE, NULL, "alarm", next->name, "alarm %s is due", next->name);
                else
                        reply_error(r, SDP_E_INTERNAL, NULL, NULL, NULL, "no attempt could start (logged)");
                return;
        }
        c->requested = attempt;
        sdp_message_init(&ok, SDP_OK);
        sdp_add_u64(&ok, "attempt", attempt);
        reply_ok(r, &ok);
}

static void handle_mode(Reply *r, const SdpMessage *m, bool set)
{
        Client *c = r->c;
        Daemon *d = c->d;
        SdpMessage ok, ev;

        if (set) {
                Mode mode = strcmp(sdp_get(m, "mode"), "immediate") == 0 ? MODE_IMMEDIATE : MODE_ON_DEMAND;
                if (!allowed(r, POLICY_MODE))
                        return;
                if (mode != d->mode) {
                        d->mode = mode;
                        state_save(d);
                        log_info("mode set to %s by uid %u", mode_name(mode), (unsigned)c->uid);
                        sdp_message_init(&ev, SDP_MODE_CHANGED);
                        sdp_add(&ev, "mode", mode_name(mode));
                        events_to_monitors(d, &ev);
                }
        }
        sdp_message_init(&ok, SDP_OK);
        sdp_add(&ok, "mode", mode_name(d->mode));
        reply_ok(r, &ok);
        if (set)
                attempt_settle(d);
}

static void handle_disable(Reply *r, const SdpMessage *m, bool disable)
{
        Client *c = r->c;
        Daemon *d = c->d;
        SdpMessage ok;
        int rc;

        if (!allowed(r, POLICY_DISABLE))
                return;
        rc = disable ? disable_take(d, c, sdp_get(m, "reason")) : disable_drop(d, c);
        if (rc == -ENOENT) {
                reply_error(r, SDP_E_NOT_FOUND, NULL, NULL, NULL, "this connection holds no disable");
                return;
        }
        if (rc == -EEXIST) {
                reply_error(r, SDP_E_EXISTS, NULL, NULL, NULL, "this connection already holds a disable");
                return;
        }
        attempt_settle(d);   /* before the reply: an attempt in NOTIFY aborts, or one may start */
        sdp_message_init(&ok, SDP_OK);
        sdp_add_u64(&ok, "holders", d->disable_holders);
        sdp_add(&ok, "kernel", d->kernel_disabled ? "disabled" : !d->features.has_sleep_mode ? "absent"
                               : cooperate_active(d) ? "cooperative" : "direct");
        reply_ok(r, &ok);
}

static void handle_alarm_add(Reply *r, const SdpMessage *m)
{
        Client *c = r->c;
        SdpMessage ok;
        SdpError code;
        char err[256];
        Alarm *a;

        if (!allowed(r, POLICY_ALARM))
                return;
        if (sdp_get(m, "command")) {
                /* a command is a job run with the owner's whole account: a rule of its own */
                if (!allowed(r, POLICY_ALARM_COMMAND))
                        return;
                if (jobs_runner(c->d) == JOB_RUNNER_NONE) {
                        reply_error(r, SDP_E_UNSUPPORTED, "command", NULL, NULL,
                                    "alarm commands are switched off on this machine (RunCommands=%s)",
                                    strcmp(c->d->cfg.run_commands, "none") == 0 ? "none"
                                    : "auto, and no system bus to reach systemd");
                        return;
                }
        }
        if (alarm_add(c->d, c, m, &a, &code, err, sizeof err) < 0) {
                const char *field = code == SDP_E_BAD_FIELD ? (sdp_get(m, "cron") ? "cron" : sdp_get(m, "at") ? "at" : NULL)
                                  : code == SDP_E_EXISTS ? "name" : NULL;
                const char *limit = code == SDP_E_LIMIT_EXCEEDED ? (strstr(err, "per user") ? "alarms-per-user" : "alarms") : NULL;
                reply_error(r, code, field, limit ? "limit" : NULL, limit, "%s", err);
                return;
        }
        sdp_message_init(&ok, SDP_OK);
        sdp_add_u64(&ok, "alarm", a->id);
        sdp_add_u64(&ok, "next", (uint64_t)a->next);
        reply_ok(r, &ok);
}

static void handle_alarm_list(Reply *r)
{
        Client *c = r->c;
        Daemon *d = c->d;
        unsigned n = 0;
        SdpMessage m;
        for (guint i = 0; i < d->alarms->len; i++) {
                Alarm *a = g_ptr_array_index(d->alarms, i);
                if (a->removed || !alarm_visible_to(a, c))
                        continue;
                sdp_message_init(&m, SDP_ITEM);
                sdp_add_u64(&m, "seq", r->seq);
                sdp_add(&m, "type", "alarm");
                alarm_add_item_fields(a, &m);
                reply_item(r, &m);
                n++;
        }
        sdp_message_init(&m, SDP_OK);
        sdp_add_u64(&m, "items", n);
        reply_ok(r, &m);
}

static void dispatch(Reply *r, const SdpMessage *m, int *fds, size_t n_fds)
{
        Client *c = r->c;

        /* §4: descriptors on another request, then no-hello (size and decoding came first) */
        if (n_fds > 0 && m->type != SDP_FD_ADD) {
                for (size_t i = 0; i < n_fds; i++)
                        close(fds[i]);
                reply_error(r, SDP_E_BAD_FD, NULL, NULL, NULL, "descriptors are only accepted with fd-add");
                return;
        }
        if (!c->hello && m->type != SDP_HELLO) {
                for (size_t i = 0; i < n_fds; i++)
                        close(fds[i]);
                reply_error(r, SDP_E_NO_HELLO, NULL, NULL, NULL,
                            "the first request must be hello version=%u", SDP_VERSION);
                return;
        }
        switch (m->type) {
        case SDP_HELLO: handle_hello(r, m); break;
        case SDP_PING: reply_ok(r, NULL); break;
        case SDP_BLOCK: handle_block(r, m, true); break;
        case SDP_UNBLOCK: handle_block(r, m, false); break;
        case SDP_WATCH: handle_watch(r, m, true); break;
        case SDP_UNWATCH: handle_watch(r, m, false); break;
        case SDP_READY: handle_answer(r, m, true); break;
        case SDP_VETO: handle_answer(r, m, false); break;
        case SDP_FD_ADD: handle_fd_add(r, m, fds, n_fds); break;
        case SDP_FD_REMOVE: handle_fd_remove(r, m); break;
        case SDP_SUSPEND: handle_suspend(r, m); break;
        case SDP_MODE_GET: handle_mode(r, m, false); break;
        case SDP_MODE_SET: handle_mode(r, m, true); break;
        case SDP_DISABLE: handle_disable(r, m, true); break;
        case SDP_ENABLE: handle_disable(r, m, false); break;
        case SDP_ALARM_ADD: handle_alarm_add(r, m); break;
        case SDP_ALARM_LIST: handle_alarm_list(r); break;
        case SDP_ALARM_CANCEL:
                if (!allowed(r, POLICY_ALARM))
                        break;
                if (alarm_cancel(c->d, c, (uint32_t)sdp_get_u64_or(m, "id", 0), sdp_get(m, "name")) < 0) {
                        reply_error(r, SDP_E_NOT_FOUND, sdp_get(m, "name") ? "name" : "id", NULL, NULL,
                                    "no such alarm of yours");
                } else {
                        attempt_settle(c->d);   /* its hold may have been the last block */
                        reply_ok(r, NULL);
                }
                break;
        case SDP_ALARM_RELEASE:
                if (!allowed(r, POLICY_ALARM))
                        break;
                if (alarm_release(c->d, c, (uint32_t)sdp_get_u64_or(m, "alarm", 0)) < 0) {
                        reply_error(r, SDP_E_NOT_FOUND, "alarm", NULL, NULL, "that alarm holds nothing for you");
                } else {
                        attempt_settle(c->d);   /* its hold may have been the last block */
                        reply_ok(r, NULL);
                }
                break;
        case SDP_STATUS: status_reply(r); break;
        case SDP_LIVENESS: handle_liveness(r); break;
        case SDP_MONITOR:
                c->monitoring = true;
                g_hash_table_add(c->d->monitors, c);
                reply_ok(r, NULL);
                break;
        default:
                reply_error(r, SDP_E_UNKNOWN_REQUEST, NULL, NULL, NULL, "not a request");
        }
}

/* A connection that closed (server_reap): everything it held dies with it (PROTOCOL.md §1), and
 * what that changes is decided at once. */
void request_client_gone(Client *c)
{
        Daemon *d = c->d;

        delegate_client_gone(d, c);
        blocker_remove_client(d, c);
        if (c->disabling)
                disable_drop(d, c);
        attempt_client_gone(d, c);
        attempt_settle(d);
}

/* Every decoded request: exactly one final reply, whatever path the handler takes. */
void request_handle(Client *c, const SdpMessage *m, int *fds, size_t n_fds)
{
        Reply r = reply_begin(c, sdp_get_u64_or(m, "seq", 0));

        dispatch(&r, m, fds, n_fds);
        reply_finish(&r);
}
