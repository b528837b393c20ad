/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sdp-codec.c — syntax of the suspendd protocol (PROTOCOL.md §3) and schema validation.
 * Pure: no I/O, no allocation; every function works on caller-provided memory. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sdp-schema.h"

static int problem(SdpProblem *p, SdpError code, const char *field, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static int problem(SdpProblem *p, SdpError code, const char *field, const char *fmt, ...)
{
        if (p) {
                va_list ap;
                p->code = code;
                snprintf(p->field, sizeof p->field, "%s", field ? field : "");
                va_start(ap, fmt);
                vsnprintf(p->text, sizeof p->text, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

static bool is_key_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Characters a value may use without quotes. Kept small so that the quoted form is the rule
 * for anything a human wrote. */
static bool is_bare_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               strchr("._:/@+,-", c) != NULL;
}

/* Length of the UTF-8 sequence at s (max n bytes), or 0 if invalid (overlong, surrogate,
 * > U+10FFFF, truncated). */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
        unsigned c = s[0];
        size_t len;
        unsigned cp;

        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf)
                len = 2, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
                len = 3, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
                len = 4, cp = c & 0x07;
        else
                return 0;
        if (n < len)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return len;
}

/* C1 controls U+0080-U+009F are encoded C2 80 - C2 9F; some terminals act on them (CSI). */
static bool is_c1(const unsigned char *s, size_t n)
{
        return n == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

bool sdp_text_valid(const char *s, size_t len, size_t max)
{
        if (len > max)
                return false;
        for (size_t i = 0; i < len;) {
                unsigned char c = (unsigned char)s[i];
                size_t n;
                if (c < 0x20 || c == 0x7f)
                        return false;
                n = utf8_sequence((const unsigned char *)s + i, len - i);
                if (n == 0 || is_c1((const unsigned char *)s + i, n))
                        return false;
                i += n;
        }
        return true;
}

size_t sdp_text_cut(char *s, size_t max)
{
        size_t len = strlen(s), i = 0;

        if (len > max)
                len = max;
        /* walk whole characters; stop before one that does not fit or is incomplete */
        while (i < len) {
                unsigned char c = (unsigned char)s[i];
                size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
                if (i + n > len)
                        break;
                i += n;
        }
        s[i] = '\0';
        return i;
}

size_t sdp_text_sanitize(char *dst, size_t size, const char *src)
{
        size_t n = 0, len = strlen(src);

        if (size == 0)
                return 0;
        for (size_t i = 0; i < len && n + 1 < size;) {
                const unsigned char *u = (const unsigned char *)src + i;
                size_t k = utf8_sequence(u, len - i);
                if (k == 0 || u[0] < 0x20 || u[0] == 0x7f || is_c1(u, k)) {
                        dst[n++] = '?';
                        i += k ? k : 1;
                        continue;
                }
                if (n + k + 1 > size)
                        break;
                memcpy(dst + n, u, k);
                n += k;
                i += k;
        }
        dst[n] = '\0';
        return n;
}

bool sdp_name_valid(const char *s)
{
        size_t n = strlen(s);
        if (n == 0 || n > 64)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      strchr("._@:-", c)))
                        return false;
        }
        return true;
}

int sdp_parse_u64(const char *s, size_t len, uint64_t *out)
{
        uint64_t v = 0;
        if (len == 0 || len > 20 || (len > 1 && s[0] == '0'))
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                unsigned d;
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                d = (unsigned)(s[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *out = v;
        return 0;
}

/* A 5-field cron expression: syntax only (the daemon's cron module checks ranges). */
static bool cron_syntax_valid(const char *s)
{
        unsigned fields = 0;
        bool in_field = false;
        for (const char *p = s; *p; p++) {
                if (*p == ' ') {
                        if (!in_field)
                                return false;   /* leading or double space */
                        in_field = false;
                } else if ((*p >= '0' && *p <= '9') || strchr("*,/-", *p)) {
                        if (!in_field)
                                fields++;
                        in_field = true;
                } else {
                        return false;
                }
        }
        return fields == 5 && in_field;
}

void sdp_message_init(SdpMessage *msg, SdpType type)
{
        msg->type = type;
        msg->n_fields = 0;
        msg->used = 0;
}

static char *store(SdpMessage *msg, const char *s, size_t len)
{
        char *dst;
        if (len + 1 > sizeof msg->storage - msg->used)
                return NULL;
        dst = msg->storage + msg->used;
        memcpy(dst, s, len);
        dst[len] = '\0';
        msg->used += len + 1;
        return dst;
}

const char *sdp_get(const SdpMessage *msg, const char *key)
{
        for (unsigned i = 0; i < msg->n_fields; i++)
                if (strcmp(msg->fields[i].key, key) == 0)
                        return msg->fields[i].value;
        return NULL;
}

int sdp_add(SdpMessage *msg, const char *key, const char *value)
{
        size_t klen = strlen(key);
        const char *k, *v;

        if (klen == 0 || klen > SDP_MAX_KEY || !(key[0] >= 'a' && key[0] <= 'z'))
                return -EINVAL;
        for (size_t i = 0; i < klen; i++)
                if (!is_key_char(key[i]))
                        return -EINVAL;
        if (sdp_get(msg, key))
                return -EINVAL;
        if (msg->n_fields >= SDP_MAX_FIELDS)
                return -E2BIG;
        k = store(msg, key, klen);
        v = k ? store(msg, value, strlen(value)) : NULL;
        if (!v)
                return -E2BIG;
        msg->fields[msg->n_fields++] = (SdpField){ k, v };
        return 0;
}

int sdp_add_u64(SdpMessage *msg, const char *key, uint64_t value)
{
        char buf[24];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)value);
        return sdp_add(msg, key, buf);
}

int sdp_add_bool(SdpMessage *msg, const char *key, bool value)
{
        return sdp_add(msg, key, value ? "1" : "0");
}

int sdp_get_u64(const SdpMessage *msg, const char *key, uint64_t *out)
{
        const char *v = sdp_get(msg, key);
        if (!v)
                return -ENOENT;
        return sdp_parse_u64(v, strlen(v), out) < 0 ? -EINVAL : 0;
}

uint64_t sdp_get_u64_or(const SdpMessage *msg, const char *key, uint64_t fallback)
{
        uint64_t v;
        return sdp_get_u64(msg, key, &v) == 0 ? v : fallback;
}

bool sdp_get_bool(const SdpMessage *msg, const char *key, bool fallback)
{
        const char *v = sdp_get(msg, key);
        if (!v)
                return fallback;
        return strcmp(v, "1") == 0;
}

static int validate_field(const SdpFieldSpec *f, const char *value, SdpProblem *p)
{
        size_t len = strlen(value);
        uint64_t n;

        switch (f->type) {
        case SDP_FIELD_TEXT:
                if (!sdp_text_valid(value, len, f->max_len))
                        return problem(p, SDP_E_BAD_FIELD, f->key,
                                       "%s: expected text of at most %zu bytes without control characters",
                                       f->key, f->max_len);
                return 0;
        case SDP_FIELD_NAME:
                if (!sdp_name_valid(value))
                        return problem(p, SDP_E_BAD_FIELD, f->key,
                                       "%s: expected a name of 1-64 characters from [A-Za-z0-9._@:-]", f->key);
                return 0;
        case SDP_FIELD_U64:
                if (sdp_parse_u64(value, len, &n) < 0 || n < f->min || n > f->max)
                        return problem(p, SDP_E_BAD_FIELD, f->key,
                                       "%s: expected an integer from %llu to %llu", f->key,
                                       (unsigned long long)f->min, (unsigned long long)f->max);
                return 0;
        case SDP_FIELD_BOOL:
                if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
                        return problem(p, SDP_E_BAD_FIELD, f->key, "%s: expected 0 or 1", f->key);
                return 0;
        case SDP_FIELD_ENUM:
                for (const char *const *w = f->words; *w; w++)
                        if (strcmp(*w, value) == 0)
                                return 0;
                return problem(p, SDP_E_BAD_FIELD, f->key, "%s: '%.40s' is not an accepted value",
                               f->key, value);
        case SDP_FIELD_CRON:
                if (len > f->max_len || !cron_syntax_valid(value))
                        return problem(p, SDP_E_BAD_FIELD, f->key,
                                       "%s: expected five cron fields \"M H DOM MON DOW\"", f->key);
                return 0;
        }
        return problem(p, SDP_E_INTERNAL, f->key, "unknown field type");
}

int sdp_validate(const SdpMessage *msg, SdpProblem *p)
{
        return sdp_validate_version(msg, SDP_VERSION, p);
}

int sdp_validate_version(const SdpMessage *msg, unsigned version, SdpProblem *p)
{
        const SdpTypeSpec *spec = sdp_type_spec(msg->type);
        if (!spec)
                return problem(p, SDP_E_UNKNOWN_REQUEST, NULL, "unknown message type");

        for (unsigned i = 0; i < msg->n_fields; i++) {
                const SdpFieldSpec *f = sdp_field_spec(spec, msg->fields[i].key);
                /* requests are strict per version: a field from a later one is unknown here */
                if (f && spec->kind == SDP_REQUEST && f->since > version)
                        f = NULL;
                for (unsigned j = 0; j < i; j++)
                        if (strcmp(msg->fields[i].key, msg->fields[j].key) == 0)
                                return problem(p, SDP_E_DUPLICATE_FIELD, msg->fields[i].key,
                                               "field %s given twice", msg->fields[i].key);
                if (!f) {
                        const SdpFieldSpec *later = sdp_field_spec(spec, msg->fields[i].key);
                        if (spec->kind == SDP_REQUEST && later)
                                return problem(p, SDP_E_UNKNOWN_FIELD, msg->fields[i].key,
                                               "%s takes a field %s from protocol version %u on "
                                               "(this connection speaks %u)", spec->name,
                                               msg->fields[i].key, later->since, version);
                        if (spec->kind == SDP_REQUEST)
                                return problem(p, SDP_E_UNKNOWN_FIELD, msg->fields[i].key,
                                               "%s does not take a field %s", spec->name,
                                               msg->fields[i].key);
                        continue;   /* replies and events: a newer daemon may add fields */
                }
                if (validate_field(f, msg->fields[i].value, p) < 0)
                        return -EINVAL;
        }
        for (const SdpFieldSpec *f = spec->fields; f->key; f++)
                if (f->required && !sdp_get(msg, f->key))
                        return problem(p, SDP_E_MISSING_FIELD, f->key, "%s requires field %s",
                                       spec->name, f->key);
        if (spec->one_of) {
                unsigned present = 0;
                char key[SDP_MAX_KEY + 1];
                const char *s = spec->one_of;
                while (*s) {
                        size_t n = strcspn(s, "|");
                        snprintf(key, sizeof key, "%.*s", (int)n, s);
                        present += sdp_get(msg, key) != NULL;
                        s += n + (s[n] == '|');
                }
                if (present != 1)
                        return problem(p, SDP_E_CONFLICTING_FIELDS, NULL,
                                       "%s requires exactly one of %s", spec->name, spec->one_of);
        }
        return 0;
}

/* KEY=VALUE pairs from s to end into msg (PROTOCOL.md §3). */
static int parse_fields(SdpMessage *msg, const char *s, const char *end, const void *buf, SdpProblem *p)
{
        size_t i;

        while (s < end) {
                const char *key;
                char value[SDP_MAX_MESSAGE];
                size_t klen, vlen = 0;
                char *k, *v;

                while (s < end && *s == ' ')
                        s++;
                if (s == end)
                        return problem(p, SDP_E_BAD_MESSAGE, NULL, "trailing space");
                key = s;
                while (s < end && is_key_char(*s))
                        s++;
                klen = (size_t)(s - key);
                if (klen == 0 || !(key[0] >= 'a' && key[0] <= 'z') || s == end || *s != '=')
                        return problem(p, SDP_E_BAD_MESSAGE, NULL,
                                       "expected key=value at byte %zu", (size_t)(key - (const char *)buf));
                if (klen > SDP_MAX_KEY)
                        return problem(p, SDP_E_BAD_MESSAGE, NULL, "key longer than %u bytes", SDP_MAX_KEY);
                s++; /* '=' */
                if (s < end && *s == '"') {
                        s++;
                        for (;;) {
                                if (s == end)
                                        return problem(p, SDP_E_BAD_MESSAGE, NULL,
                                                       "unterminated quoted value");
                                if (*s == '"')
                                        break;
                                if (*s == '\\') {
                                        s++;
                                        if (s == end || (*s != '"' && *s != '\\'))
                                                return problem(p, SDP_E_BAD_MESSAGE, NULL,
                                                               "only \\\" and \\\\ are escapes");
                                }
                                value[vlen++] = *s++;
                        }
                        s++; /* closing quote */
                        if (s < end && *s != ' ')
                                return problem(p, SDP_E_BAD_MESSAGE, NULL,
                                               "a space must follow a quoted value");
                } else {
                        while (s < end && *s != ' ') {
                                if (!is_bare_char(*s) && (unsigned char)*s < 0x80)
                                        return problem(p, SDP_E_BAD_MESSAGE, NULL,
                                                       "character 0x%02x needs a quoted value",
                                                       (unsigned char)*s);
                                value[vlen++] = *s++;
                        }
                        if (vlen == 0)
                                return problem(p, SDP_E_BAD_MESSAGE, NULL,
                                               "empty value: write key=\"\"");
                }
                /* charset of every value: UTF-8 without control characters */
                if (!sdp_text_valid(value, vlen, SDP_MAX_MESSAGE))
                        return problem(p, SDP_E_BAD_MESSAGE, NULL,
                                       "value of %.*s is not UTF-8 text", (int)klen, key);
                for (i = 0; i < msg->n_fields; i++)
                        if (strlen(msg->fields[i].key) == klen &&
                            memcmp(msg->fields[i].key, key, klen) == 0) {
                                char dup[SDP_MAX_KEY + 1];
                                snprintf(dup, sizeof dup, "%.*s", (int)klen, key);
                                return problem(p, SDP_E_DUPLICATE_FIELD, dup, "field %s given twice", dup);
                        }
                if (msg->n_fields >= SDP_MAX_FIELDS)
                        return problem(p, SDP_E_TOO_LARGE, NULL, "more than %u fields", SDP_MAX_FIELDS);
                k = store(msg, key, klen);
                v = store(msg, value, vlen);
                if (!k || !v)
                        return problem(p, SDP_E_TOO_LARGE, NULL, "message too large");
                msg->fields[msg->n_fields++] = (SdpField){ k, v };
        }
        return 0;
}

static int decode(SdpMessage *msg, const void *buf, size_t len, SdpProblem *p, bool requests_only,
                  unsigned version)
{
        const char *s = buf, *end;
        const char *verb;
        SdpError unknown = SDP_E_NONE;
        char utext[96];

        sdp_message_init(msg, SDP_TYPE_INVALID);
        if (p)
                *p = (SdpProblem){ .code = SDP_E_NONE };
        if (len > SDP_MAX_MESSAGE)
                return problem(p, SDP_E_TOO_LARGE, NULL, "message of %zu bytes exceeds %u", len,
                               SDP_MAX_MESSAGE);
        end = s + len;
        /* one optional line terminator, so a person can type messages with socat */
        /* "\n" or "\r\n"; a lone "\r" is left in place and refused as a bad character */
        if (end > s && end[-1] == '\n') {
                end--;
                if (end > s && end[-1] == '\r')
                        end--;
        }

        verb = s;
        while (s < end && ((*s >= 'a' && *s <= 'z') || *s == '-'))
                s++;
        if (s == verb)
                return problem(p, SDP_E_BAD_MESSAGE, NULL, "a message starts with a lower-case verb");
        if (s < end && *s != ' ')
                return problem(p, SDP_E_BAD_MESSAGE, NULL, "bad character after the verb");
        msg->type = sdp_type_from_name(verb, (size_t)(s - verb));
        if (msg->type == SDP_TYPE_INVALID) {
                unknown = SDP_E_UNKNOWN_REQUEST;
                snprintf(utext, sizeof utext, "unknown message '%.*s'",
                         (int)((s - verb) > 40 ? 40 : (s - verb)), verb);
        } else if (requests_only && sdp_type_kind(msg->type) != SDP_REQUEST) {
                /* A reply or event verb sent to the daemon is not a request, whatever its fields. */
                unknown = SDP_E_UNKNOWN_REQUEST;
                snprintf(utext, sizeof utext, "%s is not a request", sdp_type_name(msg->type));
        }

        if (unknown != SDP_E_NONE) {
                /* read on only to find the seq the error should carry; the verb decides */
                parse_fields(msg, s, end, buf, NULL);
                return problem(p, unknown, NULL, "%s", utext);
        }
        if (parse_fields(msg, s, end, buf, p) < 0)
                return -EINVAL;
        return sdp_validate_version(msg, version, p);
}

int sdp_decode(SdpMessage *msg, const void *buf, size_t len, SdpProblem *p)
{
        return decode(msg, buf, len, p, false, SDP_VERSION);
}

int sdp_decode_request(SdpMessage *msg, const void *buf, size_t len, unsigned version, SdpProblem *p)
{
        return decode(msg, buf, len, p, true, version ? version : SDP_VERSION);
}

static bool needs_quotes(const char *v)
{
        if (!*v)
                return true;
        for (; *v; v++)
                if (!is_bare_char(*v) && (unsigned char)*v < 0x80)   /* UTF-8 is bare (§3) */
                        return true;
        return false;
}

int sdp_encode(const SdpMessage *msg, char *buf, size_t size, SdpProblem *p)
{
        const char *name = sdp_type_name(msg->type);
        size_t limit = size < SDP_MAX_MESSAGE ? size : SDP_MAX_MESSAGE;
        size_t n = 0;

        if (!name)
                return problem(p, SDP_E_UNKNOWN_REQUEST, NULL, "unknown message type");
        if (sdp_validate(msg, p) < 0)
                return -EINVAL;

#define PUT(c) do { if (n >= limit) return -ENOSPC; buf[n++] = (c); } while (0)
        for (const char *c = name; *c; c++)
                PUT(*c);
        for (unsigned i = 0; i < msg->n_fields; i++) {
                const char *v = msg->fields[i].value;
                bool quote = needs_quotes(v);
                if (!sdp_text_valid(v, strlen(v), SDP_MAX_MESSAGE))
                        return problem(p, SDP_E_BAD_FIELD, msg->fields[i].key,
                                       "value of %s is not UTF-8 text", msg->fields[i].key);
                PUT(' ');
                for (const char *c = msg->fields[i].key; *c; c++)
                        PUT(*c);
                PUT('=');
                if (quote)
                        PUT('"');
                for (; *v; v++) {
                        if (*v == '"' || *v == '\\')
                                PUT('\\');
                        PUT(*v);
                }
                if (quote)
                        PUT('"');
        }
#undef PUT
        if (n < size)
                buf[n] = '\0';
        return (int)n;
}
