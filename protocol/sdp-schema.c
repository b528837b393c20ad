/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sdp-schema.c — the message types and their fields, as tables. PROTOCOL.md §5–§7 in C.
 * Adding a message: add its SdpType in sdp.h, a row here, a section in PROTOCOL.md and a
 * round-trip test in tests/unit/test-protocol.c. */
#include <string.h>

#include "sdp-schema.h"

#define U32_MAX 4294967295ull

/* Fields every message of a kind may carry. */
#define SEQ_OPTIONAL { "seq", SDP_FIELD_U64, false, 0, U32_MAX, 0, NULL }
#define SEQ_REQUIRED { "seq", SDP_FIELD_U64, true, 0, U32_MAX, 0, NULL }
#define END { NULL, 0, false, 0, 0, 0, NULL }

#define TEXT(k, req, len) { k, SDP_FIELD_TEXT, req, 0, 0, len, NULL }
#define NAME(k, req) { k, SDP_FIELD_NAME, req, 0, 0, 64, NULL }
#define U64(k, req, lo, hi) { k, SDP_FIELD_U64, req, lo, hi, 0, NULL }
#define BOOL(k, req) { k, SDP_FIELD_BOOL, req, 0, 1, 0, NULL }
#define ENUM(k, req, w) { k, SDP_FIELD_ENUM, req, 0, 0, 0, w, 0 }
/* a request field a later protocol version added: unknown-field on a connection below it */
#define ENUM_SINCE(v, k, req, w) { k, SDP_FIELD_ENUM, req, 0, 0, 0, w, v }
#define BOOL_SINCE(v, k, req) { k, SDP_FIELD_BOOL, req, 0, 1, 0, NULL, v }
#define ID(k, req) U64(k, req, 1, U32_MAX)
#define ATTEMPT(k, req) U64(k, req, 1, UINT64_MAX)

static const char *const suspend_kinds[] = { "application", "user", NULL };
static const char *const attempt_kinds[] = { "application", "user", "immediate", "dark", NULL };
/* PROTOCOL.md §6.7: what a `suspend` asks for (version 2) */
const char *const sdp_sleep_states[] = { "suspend", "hibernate", "hybrid", "suspend-then-hibernate", NULL };
static const char *const modes[] = { "on-demand", "immediate", NULL };
static const char *const alarm_changes[] = { "added", "cancelled", "fired", "rescheduled", NULL };
const char *const sdp_abort_reasons[] = {
        "blocked", "vetoed", "watcher-timeout", "fd-readable", "wakeup-event",
        "kernel-error", "disabled", "alarm-due", "shutdown", NULL,
};
const char *const sdp_item_types[] = {
        "daemon", "kernel", "client", "blocker", "watcher", "fd", "alarm", "attempt",
        "disable", "counters", NULL,
};
static const char *const error_names[SDP_E_COUNT + 1] = {
        [SDP_E_NONE] = "none",
        [SDP_E_BAD_MESSAGE] = "bad-message",
        [SDP_E_TOO_LARGE] = "too-large",
        [SDP_E_UNKNOWN_REQUEST] = "unknown-request",
        [SDP_E_UNKNOWN_FIELD] = "unknown-field",
        [SDP_E_MISSING_FIELD] = "missing-field",
        [SDP_E_DUPLICATE_FIELD] = "duplicate-field",
        [SDP_E_BAD_FIELD] = "bad-field",
        [SDP_E_CONFLICTING_FIELDS] = "conflicting-fields",
        [SDP_E_NO_HELLO] = "no-hello",
        [SDP_E_BAD_VERSION] = "bad-version",
        [SDP_E_PERMISSION_DENIED] = "permission-denied",
        [SDP_E_LIMIT_EXCEEDED] = "limit-exceeded",
        [SDP_E_NOT_FOUND] = "not-found",
        [SDP_E_EXISTS] = "exists",
        [SDP_E_BLOCKED] = "blocked",
        [SDP_E_DISABLED] = "disabled",
        [SDP_E_ALARM_DUE] = "alarm-due",
        [SDP_E_WRONG_ATTEMPT] = "wrong-attempt",
        [SDP_E_BAD_FD] = "bad-fd",
        [SDP_E_UNSUPPORTED] = "unsupported",
        [SDP_E_BUSY] = "busy",
        [SDP_E_INTERNAL] = "internal",
        [SDP_E_COUNT] = NULL,
};
/* error codes that may appear on the wire (all but "none") */
static const char *const *const error_words = error_names + 1;

static const SdpFieldSpec f_hello[] = { SEQ_OPTIONAL, U64("version", true, 1, 65535), TEXT("name", false, 64), END };
static const SdpFieldSpec f_seq_only[] = { SEQ_OPTIONAL, END };
static const SdpFieldSpec f_block[] = {
        SEQ_OPTIONAL, ID("id", true), TEXT("reason", false, 256), BOOL("noreply", false),
        BOOL_SINCE(2, "delegate", false), END,
};
static const SdpFieldSpec f_unblock[] = { SEQ_OPTIONAL, ID("id", true), BOOL("noreply", false), END };
static const SdpFieldSpec f_watch[] = { SEQ_OPTIONAL, TEXT("name", false, 64), U64("budget_ms", false, 1, 60000), END };
static const SdpFieldSpec f_ready[] = { SEQ_OPTIONAL, ATTEMPT("attempt", true), BOOL_SINCE(2, "noreply", false), END };
static const SdpFieldSpec f_veto[] = {
        SEQ_OPTIONAL, ATTEMPT("attempt", true), TEXT("reason", true, 256), BOOL_SINCE(2, "noreply", false), END,
};
static const SdpFieldSpec f_fd_add[] = { SEQ_OPTIONAL, ID("id", true), TEXT("label", false, 64), END };
static const SdpFieldSpec f_fd_remove[] = { SEQ_OPTIONAL, ID("id", true), END };
static const SdpFieldSpec f_suspend[] = {
        SEQ_OPTIONAL, ENUM("kind", false, suspend_kinds), ENUM_SINCE(2, "state", false, sdp_sleep_states), END,
};
static const SdpFieldSpec f_mode_set[] = { SEQ_OPTIONAL, ENUM("mode", true, modes), END };
static const SdpFieldSpec f_disable[] = { SEQ_OPTIONAL, TEXT("reason", false, 256), END };
static const SdpFieldSpec f_alarm_add[] = {
        SEQ_OPTIONAL, NAME("name", true),
        U64("at", false, 1, 253402300799ull),    /* up to 9999-12-31 */
        U64("in", false, 1, 315360000),          /* up to ten years */
        { "cron", SDP_FIELD_CRON, false, 0, 0, 128, NULL },
        U64("hold", false, 1, 86400),
        TEXT("command", false, 1024),
        END,
};
static const SdpFieldSpec f_alarm_cancel[] = { SEQ_OPTIONAL, ID("id", false), NAME("name", false), END };
static const SdpFieldSpec f_alarm_release[] = { SEQ_OPTIONAL, ID("alarm", true), END };

static const SdpFieldSpec f_ok[] = { SEQ_REQUIRED, END };
static const SdpFieldSpec f_error[] = {
        SEQ_REQUIRED, ENUM("code", true, error_words), TEXT("message", true, 1024),
        TEXT("field", false, SDP_MAX_KEY), END,
};
static const SdpFieldSpec f_item[] = { SEQ_REQUIRED, ENUM("type", true, sdp_item_types), END };

static const SdpFieldSpec f_suspending[] = {
        ATTEMPT("attempt", true), U64("deadline_ms", true, 0, 3600000),
        ENUM("kind", true, attempt_kinds), TEXT("readable", false, 1024),
        ENUM("sleep_state", false, sdp_sleep_states), END,
};
static const SdpFieldSpec f_resumed[] = {
        ATTEMPT("attempt", true), U64("slept_ms", true, 0, UINT64_MAX), TEXT("wake", true, 128),
        NAME("alarm", false), BOOL("dark", false), ENUM("sleep_state", false, sdp_sleep_states), END,
};
static const SdpFieldSpec f_aborted[] = {
        ATTEMPT("attempt", true), ENUM("reason", true, sdp_abort_reasons), TEXT("detail", false, 1024),
        ENUM("sleep_state", false, sdp_sleep_states), END,
};
static const SdpFieldSpec f_alarm_fired[] = {
        ID("alarm", true), NAME("name", true), U64("hold_ms", true, 0, UINT64_MAX),
        ATTEMPT("attempt", false), U64("late_s", false, 0, UINT64_MAX), END,
};
/* client 0 is the daemon itself (alarm holds) */
static const SdpFieldSpec f_blocked[] = {
        U64("client", true, 0, U32_MAX), U64("id", true, 0, U32_MAX), TEXT("reason", false, 256), END,
};
static const SdpFieldSpec f_unblocked[] = { U64("client", true, 0, U32_MAX), U64("id", true, 0, U32_MAX), END };
static const SdpFieldSpec f_mode_changed[] = { ENUM("mode", true, modes), END };
static const SdpFieldSpec f_disable_changed[] = { BOOL("disabled", true), U64("holders", false, 0, U32_MAX), END };
static const SdpFieldSpec f_alarm_changed[] = {
        ID("alarm", true), NAME("name", true), ENUM("change", true, alarm_changes), END,
};

/* an event or reply the daemon could not encode in full (PROTOCOL.md §7) */
static const SdpFieldSpec f_event_lost[] = {
        TEXT("event", true, 32), U64("client", true, 0, U32_MAX), BOOL("delivered", true),
        U64("total", true, 0, UINT64_MAX), END,
};

static const SdpTypeSpec types[SDP_TYPE_COUNT] = {
        [SDP_HELLO] = { "hello", SDP_REQUEST, f_hello, NULL },
        [SDP_PING] = { "ping", SDP_REQUEST, f_seq_only, NULL },
        [SDP_BLOCK] = { "block", SDP_REQUEST, f_block, NULL },
        [SDP_UNBLOCK] = { "unblock", SDP_REQUEST, f_unblock, NULL },
        [SDP_WATCH] = { "watch", SDP_REQUEST, f_watch, NULL },
        [SDP_UNWATCH] = { "unwatch", SDP_REQUEST, f_seq_only, NULL },
        [SDP_READY] = { "ready", SDP_REQUEST, f_ready, NULL },
        [SDP_VETO] = { "veto", SDP_REQUEST, f_veto, NULL },
        [SDP_FD_ADD] = { "fd-add", SDP_REQUEST, f_fd_add, NULL },
        [SDP_FD_REMOVE] = { "fd-remove", SDP_REQUEST, f_fd_remove, NULL },
        [SDP_SUSPEND] = { "suspend", SDP_REQUEST, f_suspend, NULL },
        [SDP_MODE_GET] = { "mode-get", SDP_REQUEST, f_seq_only, NULL },
        [SDP_MODE_SET] = { "mode-set", SDP_REQUEST, f_mode_set, NULL },
        [SDP_DISABLE] = { "disable", SDP_REQUEST, f_disable, NULL },
        [SDP_ENABLE] = { "enable", SDP_REQUEST, f_seq_only, NULL },
        [SDP_ALARM_ADD] = { "alarm-add", SDP_REQUEST, f_alarm_add, "at|in|cron" },
        [SDP_ALARM_LIST] = { "alarm-list", SDP_REQUEST, f_seq_only, NULL },
        [SDP_ALARM_CANCEL] = { "alarm-cancel", SDP_REQUEST, f_alarm_cancel, "id|name" },
        [SDP_ALARM_RELEASE] = { "alarm-release", SDP_REQUEST, f_alarm_release, NULL },
        [SDP_STATUS] = { "status", SDP_REQUEST, f_seq_only, NULL },
        [SDP_MONITOR] = { "monitor", SDP_REQUEST, f_seq_only, NULL },
        [SDP_LIVENESS] = { "liveness", SDP_REQUEST, f_seq_only, NULL },
        [SDP_OK] = { "ok", SDP_REPLY, f_ok, NULL },
        [SDP_ERROR] = { "error", SDP_REPLY, f_error, NULL },
        [SDP_ITEM] = { "item", SDP_REPLY, f_item, NULL },
        [SDP_SUSPENDING] = { "suspending", SDP_EVENT, f_suspending, NULL },
        [SDP_RESUMED] = { "resumed", SDP_EVENT, f_resumed, NULL },
        [SDP_ABORTED] = { "aborted", SDP_EVENT, f_aborted, NULL },
        [SDP_ALARM_FIRED] = { "alarm-fired", SDP_EVENT, f_alarm_fired, NULL },
        [SDP_BLOCKED] = { "blocked", SDP_EVENT, f_blocked, NULL },
        [SDP_UNBLOCKED] = { "unblocked", SDP_EVENT, f_unblocked, NULL },
        [SDP_MODE_CHANGED] = { "mode-changed", SDP_EVENT, f_mode_changed, NULL },
        [SDP_DISABLE_CHANGED] = { "disable-changed", SDP_EVENT, f_disable_changed, NULL },
        [SDP_ALARM_CHANGED] = { "alarm-changed", SDP_EVENT, f_alarm_changed, NULL },
        [SDP_EVENT_LOST] = { "event-lost", SDP_EVENT, f_event_lost, NULL },
};

const SdpTypeSpec *sdp_type_spec(SdpType type)
{
        if (type < 0 || type >= SDP_TYPE_COUNT)
                return NULL;
        return &types[type];
}

const SdpFieldSpec *sdp_field_spec(const SdpTypeSpec *spec, const char *key)
{
        for (const SdpFieldSpec *f = spec->fields; f->key; f++)
                if (strcmp(f->key, key) == 0)
                        return f;
        return NULL;
}

const char *sdp_type_name(SdpType type)
{
        const SdpTypeSpec *spec = sdp_type_spec(type);
        return spec ? spec->name : NULL;
}

SdpType sdp_type_from_name(const char *name, size_t len)
{
        for (int t = 0; t < SDP_TYPE_COUNT; t++)
                if (strlen(types[t].name) == len && memcmp(types[t].name, name, len) == 0)
                        return (SdpType)t;
        return SDP_TYPE_INVALID;
}

SdpKind sdp_type_kind(SdpType type)
{
        const SdpTypeSpec *spec = sdp_type_spec(type);
        return spec ? spec->kind : SDP_EVENT;
}

const char *sdp_error_name(SdpError code)
{
        if (code < 0 || code >= SDP_E_COUNT)
                return "internal";
        return error_names[code];
}

SdpError sdp_error_from_name(const char *name)
{
        for (int e = 1; e < SDP_E_COUNT; e++)
                if (strcmp(error_names[e], name) == 0)
                        return (SdpError)e;
        return SDP_E_INTERNAL;
}
