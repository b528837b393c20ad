/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sdp-schema.h — internal: the per-type field tables of protocol/PROTOCOL.md. */
#ifndef SUSPENDD_SDP_SCHEMA_H
#define SUSPENDD_SDP_SCHEMA_H

#include "sdp.h"

typedef enum {
        SDP_FIELD_TEXT,   /* UTF-8, no control characters, max_len bytes */
        SDP_FIELD_NAME,   /* sdp_name_valid() */
        SDP_FIELD_U64,    /* decimal in [min, max] */
        SDP_FIELD_BOOL,   /* 0 or 1 */
        SDP_FIELD_ENUM,   /* one of a NULL-terminated word list */
        SDP_FIELD_CRON,   /* five fields of [0-9*,/-] separated by single spaces */
} SdpFieldType;

typedef struct {
        const char *key;
        SdpFieldType type;
        bool required;
        uint64_t min, max;        /* U64 */
        size_t max_len;           /* TEXT */
        const char *const *words; /* ENUM */
        unsigned since;           /* the protocol version that added it (0 = 1); requests only */
} SdpFieldSpec;

typedef struct {
        const char *name;
        SdpKind kind;
        const SdpFieldSpec *fields;   /* terminated by key == NULL */
        const char *one_of;           /* "a|b|c": exactly one of these must be present, or NULL */
} SdpTypeSpec;

const SdpTypeSpec *sdp_type_spec(SdpType type);
const SdpFieldSpec *sdp_field_spec(const SdpTypeSpec *spec, const char *key);

extern const char *const sdp_abort_reasons[];
extern const char *const sdp_item_types[];
extern const char *const sdp_sleep_states[];

#endif
