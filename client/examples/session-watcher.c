/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session-watcher — what a desktop session manager does with libsuspendctl: watch every
 * attempt, flush state before answering ready, and say "stay awake" while the user is busy
 * (here: while the file named by $BUSY_FILE exists). Prints one line per event. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <suspendctl.h>

static void on_event(SuspendctlClient *c, const SuspendctlRecord *ev, gpointer data)
{
        GMainLoop *loop = data;
        const char *type = suspendctl_record_type(ev);
        const char *busy = g_getenv("BUSY_FILE");

        printf("session-watcher: %s attempt=%s\n", type, suspendctl_record_get(ev, "attempt") ?: "-");
        fflush(stdout);
        if (g_str_equal(type, "suspending")) {
                guint64 attempt = suspendctl_record_get_u64(ev, "attempt", 0);
                if (busy && access(busy, F_OK) == 0) {
                        suspendctl_client_veto(c, attempt, "the user is busy", NULL);
                } else {
                        /* "ready once my work is flushed" */
                        SuspendctlDeferral *d = suspendctl_client_defer(c, attempt);
                        sync();   /* the session's own flushing would go here */
                        suspendctl_deferral_complete(d, NULL);
                }
        } else if (g_str_equal(type, "disconnected")) {
                g_main_loop_quit(loop);
        }
}

int main(void)
{
        GError *error = NULL;
        GMainLoop *loop = g_main_loop_new(NULL, FALSE);
        SuspendctlClient *c = suspendctl_client_new(NULL, "session-watcher", &error);

        if (!c || !suspendctl_client_watch(c, "session", 2000, &error)) {
                fprintf(stderr, "session-watcher: %s\n", error->message);
                return 1;
        }
        suspendctl_client_set_event_handler(c, on_event, loop, NULL);
        suspendctl_client_attach(c, NULL);
        printf("session-watcher: watching\n");
        fflush(stdout);
        g_main_loop_run(loop);
        suspendctl_client_free(c);
        g_main_loop_unref(loop);
        return 0;
}
