/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events.c — who hears about what (PROTOCOL.md §7). */
#include "daemon.h"

/* The one way out of the core to a connection (loop.c installs the transport's client_send). */
void events_to(Daemon *d, Client *c, const SdpMessage *m)
{
        d->send_event(c, m);
}

/* Encode m once for a fan-out. False if it cannot be: the caller sends m with events_to(), whose
 * transport logs it, sends its fallback form and tells the monitors. */
bool events_encode(EncodedEvent *e, const SdpMessage *m)
{
        SdpProblem p;
        e->type = m->type;
        e->n = sdp_encode(m, e->buf, sizeof e->buf, &p);
        return e->n >= 0;
}

void events_to_encoded(Daemon *d, Client *c, const EncodedEvent *e)
{
        d->send_encoded(c, e);
}

void events_to_monitors(Daemon *d, const SdpMessage *m)
{
        GHashTableIter it;
        gpointer v;
        /* the set of monitors, not all clients: block/unblock must not cost O(clients) */
        g_hash_table_iter_init(&it, d->monitors);
        while (g_hash_table_iter_next(&it, &v, NULL)) {
                Client *c = v;
                if (c->monitoring && !c->closing)
                        events_to(d, c, m);
        }
}

/* resumed/aborted: watchers, whoever asked for this attempt, monitors. Encoded once: with
 * 1000 watchers this is the resume latency a desktop user feels. */
void events_attempt(Daemon *d, const SdpMessage *m, bool to_requesters)
{
        GHashTableIter it;
        gpointer v;
        g_autofree EncodedEvent *e = g_new(EncodedEvent, 1);
        bool encoded = events_encode(e, m);

        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Client *c = v;
                if (c->closing)
                        continue;
                if (c->watching || c->monitoring || c->asked == d->current.id ||
                    (to_requesters && c->requested == d->current.id)) {
                        if (encoded)
                                events_to_encoded(d, c, e);
                        else
                                events_to(d, c, m);
                }
                if (c->requested == d->current.id)
                        c->requested = 0;
        }
}

void events_to_uid(Daemon *d, uid_t uid, const SdpMessage *m)
{
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Client *c = v;
                if (!c->closing && c->hello && (c->uid == uid || c->monitoring))
                        events_to(d, c, m);
        }
}
