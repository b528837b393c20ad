/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the daemon's send path (daemon/api/client.c): one final reply per request, the
 * fallback form of a message that cannot be encoded, event-lost to monitors, bounded lists
 * (PROTOCOL.md §2, §5, §7). Connections are socketpairs; nothing else of the daemon runs. */
#include <check.h>
#include "check-tap.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"

static Daemon *d;

static Client *connect_client(int *peer)
{
        int sv[2];
        Client *c;
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        c = client_new(d, sv[0]);
        g_hash_table_insert(d->clients, GUINT_TO_POINTER(c->id), c);
        *peer = sv[1];
        return c;
}

/* The next datagram for this peer, or NULL if there is none (everything is sent at once). */
static const char *next(int peer)
{
        static char buf[2 * SDP_MAX_MESSAGE];
        ssize_t n = recv(peer, buf, sizeof buf - 1, MSG_DONTWAIT);
        if (n < 0)
                return NULL;
        buf[n] = '\0';
        return buf;
}

static void setup(void)
{
        log_init(false);
        d = daemon_new("/nonexistent", "/nonexistent/socket");
}

static void teardown(void)
{
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v))
                client_free(v);
        daemon_free(d);
}

START_TEST(test_event_fallback_and_event_lost)
{
        int rp, mp;
        Client *r = connect_client(&rp), *m = connect_client(&mp);
        SdpMessage ev;
        char want[128];

        m->monitoring = true;
        g_hash_table_add(d->monitors, m);
        sdp_message_init(&ev, SDP_ABORTED);
        sdp_add_u64(&ev, "attempt", 5);
        sdp_add(&ev, "reason", "vetoed");
        sdp_add(&ev, "detail", "cut inside \xd0");   /* a character split by a byte-wise cut */
        client_send(r, &ev);
        ck_assert_str_eq(next(rp), "aborted attempt=5 reason=vetoed");
        ck_assert_ptr_null(next(rp));
        snprintf(want, sizeof want, "event-lost event=aborted client=%u delivered=1 total=1", r->id);
        ck_assert_str_eq(next(mp), want);
        ck_assert(d->n_encode_failures == 1);
}
END_TEST

START_TEST(test_reply_that_cannot_be_encoded_is_internal)
{
        int rp;
        Client *r = connect_client(&rp);
        Reply rep = reply_begin(r, 7);
        SdpMessage ok;
        const char *got;

        sdp_message_init(&ok, SDP_OK);
        sdp_add(&ok, "x", "\xff");
        reply_ok(&rep, &ok);
        reply_finish(&rep);
        got = next(rp);
        ck_assert_ptr_nonnull(got);
        ck_assert_msg(g_str_has_prefix(got, "error seq=7 code=internal message="), "%s", got);
        ck_assert_ptr_null(next(rp));
}
END_TEST

START_TEST(test_one_final_reply)
{
        int rp;
        Client *r = connect_client(&rp);
        Reply rep = reply_begin(r, 8);
        SdpMessage item, ok;

        sdp_message_init(&item, SDP_ITEM);
        sdp_add_u64(&item, "seq", 8);
        sdp_add(&item, "type", "counters");
        reply_item(&rep, &item);
        reply_ok(&rep, NULL);
        reply_error(&rep, SDP_E_BUSY, NULL, NULL, NULL, "a second final");   /* suppressed */
        reply_item(&rep, &item);                                               /* suppressed */
        reply_finish(&rep);
        ck_assert_str_eq(next(rp), "item seq=8 type=counters");
        ck_assert_str_eq(next(rp), "ok seq=8");
        ck_assert_ptr_null(next(rp));

        /* a path that sends nothing still answers */
        rep = reply_begin(r, 9);
        reply_finish(&rep);
        ck_assert_msg(g_str_has_prefix(next(rp), "error seq=9 code=internal "), "no internal error");

        /* noreply=1: a success is silent, an error is not */
        rep = reply_begin(r, 10);
        rep.quiet_ok = true;
        reply_ok(&rep, NULL);
        reply_finish(&rep);
        ck_assert_ptr_null(next(rp));
        rep = reply_begin(r, 11);
        rep.quiet_ok = true;
        reply_error(&rep, SDP_E_NOT_FOUND, "id", NULL, NULL, "no block");
        reply_finish(&rep);
        ck_assert_str_eq(next(rp), "error seq=11 code=not-found message=\"no block\" field=id");

        /* replies cannot bypass the Reply */
        sdp_message_init(&ok, SDP_OK);
        sdp_add_u64(&ok, "seq", 12);
        client_send(r, &ok);
        ck_assert_ptr_null(next(rp));
}
END_TEST

START_TEST(test_error_texts_fit)
{
        int rp;
        Client *r = connect_client(&rp);
        g_autofree char *quotes = g_strnfill(3000, '"');
        Reply rep = reply_begin(r, 4294967295u);
        SdpMessage m;
        SdpProblem p;
        const char *got;

        reply_error(&rep, SDP_E_CONFLICTING_FIELDS, "abcdefghijklmnopqrstuvwxyz01234", "blockers", quotes,
                    "%s", quotes);
        got = next(rp);
        ck_assert_ptr_nonnull(got);
        ck_assert_uint_le(strlen(got), SDP_MAX_MESSAGE);
        ck_assert_int_eq(sdp_decode(&m, got, strlen(got), &p), 0);
        ck_assert_str_eq(sdp_get(&m, "code"), "conflicting-fields");
        ck_assert_uint_le(strlen(sdp_get(&m, "message")), REPLY_TEXT_MAX);
        ck_assert(g_str_has_suffix(sdp_get(&m, "message"), "..."));
        ck_assert_uint_le(strlen(sdp_get(&m, "blockers")), REPLY_TEXT_MAX);
        ck_assert(d->n_encode_failures == 0);
}
END_TEST

START_TEST(test_text_list)
{
        TextList l;
        g_autofree char *entry = g_strnfill(300, 'x');
        g_autofree char *huge = g_strnfill(2000, 'y');
        g_autofree char *s = NULL, *t = NULL, *u = NULL;

        text_list_init(&l, LIST_MAX_ENTRIES, 960);
        for (int i = 0; i < 10; i++)
                text_list_add(&l, entry);
        s = text_list_end(&l);
        ck_assert_uint_le(strlen(s), 960);
        ck_assert_msg(g_str_has_suffix(s, "; and 7 more"), "%s", s + strlen(s) - 20);   /* 3 whole entries */

        text_list_init(&l, LIST_MAX_ENTRIES, 960);
        for (int i = 0; i < 10; i++)
                text_list_add(&l, "a");
        t = text_list_end(&l);
        ck_assert_str_eq(t, "a; a; a; a; a; a; a; a; and 2 more");

        text_list_init(&l, LIST_MAX_ENTRIES, 960);
        text_list_add(&l, huge);
        text_list_add(&l, "b");
        u = text_list_end(&l);
        ck_assert_uint_le(strlen(u), 960);
        ck_assert_msg(strstr(u, "...; and 1 more") != NULL, "%s", u + strlen(u) - 20);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("reply");
        TCase *tc = tcase_create("send");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_event_fallback_and_event_lost);
        tcase_add_test(tc, test_reply_that_cannot_be_encoded_is_internal);
        tcase_add_test(tc, test_one_final_reply);
        tcase_add_test(tc, test_error_texts_fit);
        tcase_add_test(tc, test_text_list);
        return run_tap(s, tc);
}
