/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup-job — a job woken by a wake alarm: `backup-job schedule SECONDS` adds a one-shot
 * alarm named "backup" and waits; when it fires the daemon already holds the system for us
 * (no gap), we do the work (here: $BACKUP_WORK_MS of sleeping) and release the hold, after which
 * the machine sleeps again by itself. */
#include <stdio.h>
#include <stdlib.h>

#include <suspendctl.h>

int main(int argc, char **argv)
{
        GError *error = NULL;
        SuspendctlClient *c;
        guint32 id;
        gint64 next = 0;
        const char *work = g_getenv("BACKUP_WORK_MS");

        if (argc != 3 || !g_str_equal(argv[1], "schedule")) {
                fprintf(stderr, "usage: backup-job schedule SECONDS\n");
                return 2;
        }
        c = suspendctl_client_new(NULL, "backup-job", &error);
        if (!c)
                goto fail;
        id = suspendctl_client_alarm_add(c, "backup", 0, g_ascii_strtoull(argv[2], NULL, 10), NULL, 600, NULL,
                                         &next, &error);
        if (!id)
                goto fail;
        printf("backup-job: alarm #%u set for %lld\n", id, (long long)next);
        fflush(stdout);
        for (;;) {
                SuspendctlRecord *ev = suspendctl_client_next_event(c, -1, &error);
                if (!ev || g_str_equal(suspendctl_record_type(ev), "disconnected"))
                        goto fail;
                if (g_str_equal(suspendctl_record_type(ev), "alarm-fired") &&
                    suspendctl_record_get_u64(ev, "alarm", 0) == id) {
                        printf("backup-job: woken (attempt %s), backing up while the daemon holds the system\n",
                               suspendctl_record_get(ev, "attempt") ?: "none");
                        fflush(stdout);
                        g_usleep((work ? g_ascii_strtoull(work, NULL, 10) : 500) * 1000);
                        suspendctl_record_free(ev);
                        if (!suspendctl_client_alarm_release(c, id, &error))
                                goto fail;
                        printf("backup-job: done, hold released\n");
                        break;
                }
                suspendctl_record_free(ev);
        }
        suspendctl_client_free(c);
        return 0;
fail:
        fprintf(stderr, "backup-job: %s\n", error ? error->message : "the daemon went away");
        return 1;
}
