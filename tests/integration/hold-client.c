/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hold-client — libsuspendctl's holds (suspendctl.h) driven line by line, for delegated.test:
 *   hold-client SOCKET
 * reads commands on stdin, one per line, and answers each with one line on stdout:
 *   new REASON | acquire | release | delegated | id | free | quit
 *   -> "ok", "ok 1"/"ok 0" (delegated), "ok ID" (id), or "error CODE MESSAGE" (the GError's code). */
#include <stdio.h>
#include <string.h>

#include "suspendctl.h"

static void answer(gboolean ok, GError *error)
{
        if (ok)
                printf("ok\n");
        else
                printf("error %d %s\n", error ? error->code : 0, error ? error->message : "?");
}

int main(int argc, char **argv)
{
        SuspendctlClient *c;
        SuspendctlHold *h = NULL;
        GError *error = NULL;
        char line[512];

        if (argc != 2) {
                fprintf(stderr, "usage: hold-client SOCKET\n");
                return 2;
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        c = suspendctl_client_new(argv[1], "hold-client", &error);
        if (!c) {
                printf("error %d %s\n", error->code, error->message);
                return 1;
        }
        printf("ready %u\n", suspendctl_client_get_id(c));
        while (fgets(line, sizeof line, stdin)) {
                gboolean ok = TRUE;
                line[strcspn(line, "\n")] = '\0';
                g_clear_error(&error);
                if (strncmp(line, "new ", 4) == 0) {
                        suspendctl_hold_free(h);
                        h = suspendctl_client_hold_new(c, line + 4);
                } else if (strcmp(line, "acquire") == 0) {
                        ok = suspendctl_hold_acquire(h, &error);
                } else if (strcmp(line, "release") == 0) {
                        ok = suspendctl_hold_release(h, &error);
                } else if (strcmp(line, "delegated") == 0) {
                        printf("ok %d\n", suspendctl_hold_is_delegated(h) ? 1 : 0);
                        continue;
                } else if (strcmp(line, "id") == 0) {
                        printf("ok %u\n", suspendctl_hold_get_id(h));
                        continue;
                } else if (strcmp(line, "free") == 0) {
                        suspendctl_hold_free(h);
                        h = NULL;
                } else if (strcmp(line, "quit") == 0) {
                        break;
                } else {
                        printf("error 0 unknown command\n");
                        continue;
                }
                answer(ok, error);
        }
        suspendctl_hold_free(h);
        suspendctl_client_free(c);
        return 0;
}
