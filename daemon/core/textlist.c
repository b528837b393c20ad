/* SPDX-License-Identifier: GPL-2.0-or-later */
/* textlist.c — "A; B; and N more": the lists in replies and events (blockers=, holders=, refusal
 * texts) kept within a byte budget, so that every datagram fits SDP_MAX_MESSAGE (PROTOCOL.md §5). */
#include <string.h>

#include "daemon.h"

void text_list_init(TextList *l, size_t max, size_t budget)
{
        *l = (TextList){ .s = g_string_new(NULL), .max = max, .budget = budget };
}

#define MORE_ROOM 24   /* "; and 4294967295 more" */

void text_list_add(TextList *l, const char *entry)
{
        size_t room = l->budget > MORE_ROOM ? l->budget - MORE_ROOM : 0;
        size_t sep = l->n ? 2 : 0;

        if (l->more || l->n >= l->max || (l->n && l->s->len + sep + strlen(entry) > room)) {
                l->more++;
                return;
        }
        if (sep)
                g_string_append(l->s, "; ");
        g_string_append(l->s, entry);
        if (l->s->len > room) {   /* only the first entry gets here: cut it */
                g_string_set_size(l->s, sdp_text_cut(l->s->str, room > 3 ? room - 3 : 0));
                g_string_append(l->s, "...");
        }
        l->n++;
}

char *text_list_end(TextList *l)
{
        if (l->more)
                g_string_append_printf(l->s, "%sand %zu more", l->n ? "; " : "", l->more);
        return g_string_free(l->s, FALSE);
}
