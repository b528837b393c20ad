/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sdp.h — the suspendd wire protocol: a pure codec (no I/O, no allocation, no GLib).
 *
 * A message is one SOCK_SEQPACKET datagram of UTF-8 text:
 *     VERB [KEY=VALUE]... [\n]
 * protocol/PROTOCOL.md is the normative specification; this header is its C form.
 * The daemon and libsuspendctl both use this codec; there is no second copy.
 */
#ifndef SUSPENDD_SDP_H
#define SUSPENDD_SDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SDP_VERSION        2u     /* the highest protocol version this codec speaks (PROTOCOL.md §4) */
#define SDP_MAX_MESSAGE    4096u  /* bytes in one datagram, including an optional final \n */
#define SDP_LIVENESS_PAGE  4096u  /* bytes of the liveness page (PROTOCOL.md §6.16) */
#define SDP_MAX_FIELDS     32u    /* KEY=VALUE pairs in one message */
#define SDP_MAX_KEY        31u    /* bytes in a key */
#define SDP_MAX_FDS        1u     /* file descriptors passed with one message (fd-add) */

/* Who sends a message type. */
typedef enum {
        SDP_REQUEST,  /* client -> daemon */
        SDP_REPLY,    /* daemon -> client, answers one request (carries its seq) */
        SDP_EVENT,    /* daemon -> client, unsolicited */
} SdpKind;

/* Every message type. Order is not part of the wire format (names are). */
typedef enum {
        /* requests */
        SDP_HELLO,
        SDP_PING,
        SDP_BLOCK,
        SDP_UNBLOCK,
        SDP_WATCH,
        SDP_UNWATCH,
        SDP_READY,
        SDP_VETO,
        SDP_FD_ADD,
        SDP_FD_REMOVE,
        SDP_SUSPEND,
        SDP_MODE_GET,
        SDP_MODE_SET,
        SDP_DISABLE,
        SDP_ENABLE,
        SDP_ALARM_ADD,
        SDP_ALARM_LIST,
        SDP_ALARM_CANCEL,
        SDP_ALARM_RELEASE,
        SDP_STATUS,
        SDP_MONITOR,
        SDP_LIVENESS,
        /* replies */
        SDP_OK,
        SDP_ERROR,
        SDP_ITEM,
        /* events */
        SDP_SUSPENDING,
        SDP_RESUMED,
        SDP_ABORTED,
        SDP_ALARM_FIRED,
        SDP_BLOCKED,
        SDP_UNBLOCKED,
        SDP_MODE_CHANGED,
        SDP_DISABLE_CHANGED,
        SDP_ALARM_CHANGED,
        SDP_EVENT_LOST,
        SDP_TYPE_COUNT,
        SDP_TYPE_INVALID = -1,
} SdpType;

/* Stable error codes: the `code` field of an `error` reply, and what sdp_decode() reports.
 * Their wire names (sdp_error_name) never change meaning. */
typedef enum {
        SDP_E_NONE = 0,
        SDP_E_BAD_MESSAGE,       /* syntax: not KEY=VALUE, bad quoting, bad UTF-8, control bytes */
        SDP_E_TOO_LARGE,         /* datagram > SDP_MAX_MESSAGE or > SDP_MAX_FIELDS fields */
        SDP_E_UNKNOWN_REQUEST,   /* verb unknown, or not a request */
        SDP_E_UNKNOWN_FIELD,     /* a request carries a field its type does not define */
        SDP_E_MISSING_FIELD,     /* a required field is absent */
        SDP_E_DUPLICATE_FIELD,   /* the same key twice */
        SDP_E_BAD_FIELD,         /* a value out of range, wrong type, bad enum, bad charset */
        SDP_E_CONFLICTING_FIELDS,/* more than one of a set of mutually exclusive fields, or none */
        SDP_E_NO_HELLO,          /* a request before hello */
        SDP_E_BAD_VERSION,       /* hello with a version the daemon does not speak */
        SDP_E_PERMISSION_DENIED, /* policy forbids this peer the request */
        SDP_E_LIMIT_EXCEEDED,    /* a per-client, per-user or global limit */
        SDP_E_NOT_FOUND,         /* no such block / fd / alarm / attempt */
        SDP_E_EXISTS,            /* id or alarm name already in use */
        SDP_E_BLOCKED,           /* application request refused: something blocks */
        SDP_E_DISABLED,          /* suspend is disabled (the firmware hammer) */
        SDP_E_ALARM_DUE,         /* an alarm is due too soon to suspend */
        SDP_E_WRONG_ATTEMPT,     /* ready/veto for an attempt that is not being asked */
        SDP_E_BAD_FD,            /* fd-add without exactly one pollable fd */
        SDP_E_UNSUPPORTED,       /* the kernel or configuration lacks what is needed */
        SDP_E_BUSY,              /* the request conflicts with an attempt in progress */
        SDP_E_INTERNAL,          /* a daemon-side failure; the message says what */
        SDP_E_COUNT,
} SdpError;

typedef struct {
        const char *key;    /* NUL-terminated, inside the message's storage */
        const char *value;  /* NUL-terminated, unescaped */
} SdpField;

/* A decoded or to-be-encoded message. Self-contained (no pointers outside itself), so it can
 * live on the stack; about 9 KiB. */
typedef struct {
        SdpType type;
        unsigned n_fields;
        SdpField fields[SDP_MAX_FIELDS];
        size_t used;
        char storage[2 * SDP_MAX_MESSAGE];
} SdpMessage;

/* What went wrong while decoding or validating; `field` names the offending key if any. */
typedef struct {
        SdpError code;
        char field[SDP_MAX_KEY + 1];
        char text[160];
} SdpProblem;

/* --- names --- */
const char *sdp_type_name(SdpType type);
SdpType sdp_type_from_name(const char *name, size_t len);
SdpKind sdp_type_kind(SdpType type);
const char *sdp_error_name(SdpError code);
SdpError sdp_error_from_name(const char *name);

/* --- decoding ---
 * Parses one datagram and validates it against the schema of its type. Requests are strict
 * (an unknown field is an error); replies and events are lenient (unknown fields are kept and
 * ignored) so a newer daemon can add information. An unknown verb gives SDP_E_UNKNOWN_REQUEST,
 * which a client should treat as "ignore this message".
 * Returns 0, or -EINVAL with *problem filled in. */
int sdp_decode(SdpMessage *msg, const void *buf, size_t len, SdpProblem *problem);
/* The daemon's side: as sdp_decode(), but a verb that is not a request (a reply or an event
 * sent to the daemon) is SDP_E_UNKNOWN_REQUEST before any of its fields is looked at, and a
 * request field added after `version` (the connection's negotiated version; 0 before its hello:
 * SDP_VERSION) is SDP_E_UNKNOWN_FIELD, as requests are strict per version (PROTOCOL.md §4). */
int sdp_decode_request(SdpMessage *msg, const void *buf, size_t len, unsigned version,
                       SdpProblem *problem);

/* --- building and encoding --- */
void sdp_message_init(SdpMessage *msg, SdpType type);
/* Add a field. Return 0, -E2BIG (too many fields / too long) or -EINVAL (bad key). The key
 * must be unique; values are copied. */
int sdp_add(SdpMessage *msg, const char *key, const char *value);
int sdp_add_u64(SdpMessage *msg, const char *key, uint64_t value);
int sdp_add_bool(SdpMessage *msg, const char *key, bool value);
/* Validate against the schema and write the wire form, without a trailing \n.
 * Returns the length (<= SDP_MAX_MESSAGE), -ENOSPC if it does not fit `size` or the protocol's
 * limit, or -EINVAL (with *problem filled if not NULL) if the message violates the schema. */
int sdp_encode(const SdpMessage *msg, char *buf, size_t size, SdpProblem *problem);
/* Validate a message built by hand or decoded (sdp_decode already does this), at SDP_VERSION. */
int sdp_validate(const SdpMessage *msg, SdpProblem *problem);
/* The same for a connection that negotiated `version`: a request field added later is unknown. */
int sdp_validate_version(const SdpMessage *msg, unsigned version, SdpProblem *problem);

/* --- access --- */
const char *sdp_get(const SdpMessage *msg, const char *key);            /* NULL if absent */
int sdp_get_u64(const SdpMessage *msg, const char *key, uint64_t *out); /* 0, -ENOENT, -EINVAL */
bool sdp_get_bool(const SdpMessage *msg, const char *key, bool fallback);
uint64_t sdp_get_u64_or(const SdpMessage *msg, const char *key, uint64_t fallback);

/* --- small pure helpers shared by daemon and clients --- */
/* Parse an unsigned decimal without sign, leading zeros or overflow. */
int sdp_parse_u64(const char *s, size_t len, uint64_t *out);
/* True for a valid alarm/watcher name: 1..64 of [A-Za-z0-9._@:-]. */
bool sdp_name_valid(const char *s);
/* Validate a UTF-8 string with no control characters (U+0000-U+001F, U+007F-U+009F); max bytes. */
bool sdp_text_valid(const char *s, size_t len, size_t max);
/* Cut the NUL-terminated string s in place to at most max bytes, at a UTF-8 character boundary
 * (never inside a multi-byte character). Also drops an incomplete character left at the end by
 * a byte-wise cut (snprintf, g_strlcpy). Returns the new length. Use it on every text the daemon
 * shortens (reasons, names, process names, aggregated lists) before it goes into a message. */
size_t sdp_text_cut(char *s, size_t max);
/* Copy src into dst (size bytes, NUL-terminated) as valid protocol text: invalid UTF-8 and
 * control characters become '?', and the result is cut with sdp_text_cut() to fit. For text
 * from outside the protocol (process names, logind's who/why). Returns the length. */
size_t sdp_text_sanitize(char *dst, size_t size, const char *src);

#ifdef __cplusplus
}
#endif
#endif
