/* SPDX-License-Identifier: GPL-2.0-or-later */
/* blocker.c — the block set: everything that keeps non-forced suspends from happening now.
 * Keyed by (source, connection, id) so a client's ids never collide with alarm holds. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon.h"

static char *key_of(BlockerSource src, unsigned client, uint32_t id)
{
        return g_strdup_printf("%d:%u:%u", (int)src, client, id);
}

const char *blocker_source_name(BlockerSource s)
{
        switch (s) {
        case BLOCKER_CLIENT: return "client";
        case BLOCKER_ALARM: return "alarm";
        case BLOCKER_FD: return "fd";
        case BLOCKER_LOGIND: return "logind";
        case BLOCKER_DELEGATED: return "delegated";
        }
        return "client";
}

bool blocker_exists(const Daemon *d, BlockerSource src, unsigned client, uint32_t id)
{
        g_autofree char *key = key_of(src, client, id);
        return g_hash_table_contains(d->blockers, key);
}

int blocker_add(Daemon *d, BlockerSource src, Client *c, uint32_t id, const char *reason,
                pid_t pid, uid_t uid, const char *comm)
{
        char *key = key_of(src, c ? c->id : 0, id);
        Blocker *b;
        SdpMessage ev;

        if (g_hash_table_contains(d->blockers, key)) {
                g_free(key);
                return -EEXIST;
        }
        b = g_new0(Blocker, 1);
        b->source = src;
        b->client = c ? c->id : 0;
        b->id = id;
        b->pid = pid;
        b->uid = uid;
        /* from clients (a 64-byte name into 31 bytes), logind or /proc: valid text, cut whole */
        sdp_text_sanitize(b->comm, sizeof b->comm, comm ? comm : "");
        sdp_text_sanitize(b->reason, sizeof b->reason, reason ? reason : "");
        b->since = g_get_real_time();
        g_hash_table_insert(d->blockers, key, b);
        if (c && src != BLOCKER_ALARM)
                g_hash_table_add(c->block_keys, g_strdup(key));
        if (c && src == BLOCKER_CLIENT)
                c->n_blocks++;
        if (src == BLOCKER_FD)
                d->n_fd_blockers++;
        cooperate_set_blocked(d, true);   /* at once: a direct writer must wait from now */

        sdp_message_init(&ev, SDP_BLOCKED);
        sdp_add_u64(&ev, "client", b->client);
        sdp_add_u64(&ev, "id", id);
        sdp_add(&ev, "reason", b->reason);
        sdp_add(&ev, "source", blocker_source_name(src));
        events_to_monitors(d, &ev);
        /* A blocker that appears during the attempt aborts it before COMMIT (attempt.c
         * re-checks); with the kernel's EPOLLWAKEUP it also aborts one already committing. */
        return 0;
}

int blocker_remove(Daemon *d, BlockerSource src, unsigned client, uint32_t id)
{
        g_autofree char *key = key_of(src, client, id);
        g_autofree char *stored_key = NULL;
        g_autofree Blocker *b = NULL;
        SdpMessage ev;

        /* stolen, not removed: the unblocked event still names the reason */
        if (!g_hash_table_steal_extended(d->blockers, key, (gpointer *)&stored_key, (gpointer *)&b))
                return -ENOENT;
        if (src != BLOCKER_ALARM) {
                Client *c = g_hash_table_lookup(d->clients, GUINT_TO_POINTER(client));
                if (c) {
                        g_hash_table_remove(c->block_keys, key);
                        if (src == BLOCKER_CLIENT && c->n_blocks > 0)
                                c->n_blocks--;
                }
        }
        if (src == BLOCKER_FD && d->n_fd_blockers > 0)
                d->n_fd_blockers--;
        cooperate_set_blocked(d, blocker_count(d) > 0);
        sdp_message_init(&ev, SDP_UNBLOCKED);
        sdp_add_u64(&ev, "client", client);
        sdp_add_u64(&ev, "id", id);
        sdp_add(&ev, "reason", b->reason);
        sdp_add(&ev, "source", blocker_source_name(src));
        events_to_monitors(d, &ev);
        d->unsettled = true;   /* a suspend may start now: attempt_settle() decides */
        return 0;
}

void blocker_remove_client(Daemon *d, Client *c)
{
        GHashTableIter it;
        gpointer k;
        GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);

        g_hash_table_iter_init(&it, c->block_keys);
        while (g_hash_table_iter_next(&it, &k, NULL))
                g_ptr_array_add(keys, g_strdup(k));
        for (guint i = 0; i < keys->len; i++) {
                int src;
                unsigned client, id;
                if (sscanf(g_ptr_array_index(keys, i), "%d:%u:%u", &src, &client, &id) == 3)
                        blocker_remove(d, (BlockerSource)src, client, id);
        }
        g_hash_table_remove_all(c->block_keys);
        g_ptr_array_unref(keys);
}

size_t blocker_count(const Daemon *d)
{
        return g_hash_table_size(d->blockers);
}

/* blockers= and the refusal texts: "WHO (pid P, uid U): REASON; ...; and N more" */
char *blocker_describe_all(const Daemon *d, size_t budget)
{
        TextList l;
        GHashTableIter it;
        gpointer v;

        text_list_init(&l, LIST_MAX_ENTRIES, budget);
        g_hash_table_iter_init(&it, (GHashTable *)d->blockers);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Blocker *b = v;
                g_autofree char *e = g_strdup_printf("%s (pid %d, uid %u)%s%s",
                                                     b->comm[0] ? b->comm : blocker_source_name(b->source),
                                                     (int)b->pid, (unsigned)b->uid, b->reason[0] ? ": " : "",
                                                     b->reason);
                text_list_add(&l, e);
        }
        return text_list_end(&l);
}
