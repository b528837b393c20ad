/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: decode arbitrary bytes; whatever decodes must re-encode and decode to the
 * same message (the codec's round-trip property). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sdp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static SdpMessage msg, again;
        static char wire[SDP_MAX_MESSAGE + 1];
        SdpProblem problem;
        int n;

        if (sdp_decode(&msg, data, size, &problem) < 0) {
                if (problem.code == SDP_E_NONE)
                        abort();   /* every failure must say why */
                return 0;
        }
        n = sdp_encode(&msg, wire, sizeof wire, &problem);
        if (n < 0)
                abort();           /* a valid message must encode */
        if (sdp_decode(&again, wire, (size_t)n, &problem) < 0)
                abort();
        if (again.type != msg.type || again.n_fields != msg.n_fields)
                abort();
        for (unsigned i = 0; i < msg.n_fields; i++)
                if (strcmp(msg.fields[i].key, again.fields[i].key) != 0 ||
                    strcmp(msg.fields[i].value, again.fields[i].value) != 0)
                        abort();
        return 0;
}
