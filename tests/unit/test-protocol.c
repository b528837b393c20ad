/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the protocol codec: a round trip for every message type and the rejection of
 * every class of bad input named in PROTOCOL.md. */
#include <check.h>
#include "check-tap.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdp.h"

static SdpMessage msg, again;
static char wire[SDP_MAX_MESSAGE + 1];

/* Decode `text`, expect success, re-encode, decode again, expect the same fields. */
static void round_trip(const char *text, SdpType type)
{
        SdpProblem p;
        int n;

        ck_assert_msg(sdp_decode(&msg, text, strlen(text), &p) == 0, "decode '%s': %s (%s)", text,
                      p.text, sdp_error_name(p.code));
        ck_assert_int_eq(msg.type, type);
        n = sdp_encode(&msg, wire, sizeof wire, &p);
        ck_assert_msg(n > 0, "encode '%s': %d %s", text, n, p.text);
        ck_assert_int_eq(sdp_decode(&again, wire, (size_t)n, &p), 0);
        ck_assert_int_eq(again.n_fields, msg.n_fields);
        for (unsigned i = 0; i < msg.n_fields; i++) {
                ck_assert_str_eq(again.fields[i].key, msg.fields[i].key);
                ck_assert_str_eq(again.fields[i].value, msg.fields[i].value);
        }
}

static SdpError rejected(const char *text)
{
        SdpProblem p;
        ck_assert_msg(sdp_decode(&msg, text, strlen(text), &p) == -EINVAL, "accepted '%s'", text);
        ck_assert_msg(p.code != SDP_E_NONE && p.text[0], "no reason for '%s'", text);
        return p.code;
}

static const struct {
        SdpType type;
        const char *text;
} examples[] = {
        { SDP_HELLO, "hello version=1 name=\"gnome session\"" },
        { SDP_PING, "ping seq=1" },
        { SDP_BLOCK, "block seq=2 id=1 reason=\"backup running\" noreply=1" },
        { SDP_UNBLOCK, "unblock id=1" },
        { SDP_WATCH, "watch name=session budget_ms=2000" },
        { SDP_UNWATCH, "unwatch" },
        { SDP_READY, "ready attempt=18446744073709551615" },
        { SDP_VETO, "veto attempt=3 reason=\"saving \\\"draft\\\" \\\\ now\"" },
        { SDP_FD_ADD, "fd-add id=7 label=\"evdev keyboard\"" },
        { SDP_FD_REMOVE, "fd-remove id=7" },
        { SDP_SUSPEND, "suspend kind=user" },
        { SDP_MODE_GET, "mode-get" },
        { SDP_MODE_SET, "mode-set mode=on-demand" },
        { SDP_DISABLE, "disable reason=\"fwupd: flashing\"" },
        { SDP_ENABLE, "enable" },
        { SDP_ALARM_ADD, "alarm-add name=backup cron=\"*/5 3 1-7 * 1,3\" hold=60 command=\"/bin/true\"" },
        { SDP_ALARM_LIST, "alarm-list" },
        { SDP_ALARM_CANCEL, "alarm-cancel id=4" },
        { SDP_ALARM_RELEASE, "alarm-release alarm=4" },
        { SDP_STATUS, "status" },
        { SDP_MONITOR, "monitor seq=0" },
        { SDP_LIVENESS, "liveness seq=3" },
        { SDP_OK, "ok seq=1 version=1 future_field=\"ignored by clients\"" },
        { SDP_ERROR, "error seq=1 code=permission-denied message=\"rule: block\" field=id" },
        { SDP_ITEM, "item seq=1 type=alarm id=4 name=backup" },
        { SDP_SUSPENDING, "suspending attempt=1 deadline_ms=500 kind=dark readable=\"kbd,mouse\"" },
        { SDP_RESUMED, "resumed attempt=1 slept_ms=0 wake=\"PNP0C0D:00\" dark=0" },
        { SDP_ABORTED, "aborted attempt=1 reason=watcher-timeout detail=\"session did not answer\"" },
        { SDP_ALARM_FIRED, "alarm-fired alarm=1 name=a hold_ms=1000" },
        { SDP_BLOCKED, "blocked client=1 id=1" },
        { SDP_UNBLOCKED, "unblocked client=1 id=1" },
        { SDP_MODE_CHANGED, "mode-changed mode=immediate" },
        { SDP_DISABLE_CHANGED, "disable-changed disabled=0 holders=0" },
        { SDP_ALARM_CHANGED, "alarm-changed alarm=2 name=x change=rescheduled" },
        { SDP_EVENT_LOST, "event-lost event=aborted client=3 delivered=1 total=1" },
};

START_TEST(test_round_trip_every_type)
{
        bool seen[SDP_TYPE_COUNT] = { false };
        for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
                round_trip(examples[i].text, examples[i].type);
                seen[examples[i].type] = true;
        }
        for (int t = 0; t < SDP_TYPE_COUNT; t++)
                ck_assert_msg(seen[t], "no round-trip example for %s", sdp_type_name(t));
}
END_TEST

START_TEST(test_line_terminator_and_spaces)
{
        round_trip("ping seq=1\n", SDP_PING);
        round_trip("ping seq=1\r\n", SDP_PING);
        round_trip("block   id=1    reason=x", SDP_BLOCK);
        round_trip("block id=1 reason=\"\"", SDP_BLOCK);
        ck_assert_str_eq(sdp_get(&msg, "reason"), "");
        round_trip("veto attempt=1 reason=\"caf\xc3\xa9 \xe2\x98\x95\"", SDP_VETO);
}
END_TEST

START_TEST(test_encode_quotes_what_needs_it)
{
        SdpProblem p;
        sdp_message_init(&msg, SDP_BLOCK);
        ck_assert_int_eq(sdp_add_u64(&msg, "id", 5), 0);
        ck_assert_int_eq(sdp_add(&msg, "reason", "a \"b\" \\c"), 0);
        ck_assert_int_eq(sdp_add_bool(&msg, "noreply", true), 0);
        ck_assert_int_gt(sdp_encode(&msg, wire, sizeof wire, &p), 0);
        ck_assert_str_eq(wire, "block id=5 reason=\"a \\\"b\\\" \\\\c\" noreply=1");
        ck_assert_int_eq(sdp_add(&msg, "id", "6"), -EINVAL);       /* duplicate */
        ck_assert_int_eq(sdp_add(&msg, "Bad", "x"), -EINVAL);      /* key charset */
}
END_TEST

START_TEST(test_encode_leaves_utf8_bare)
{
        SdpProblem p;
        sdp_message_init(&msg, SDP_BLOCK);
        ck_assert_int_eq(sdp_add_u64(&msg, "id", 1), 0);
        ck_assert_int_eq(sdp_add(&msg, "reason", "caf\xc3\xa9"), 0);
        ck_assert_int_gt(sdp_encode(&msg, wire, sizeof wire, &p), 0);
        ck_assert_str_eq(wire, "block id=1 reason=caf\xc3\xa9");   /* UTF8-nonascii is bare (§3) */
        round_trip(wire, SDP_BLOCK);
}
END_TEST

/* Requests are strict per version: a field version 2 added is unknown on a version 1 connection,
 * in the order the fields are written (an unknown field before a bad one). */
START_TEST(test_request_fields_per_version)
{
        SdpProblem p;
        const char *t = "suspend seq=3 state=hibernate";

        ck_assert_int_eq(sdp_decode_request(&msg, t, strlen(t), 1, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_UNKNOWN_FIELD);
        ck_assert_str_eq(p.field, "state");
        ck_assert_int_eq(sdp_decode_request(&msg, t, strlen(t), 2, &p), 0);
        ck_assert_str_eq(sdp_get(&msg, "state"), "hibernate");
        /* before hello (0): the highest version, so the request is no-hello, not unknown-field */
        ck_assert_int_eq(sdp_decode_request(&msg, t, strlen(t), 0, &p), 0);
        t = "suspend state=hibernate kind=bogus";
        ck_assert_int_eq(sdp_decode_request(&msg, t, strlen(t), 1, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_UNKNOWN_FIELD);
        ck_assert_int_eq(sdp_decode_request(&msg, t, strlen(t), 2, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_BAD_FIELD);
        /* block's delegate (§6.3, delegated form) is version 2's too */
        t = "block seq=4 id=7 delegate=1";
        ck_assert_int_eq(sdp_decode_request(&msg, t, strlen(t), 1, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_UNKNOWN_FIELD);
        ck_assert_str_eq(p.field, "delegate");
        ck_assert_int_eq(sdp_decode_request(&msg, t, strlen(t), 2, &p), 0);
        ck_assert(sdp_get_bool(&msg, "delegate", false));
        /* events are lenient whatever the version */
        t = "resumed attempt=4 slept_ms=10 wake=rtc sleep_state=hibernate";
        ck_assert_int_eq(sdp_decode(&msg, t, strlen(t), &p), 0);
}
END_TEST

/* The daemon's decoder: a reply or event verb is not a request, whatever its fields say. */
START_TEST(test_decode_request_only)
{
        static const char *const not_requests[] = {
                "ok", "ok seq=5", "suspending seq=5 attempt=1", "mode-changed mode=x",
                "error seq=1 code=internal message=x", "item", "blocked client=1 id=1",
        };
        SdpProblem p;
        for (size_t i = 0; i < sizeof not_requests / sizeof *not_requests; i++) {
                const char *t = not_requests[i];
                ck_assert_int_eq(sdp_decode_request(&msg, t, strlen(t), 0, &p), -EINVAL);
                ck_assert_msg(p.code == SDP_E_UNKNOWN_REQUEST, "'%s' gave %s", t, sdp_error_name(p.code));
        }
        ck_assert_int_eq(sdp_decode_request(&msg, "ping seq=2", 10, 0, &p), 0);
        ck_assert_int_eq(sdp_decode_request(&msg, "frob seq=2", 10, 0, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_UNKNOWN_REQUEST);
        ck_assert_int_eq(sdp_decode_request(&msg, "ping seq=2 x=1", 14, 0, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_UNKNOWN_FIELD);
}
END_TEST

START_TEST(test_encode_refuses_invalid)
{
        SdpProblem p;
        sdp_message_init(&msg, SDP_BLOCK);   /* missing id */
        ck_assert_int_eq(sdp_encode(&msg, wire, sizeof wire, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_MISSING_FIELD);
        sdp_message_init(&msg, SDP_VETO);
        sdp_add(&msg, "attempt", "1");
        sdp_add(&msg, "reason", "line\nbreak");
        ck_assert_int_eq(sdp_encode(&msg, wire, sizeof wire, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_BAD_FIELD);
        sdp_message_init(&msg, SDP_PING);
        ck_assert_int_eq(sdp_encode(&msg, wire, 3, &p), -ENOSPC);
}
END_TEST

START_TEST(test_syntax_errors)
{
        ck_assert_int_eq(rejected(""), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("Block id=1"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id="), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block =1"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1 reason=\"open"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1 reason=\"a\"b"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1 reason=\"\\n\""), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1 reason=a\"b"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1 reason=\"\xff\""), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1 reason=\"\xc0\xaf\""), SDP_E_BAD_MESSAGE); /* overlong */
        ck_assert_int_eq(rejected("block id=1 reason=\"\xed\xa0\x80\""), SDP_E_BAD_MESSAGE); /* surrogate */
        ck_assert_int_eq(rejected("block id=1 reason=\"tab\there\""), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block\tid=1"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1\n\n"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("ping seq=1 "), SDP_E_BAD_MESSAGE);      /* §3: nothing may follow */
        ck_assert_int_eq(rejected("ping "), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("ping seq=1 \n"), SDP_E_BAD_MESSAGE);
        {
                static const char nul[] = "block id=1 reason=\"a\0b\"";
                SdpProblem p;
                ck_assert_int_eq(sdp_decode(&msg, nul, sizeof nul - 1, &p), -EINVAL);
                ck_assert_int_eq(p.code, SDP_E_BAD_MESSAGE);
        }
}
END_TEST

START_TEST(test_schema_errors)
{
        SdpProblem p;
        ck_assert_int_eq(rejected("frobnicate"), SDP_E_UNKNOWN_REQUEST);
        ck_assert_int_eq(rejected("block id=1 colour=red"), SDP_E_UNKNOWN_FIELD);
        ck_assert_int_eq(rejected("block reason=x"), SDP_E_MISSING_FIELD);
        ck_assert_int_eq(rejected("block id=1 id=2"), SDP_E_DUPLICATE_FIELD);
        ck_assert_int_eq(rejected("block id=0"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("block id=4294967296"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("block id=01"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("block id=-1"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("block id=1 noreply=yes"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("ready attempt=18446744073709551616"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("mode-set mode=sometimes"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("watch budget_ms=60001"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("alarm-add name=x"), SDP_E_CONFLICTING_FIELDS);
        ck_assert_int_eq(rejected("alarm-add name=x in=5 cron=\"* * * * *\""), SDP_E_CONFLICTING_FIELDS);
        ck_assert_int_eq(rejected("alarm-add name=\"has space\" in=5"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("alarm-add name=x cron=\"* * * *\""), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("alarm-add name=x cron=\"* * * * * *\""), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("alarm-add name=x cron=\"*  * * * *\""), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("alarm-add name=x cron=\"@daily\""), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("alarm-cancel"), SDP_E_CONFLICTING_FIELDS);
        ck_assert_int_eq(rejected("error seq=1 code=nonsense message=x"), SDP_E_BAD_FIELD);
        ck_assert_int_eq(rejected("ok"), SDP_E_MISSING_FIELD);
        /* the problem names the field */
        ck_assert_int_eq(sdp_decode(&msg, "block id=x", 10, &p), -EINVAL);
        ck_assert_str_eq(p.field, "id");
}
END_TEST

START_TEST(test_limits)
{
        char big[SDP_MAX_MESSAGE + 2];
        char text[300];
        size_t n;

        memset(big, 'a', sizeof big);
        ck_assert_int_eq(sdp_decode(&msg, big, sizeof big, NULL), -EINVAL);
        ck_assert_int_eq(rejected("ping seq=1 a=1"), SDP_E_UNKNOWN_FIELD);

        /* 33 fields in a reply (lenient on unknown keys) hits the field limit */
        n = (size_t)snprintf(big, sizeof big, "ok seq=1");
        for (int i = 0; i < 32; i++)
                n += (size_t)snprintf(big + n, sizeof big - n, " f%d=1", i);
        ck_assert_int_eq(rejected(big), SDP_E_TOO_LARGE);

        /* a reason longer than 256 bytes */
        memset(text, 'x', sizeof text);
        n = (size_t)snprintf(big, sizeof big, "block id=1 reason=%.*s", 257, text);
        ck_assert_int_eq(rejected(big), SDP_E_BAD_FIELD);
        n = (size_t)snprintf(big, sizeof big, "block id=1 reason=%.*s", 256, text);
        ck_assert_int_eq(sdp_decode(&msg, big, n, NULL), 0);

        /* a key longer than 31 bytes */
        ck_assert_int_eq(rejected("ok seq=1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1"), SDP_E_BAD_MESSAGE);
}
END_TEST

START_TEST(test_names_and_helpers)
{
        uint64_t v;
        for (int t = 0; t < SDP_TYPE_COUNT; t++) {
                const char *name = sdp_type_name(t);
                ck_assert_int_eq(sdp_type_from_name(name, strlen(name)), t);
        }
        for (int e = 1; e < SDP_E_COUNT; e++)
                ck_assert_int_eq(sdp_error_from_name(sdp_error_name(e)), e);
        ck_assert_int_eq(sdp_type_kind(SDP_BLOCK), SDP_REQUEST);
        ck_assert_int_eq(sdp_type_kind(SDP_ITEM), SDP_REPLY);
        ck_assert_int_eq(sdp_type_kind(SDP_RESUMED), SDP_EVENT);
        ck_assert_int_eq(sdp_parse_u64("18446744073709551615", 20, &v), 0);
        ck_assert(v == UINT64_MAX);
        ck_assert_int_eq(sdp_parse_u64("18446744073709551616", 20, &v), -ERANGE);
        ck_assert(sdp_name_valid("backup.daily@host:1"));
        ck_assert(!sdp_name_valid(""));
        ck_assert(!sdp_name_valid("a/b"));
        round_trip("block id=9 reason=r", SDP_BLOCK);
        ck_assert(sdp_get_u64_or(&msg, "id", 0) == 9);
        ck_assert(sdp_get_u64_or(&msg, "missing", 77) == 77);
        ck_assert(!sdp_get_bool(&msg, "noreply", false));
        ck_assert_int_eq(sdp_get_u64(&msg, "reason", &v), -EINVAL);
        ck_assert_int_eq(sdp_get_u64(&msg, "nope", &v), -ENOENT);
}
END_TEST

/* Issue 15 / PROTOCOL.md §3: the edge cases a client written from the spec relies on. */
START_TEST(test_spec_edges)
{
        SdpProblem p;
        /* a lone CR is not a line terminator */
        ck_assert_int_eq(rejected("ping seq=1\r"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("ping\r"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("ping seq=1\n\n"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("ping seq=1\r\r\n"), SDP_E_BAD_MESSAGE);
        /* quoting is transparent: a quoted integer is the integer */
        round_trip("ping seq=\"5\"", SDP_PING);
        ck_assert(sdp_get_u64_or(&msg, "seq", 0) == 5);
        ck_assert_int_eq(rejected("ping seq=\"05\""), SDP_E_BAD_FIELD);
        /* verbs: lower-case letters and '-' only; '-' alone is a (unknown) verb */
        ck_assert_int_eq(rejected("ping2"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("Ping"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("ping_x"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("-"), SDP_E_UNKNOWN_REQUEST);
        ck_assert_int_eq(rejected("-- seq=1"), SDP_E_UNKNOWN_REQUEST);
        /* an unknown verb's seq is still read, so the error can carry it */
        ck_assert_int_eq(rejected("frob seq=8 x=\"y\""), SDP_E_UNKNOWN_REQUEST);
        ck_assert(sdp_get_u64_or(&msg, "seq", 0) == 8);
        ck_assert_int_eq(sdp_decode_request(&msg, "ok seq=9", 8, 0, &p), -EINVAL);
        ck_assert_int_eq(p.code, SDP_E_UNKNOWN_REQUEST);
        ck_assert(sdp_get_u64_or(&msg, "seq", 0) == 9);
        /* C1 controls (U+0080-U+009F) are control characters; U+00A0 is not */
        ck_assert_int_eq(rejected("block id=1 reason=\"a\xc2\x85\""), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1 reason=a\xc2\x9b"), SDP_E_BAD_MESSAGE);
        ck_assert_int_eq(rejected("block id=1 reason=\"\xc2\x80\""), SDP_E_BAD_MESSAGE);
        round_trip("block id=1 reason=\"a\xc2\xa0" "b\"", SDP_BLOCK);
        /* alarm-add needs exactly one time */
        ck_assert_int_eq(rejected("alarm-add name=x hold=5"), SDP_E_CONFLICTING_FIELDS);
        ck_assert_int_eq(rejected("alarm-add name=x in=5 at=99999999999"), SDP_E_CONFLICTING_FIELDS);
        /* at: Unix seconds up to 9999-12-31T23:59:59Z */
        round_trip("alarm-add name=x at=253402300799", SDP_ALARM_ADD);
        ck_assert_int_eq(rejected("alarm-add name=x at=253402300800"), SDP_E_BAD_FIELD);
        (void)p;
}
END_TEST

START_TEST(test_text_cut)
{
        char s[64];
        /* "aЖ€😀": 1 + 2 + 3 + 4 bytes */
        const char *t = "a\xd0\x96\xe2\x82\xac\xf0\x9f\x98\x80";
        static const size_t expect[] = { 0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10 };
        for (size_t max = 0; max < sizeof expect / sizeof expect[0]; max++) {
                snprintf(s, sizeof s, "%s", t);
                ck_assert_uint_eq(sdp_text_cut(s, max), expect[max]);
                ck_assert_uint_eq(strlen(s), expect[max]);
                ck_assert(sdp_text_valid(s, strlen(s), 64));
        }
        /* a byte-wise cut inside a character is repaired */
        snprintf(s, sizeof s, "%.2s", "\xd0\x96\xd0\x96");
        ck_assert_uint_eq(strlen(s), 2);
        snprintf(s, sizeof s, "%.3s", "\xd0\x96\xd0\x96");
        ck_assert_uint_eq(sdp_text_cut(s, 64), 2);
        /* sanitize: invalid UTF-8 and controls become '?', the result is cut to fit */
        ck_assert_uint_eq(sdp_text_sanitize(s, sizeof s, "a\x01" "b\xff" "c\xc2\x85" "d"), 7);
        ck_assert_str_eq(s, "a?b?c?d");
        ck_assert_uint_eq(sdp_text_sanitize(s, 4, "a\xd0\x96\xd0\x96"), 3);
        ck_assert_str_eq(s, "a\xd0\x96");
        ck_assert_uint_eq(sdp_text_sanitize(s, 3, "a\xd0\x96"), 1);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("protocol");
        TCase *tc = tcase_create("codec");

        tcase_add_test(tc, test_round_trip_every_type);
        tcase_add_test(tc, test_request_fields_per_version);
        tcase_add_test(tc, test_line_terminator_and_spaces);
        tcase_add_test(tc, test_encode_quotes_what_needs_it);
        tcase_add_test(tc, test_encode_refuses_invalid);
        tcase_add_test(tc, test_encode_leaves_utf8_bare);
        tcase_add_test(tc, test_decode_request_only);
        tcase_add_test(tc, test_syntax_errors);
        tcase_add_test(tc, test_schema_errors);
        tcase_add_test(tc, test_limits);
        tcase_add_test(tc, test_names_and_helpers);
        tcase_add_test(tc, test_spec_edges);
        tcase_add_test(tc, test_text_cut);
        return run_tap(s, tc);
}
