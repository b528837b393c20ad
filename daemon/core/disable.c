/* SPDX-License-Identifier: GPL-2.0-or-later */
/* disable.c — the firmware hammer (PROTOCOL.md §6.9, §10).
 *
 * While any connection holds a disable nothing suspends, user requests included. On a patched
 * kernel we also write sleep_mode=disabled so that direct writes to /sys/power/state fail with
 * EAGAIN. The disabled state is persisted: if the daemon dies while disabled, the kernel stays
 * disabled (nobody restores it), and the restarted daemon keeps suspend disabled for
 * DisableGraceSec so the holders can reconnect and take it again; only then does it lapse. */
#include <errno.h>
#include <string.h>

#include "daemon.h"

static void emit(Daemon *d)
{
        SdpMessage ev;
        sdp_message_init(&ev, SDP_DISABLE_CHANGED);
        sdp_add_bool(&ev, "disabled", disable_active(d));
        sdp_add_u64(&ev, "holders", d->disable_holders);
        events_to_monitors(d, &ev);
}

/* Make the kernel agree with disable_active(). */
static void sync_kernel(Daemon *d)
{
        int r;
        if (!d->features.has_sleep_mode)
                return;
        if (disable_active(d) && !d->kernel_disabled) {
                char cur[16] = "";
                if (sysfs_read_sleep_mode(d->sysfs, cur, sizeof cur) == 0 && strcmp(cur, "disabled") != 0)
                        g_strlcpy(d->saved_sleep_mode, cur, sizeof d->saved_sleep_mode);
                r = sysfs_write_sleep_mode(d->sysfs, "disabled");
                if (r < 0)
                        log_err("cannot write sleep_mode=disabled: %s", g_strerror(-r));
                else
                        d->kernel_disabled = true;
        } else if (!disable_active(d) && d->kernel_disabled) {
                const char *mode = d->saved_sleep_mode[0] ? d->saved_sleep_mode : "direct";
                r = sysfs_write_sleep_mode(d->sysfs, mode);
                if (r < 0)
                        log_err("cannot restore sleep_mode=%s: %s", mode, g_strerror(-r));
                else
                        d->kernel_disabled = false;
        }
}

/* The decision (an attempt in NOTIFY aborts, one may start) is attempt_settle()'s: request.c
 * calls it before its reply, the loop after the grace period or a connection's end. */
static void changed(Daemon *d)
{
        sync_kernel(d);
        state_save(d);
        emit(d);
        d->unsettled = true;
}

int disable_take(Daemon *d, Client *c, const char *reason)
{
        if (c->disabling)
                return -EEXIST;
        c->disabling = true;
        g_strlcpy(c->disable_reason, reason ? reason : "", sizeof c->disable_reason);
        c->disable_since = g_get_real_time();
        d->disable_holders++;
        log_info("suspend disabled by %s (pid %d, uid %u): %s", c->comm, (int)c->pid, (unsigned)c->uid,
                 c->disable_reason);
        changed(d);
        return 0;
}

int disable_drop(Daemon *d, Client *c)
{
        if (!c->disabling)
                return -ENOENT;
        c->disabling = false;
        d->disable_holders--;
        log_info("%s (pid %d) dropped its disable; %u holder(s) left", c->comm, (int)c->pid, d->disable_holders);
        changed(d);
        return 0;
}

/* holders=: "COMM (pid P, uid U): REASON; ...; and N more" (PROTOCOL.md §5) */
char *disable_describe(const Daemon *d, size_t budget)
{
        TextList l;
        GHashTableIter it;
        gpointer v;

        text_list_init(&l, LIST_MAX_ENTRIES, budget);
        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Client *c = v;
                if (c->disabling) {
                        g_autofree char *e = g_strdup_printf("%s (pid %d, uid %u)%s%s", c->comm, (int)c->pid,
                                                             (unsigned)c->uid, c->disable_reason[0] ? ": " : "",
                                                             c->disable_reason);
                        text_list_add(&l, e);
                }
        }
        if (d->disable_grace)
                text_list_add(&l, "holders of a previous daemon run (reconnect grace period)");
        return text_list_end(&l);
}

static gboolean grace_over(gpointer data)
{
        Daemon *d = data;
        d->disable_grace_timer = 0;
        d->disable_grace = false;
        log_info("disable grace period over; %u holder(s) re-took the disable", d->disable_holders);
        changed(d);
        return G_SOURCE_REMOVE;
}

void disable_init(Daemon *d)
{
        d->kernel_disabled = false;
        if (d->features.has_sleep_mode) {
                char cur[16] = "";
                if (sysfs_read_sleep_mode(d->sysfs, cur, sizeof cur) == 0 && strcmp(cur, "disabled") == 0)
                        d->kernel_disabled = true;
        }
        if (d->disable_grace) {
                log_warn("the previous daemon run ended while suspend was disabled; keeping it disabled for %u s",
                         d->cfg.disable_grace_s);
                sync_kernel(d);
                d->disable_grace_timer = g_timeout_add_seconds(d->cfg.disable_grace_s ? d->cfg.disable_grace_s : 1,
                                                               grace_over, d);
        } else if (d->kernel_disabled) {
                /* disabled by someone else than us: respect it, but it is not ours to restore */
                log_warn("the kernel's sleep_mode is 'disabled' and suspendd did not set it");
                d->kernel_disabled = false;
        }
}
