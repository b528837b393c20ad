/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c — structured logging: to the journal (with ATTEMPT_ID= on lines about an attempt) when
 * running under journald, to stderr otherwise. */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "daemon.h"

static bool use_journal, verbose;

void log_init(bool be_verbose)
{
        verbose = be_verbose;
        /* journald sets JOURNAL_STREAM for services whose stderr it reads */
        use_journal = getenv("JOURNAL_STREAM") != NULL;
}

void log_msg(int priority, uint64_t attempt, const char *fmt, ...)
{
        char text[1024];
        va_list ap;

        if (priority > LOG_INFO && !verbose)
                return;
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        if (use_journal) {
                if (attempt)
                        sd_journal_send("MESSAGE=%s", text, "PRIORITY=%d", priority,
                                        "ATTEMPT_ID=%llu", (unsigned long long)attempt,
                                        "SYSLOG_IDENTIFIER=suspendd", NULL);
                else
                        sd_journal_send("MESSAGE=%s", text, "PRIORITY=%d", priority,
                                        "SYSLOG_IDENTIFIER=suspendd", NULL);
                return;
        }
        if (attempt)
                fprintf(stderr, "suspendd[%d]: <%d> [attempt %llu] %s\n", (int)getpid(), priority,
                        (unsigned long long)attempt, text);
        else
                fprintf(stderr, "suspendd[%d]: <%d> %s\n", (int)getpid(), priority, text);
}
