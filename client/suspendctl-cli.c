/* SPDX-License-Identifier: GPL-2.0-or-later */
/* suspendctl — the administrator's command line for suspendd. See suspendctl(1). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "suspendctl.h"

static const char *socket_path;
static int timeout_ms = SUSPENDCTL_TIMEOUT_DEFAULT;   /* --timeout */

static const char *const usage_text =
"Usage: suspendctl [--socket PATH] [--timeout DURATION] COMMAND [ARGS]...\n"
"Control and inspect suspendd, the suspend daemon.\n"
"\n"
"Commands:\n"
"  status [--json]                     who blocks, watches, disables; alarms; recent attempts\n"
"  block [--why TEXT] -- CMD [ARG]...  keep the system awake while CMD runs\n"
"  suspend [--user]                    ask for a suspend and wait for its outcome\n"
"  hibernate [--user]                  the same for a hibernation\n"
"  hybrid-sleep [--user]               the same for hybrid sleep (image written, then suspend)\n"
"  suspend-then-hibernate [--user]     suspend, and hibernate after HibernateDelaySec\n"
"  mode [on-demand|immediate]          show or set the daemon's mode\n"
"  disable [--why TEXT] -- CMD [ARG]...  no suspend or hibernate at all while CMD runs\n"
"  alarm add (--at TIME|--in DURATION|--cron \"M H DOM MON DOW\") --name NAME\n"
"            [--hold DURATION] [-- CMD [ARG]...]\n"
"                                      wake the machine at a time, optionally to run CMD\n"
"  alarm list [--json]                 your alarms (root: all)\n"
"  alarm cancel NAME|ID                remove an alarm\n"
"  monitor [--json]                    print every event as it happens\n"
"  watch [--name NAME] [--budget DURATION] -- CMD [ARG]...\n"
"                                      run CMD at each attempt: ready if it exits 0, else veto\n"
"\n"
"Options:\n"
"  -s, --socket PATH   the daemon's socket (default $SUSPENDD_SOCKET or /run/suspendd/socket)\n"
"  -t, --timeout DURATION\n"
"                      how long to wait for each answer of the daemon, and for a suspend's\n"
"                      outcome (default 25s, suspend 120s; at most 1d; Nms: milliseconds;\n"
"                      0: no limit)\n"
"  -h, --help          show this help (COMMAND --help: help for one command)\n"
"  -V, --version       show the version\n"
"\n"
"Exit status: 0 success; 1 refused by the daemon or the attempt aborted; 2 bad arguments;\n"
"3 suspendd not running; 4 permission denied; 5 suspendd did not answer in time.\n"
"block and disable return CMD's status.\n";

/* The default reason of block/disable: the command line, made to fit a protocol reason. */
static char *joined_reason(char **argv)
{
        g_autofree char *line = g_strjoinv(" ", argv);
        return cli_reason(line);
}

static int usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
        va_list ap;
        fprintf(stderr, "suspendctl: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\nTry 'suspendctl --help'.\n");
        return EXIT_USAGE;
}

/* Map an error to a message on stderr and the documented exit code. */
static int fail(GError *error)
{
        int code = EXIT_REFUSED;
        if (g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_NOT_RUNNING) ||
            g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_DISCONNECTED))
                code = EXIT_NOT_RUNNING;
        else if (g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_PERMISSION_DENIED))
                code = EXIT_DENIED;
        else if (g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT))
                code = EXIT_TIMEOUT;
        fprintf(stderr, "suspendctl: %s%s\n",
                code == EXIT_DENIED ? "permission denied: " : code == EXIT_REFUSED ? "refused: "
                : code == EXIT_TIMEOUT ? "timed out: " : "",
                error->message);
        g_error_free(error);
        return code;
}

static SuspendctlClient *connect_or_fail(int *rc)
{
        GError *error = NULL;
        SuspendctlClient *c = suspendctl_client_new_with_timeout(socket_path, "suspendctl", timeout_ms, &error);
        if (!c)
                *rc = fail(error);
        return c;
}

static bool wants_help(int argc, char **argv)
{
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
                        return true;
        return false;
}

/* COMMAND --help: the usage lines of that command and a pointer to the manual. */
static int print_help(const char *cmd)
{
        gchar **lines = g_strsplit(usage_text, "\n", -1);
        bool in_cmd = false;
        printf("Usage: suspendctl [--socket PATH] [--timeout DURATION] %s ...\n", cmd);
        for (gchar **l = lines; *l; l++) {
                if (g_str_has_prefix(*l, "  ") && !g_str_has_prefix(*l, "   ") && *l + 2 == strstr(*l, cmd) &&
                    ((*l)[2 + strlen(cmd)] == ' ' || (*l)[2 + strlen(cmd)] == '\0'))
                        in_cmd = true;
                else if (!g_str_has_prefix(*l, "        "))
                        in_cmd = false;
                if (in_cmd)
                        printf("%s\n", *l);
        }
        g_strfreev(lines);
        printf("\nSee suspendctl(1) for details and exit codes.\n");
        return 0;
}

/* --- status --- */

static void json_record(GString *out, const SuspendctlRecord *r)
{
        g_string_append(out, "{");
        g_autofree char *type = cli_json_string(suspendctl_record_type(r));
        g_string_append_printf(out, "\"type\":%s", type);
        for (guint i = 0; i < suspendctl_record_n_fields(r); i++) {
                const char *k, *v;
                uint64_t n;
                suspendctl_record_field(r, i, &k, &v);
                if (strcmp(k, "seq") == 0 || strcmp(k, "type") == 0)
                        continue;
                if (cli_json_is_number(suspendctl_record_type(r), k, v)) {
                        n = g_ascii_strtoull(v, NULL, 10);
                        g_string_append_printf(out, ",\"%s\":%llu", k, (unsigned long long)n);
                } else {
                        g_autofree char *js = cli_json_string(v);
                        g_string_append_printf(out, ",\"%s\":%s", k, js);
                }
        }
        g_string_append(out, "}");
}

static const char *get(const SuspendctlRecord *r, const char *k)
{
        const char *v = suspendctl_record_get(r, k);
        return v ? v : "";
}

static char *ago(const SuspendctlRecord *r, const char *key)
{
        uint64_t since = suspendctl_record_get_u64(r, key, 0);
        time_t now = time(NULL);
        return cli_format_duration_ms(since && (uint64_t)now > since ? ((uint64_t)now - since) * 1000 : 0);
}

static char *format_time(uint64_t t)
{
        time_t tt = (time_t)t;
        struct tm tm;
        char buf[64];
        if (t == 0)
                return g_strdup("-");   /* a fired one-shot alarm still holding or kept to say why
                                         * its command did not run: no next run */
        localtime_r(&tt, &tm);
        strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
        return g_strdup(buf);
}

/* status: the daemon and kernel items */
static void print_daemon_and_kernel(GPtrArray *items)
{
        for (guint i = 0; i < items->len; i++) {
                const SuspendctlRecord *r = g_ptr_array_index(items, i);
                const char *t = suspendctl_record_type(r);
                if (strcmp(t, "daemon") == 0) {
                        printf("suspendd %s (pid %s): mode %s, state %s%s%s%s\n", get(r, "version"), get(r, "pid"),
                               get(r, "mode"), get(r, "state"),
                               strcmp(get(r, "dark_pending"), "1") == 0 ? " (dark resume: after the alarm's job: " : "",
                               strcmp(get(r, "dark_pending"), "1") == 0 ? get(r, "dark_sleep_state") : "",
                               strcmp(get(r, "dark_pending"), "1") == 0 ? ")" : "");
                        if (suspendctl_record_get_u64(r, "hibernate_at", 0)) {
                                g_autofree char *at = format_time(suspendctl_record_get_u64(r, "hibernate_at", 0));
                                printf("  suspend-then-hibernate: hibernates at %s\n", at);
                        }
                } else if (strcmp(t, "kernel") == 0) {
                        printf("kernel: states [%s], mem_sleep %s, sleep_mode %s, sleepctl %s, rtc %s\n",
                               get(r, "states"), get(r, "mem_sleep"), get(r, "sleep_mode"), get(r, "sleepctl"),
                               get(r, "rtc"));
                        printf("  hibernation: %s (disk %s)\n", get(r, "hibernate"), get(r, "disk"));
                        if (strcmp(get(r, "cooperative"), "1") == 0)
                                printf("  cooperative: direct writes to /sys/power/state wait while suspendd blocks\n");
                        if (*get(r, "holders"))
                                printf("  /dev/sleepctl holders (other processes, keep the system awake): %s\n",
                                       get(r, "holders"));
                        if (*get(r, "missing"))
                                printf("  missing: %s\n", get(r, "missing"));
                }
        }
}

/* status: the block set, or "none" */
static void print_blockers(GPtrArray *items)
{
        printf("blockers:\n");
        for (guint i = 0, n = 0; i < items->len || (!n && (printf("  none\n"), 0)); i++) {
                const SuspendctlRecord *r = g_ptr_array_index(items, i);
                g_autofree char *since = NULL;
                if (strcmp(suspendctl_record_type(r), "blocker") != 0)
                        continue;
                since = ago(r, "since");
                printf("  %-8s %s (pid %s, uid %s) for %s%s%s\n", get(r, "source"), get(r, "comm"), get(r, "pid"),
                       get(r, "uid"), since, *get(r, "reason") ? ": " : "", get(r, "reason"));
                n++;
        }
}

/* status: disables, watchers and registered fds */
static void print_holds(GPtrArray *items)
{
        for (guint i = 0; i < items->len; i++) {
                const SuspendctlRecord *r = g_ptr_array_index(items, i);
                const char *t = suspendctl_record_type(r);
                if (strcmp(t, "disable") == 0) {
                        g_autofree char *since = ago(r, "since");
                        printf("DISABLED by %s (pid %s, uid %s) for %s%s%s\n", *get(r, "comm") ? get(r, "comm") : "a previous run",
                               get(r, "pid"), get(r, "uid"), since, *get(r, "reason") ? ": " : "", get(r, "reason"));
                } else if (strcmp(t, "watcher") == 0) {
                        printf("watcher: %s (pid %s, uid %s), budget %s ms, late %s time(s)\n", get(r, "name"),
                               get(r, "pid"), get(r, "uid"), get(r, "budget_ms"), get(r, "late"));
                } else if (strcmp(t, "fd") == 0) {
                        printf("fd: client %s %s%s\n", get(r, "client"), get(r, "label"),
                               strcmp(get(r, "readable"), "1") == 0 ? " (readable)" : "");
                }
        }
}

/* status: the alarms, or "none" */
static void print_alarms(GPtrArray *items)
{
        printf("alarms:\n");
        for (guint i = 0, n = 0; i < items->len || (!n && (printf("  none\n"), 0)); i++) {
                const SuspendctlRecord *r = g_ptr_array_index(items, i);
                g_autofree char *next = NULL;
                if (strcmp(suspendctl_record_type(r), "alarm") != 0)
                        continue;
                next = format_time(suspendctl_record_get_u64(r, "next", 0));
                printf("  #%s %-16s uid %-5s next %s  %s%s%s  hold %ss%s%s%s\n", get(r, "id"), get(r, "name"),
                       get(r, "owner"), next,
                       *get(r, "cron") ? "cron \"" : "once", get(r, "cron"), *get(r, "cron") ? "\"" : "",
                       get(r, "hold"), *get(r, "command") ? "  command: " : "", get(r, "command"),
                       strcmp(get(r, "holding"), "1") == 0 ? "  [HOLDING]" : "");
                n++;
        }
}

/* status: the attempt in progress and the history, or "none yet" */
static void print_attempts(GPtrArray *items)
{
        printf("attempts (newest first):\n");
        for (guint i = 0, n = 0; i < items->len || (!n && (printf("  none yet\n"), 0)); i++) {
                const SuspendctlRecord *r = g_ptr_array_index(items, i);
                if (strcmp(suspendctl_record_type(r), "attempt") != 0)
                        continue;
                printf("  #%-4s %-11s %-11s", get(r, "attempt"), get(r, "kind"), get(r, "result"));
                if (*get(r, "sleep_state") && strcmp(get(r, "sleep_state"), "suspend") != 0)
                        printf(" [%s]", get(r, "sleep_state"));
                if (strcmp(get(r, "result"), "resumed") == 0) {
                        g_autofree char *slept = cli_format_duration_ms(suspendctl_record_get_u64(r, "slept_ms", 0));
                        printf(" slept %s, woke by %s%s", slept, get(r, "wake"),
                               strcmp(get(r, "dark"), "1") == 0 ? " (dark resume)" : "");
                } else if (strcmp(get(r, "result"), "aborted") == 0) {
                        printf(" %s%s%s", get(r, "reason"), *get(r, "detail") ? ": " : "", get(r, "detail"));
                } else {
                        printf(" (%s)", get(r, "state"));
                }
                printf("\n");
                n++;
        }
}

/* status: the counters */
static void print_counters(GPtrArray *items)
{
        for (guint i = 0; i < items->len; i++) {
                const SuspendctlRecord *r = g_ptr_array_index(items, i);
                if (strcmp(suspendctl_record_type(r), "counters") == 0)
                        printf("counters: %s attempts, %s suspends, %s aborts, %s dark resumes, %s clients, %s late watchers\n",
                               get(r, "attempts"), get(r, "suspends"), get(r, "aborts"), get(r, "dark_resumes"),
                               get(r, "clients"), get(r, "late_watchers"));
        }
}

static void print_status(GPtrArray *items)
{
        print_daemon_and_kernel(items);
        print_blockers(items);
        print_holds(items);
        print_alarms(items);
        print_attempts(items);
        print_counters(items);
}

static void print_json_items(GPtrArray *items)
{
        GString *out = g_string_new("[");
        for (guint i = 0; i < items->len; i++) {
                if (i)
                        g_string_append(out, ",");
                json_record(out, g_ptr_array_index(items, i));
        }
        g_string_append(out, "]\n");
        fputs(out->str, stdout);
        g_string_free(out, TRUE);
}

static int cmd_status(int argc, char **argv)
{
        bool json = false;
        int rc = 0;
        SuspendctlClient *c;
        GPtrArray *items;
        GError *error = NULL;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--json") == 0)
                        json = true;
                else
                        return usage_error("status: unexpected argument '%s'", argv[i]);
        }
        if (!(c = connect_or_fail(&rc)))
                return rc;
        items = suspendctl_client_status(c, &error);
        if (!items) {
                suspendctl_client_free(c);
                return fail(error);
        }
        if (json)
                print_json_items(items);
        else
                print_status(items);
        g_ptr_array_unref(items);
        suspendctl_client_free(c);
        return 0;
}

/* --- running a command under a hold --- */

static pid_t child_pid;

static void forward_signal(int sig)
{
        if (child_pid > 0)
                kill(child_pid, sig);
}

static int exit_status_of(int status)
{
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return 1;
}

static pid_t spawn(char **argv)
{
        pid_t pid = fork();
        if (pid == 0) {
                execvp(argv[0], argv);
                fprintf(stderr, "suspendctl: cannot run %s: %s\n", argv[0], strerror(errno));
                _exit(errno == ENOENT ? 127 : 126);
        }
        return pid;
}

/* Wait for the child; `on_tick` (may be NULL) runs every 200 ms, e.g. to keep a hold alive.
 * While it runs, SIGINT/SIGTERM/SIGHUP go to the child (it decides how to end); afterwards
 * they are ours again, so `watch` between attempts dies of a plain SIGTERM. */
static int wait_child(pid_t pid, void (*on_tick)(gpointer), gpointer data)
{
        static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
        struct sigaction sa = { .sa_handler = forward_signal }, old[G_N_ELEMENTS(forwarded)];
        int status, rc = 1;

        if (pid < 0)
                return 126;
        child_pid = pid;
        for (size_t i = 0; i < G_N_ELEMENTS(forwarded); i++)
                sigaction(forwarded[i], &sa, &old[i]);
        for (;;) {
                pid_t r = waitpid(pid, &status, on_tick ? WNOHANG : 0);
                if (r == pid) {
                        rc = exit_status_of(status);
                        break;
                }
                if (r < 0 && errno != EINTR)
                        break;
                if (r == 0 && on_tick) {
                        on_tick(data);
                        g_usleep(200000);
                }
        }
        child_pid = 0;
        for (size_t i = 0; i < G_N_ELEMENTS(forwarded); i++)
                sigaction(forwarded[i], &old[i], NULL);
        return rc;
}

static int split_command(int argc, char **argv, int *cmd_index)
{
        for (int i = 1; i < argc; i++)
                if (strcmp(argv[i], "--") == 0) {
                        *cmd_index = i + 1;
                        return i + 1 < argc ? 0 : -1;
                }
        return -1;
}

static int cmd_block(int argc, char **argv)
{
        const char *why = NULL;
        int cmd = 0, rc = 0, i;
        SuspendctlClient *c;
        SuspendctlBlock *b;
        GError *error = NULL;
        g_autofree char *auto_why = NULL;

        if (split_command(argc, argv, &cmd) < 0)
                return usage_error("block: give the command after --, e.g. suspendctl block -- make");
        for (i = 1; i < cmd - 1; i++) {
                if (strcmp(argv[i], "--why") == 0 && i + 1 < cmd - 1)
                        why = argv[++i];
                else
                        return usage_error("block: unexpected argument '%s'", argv[i]);
        }
        if (!why)
                why = auto_why = joined_reason(argv + cmd);
        if (!(c = connect_or_fail(&rc)))
                return rc;
        /* acknowledged: the block is in place before the command starts */
        b = suspendctl_client_block_acked(c, why, &error);
        if (!b) {
                suspendctl_client_free(c);
                return fail(error);
        }
        rc = wait_child(spawn(argv + cmd), NULL, NULL);
        /* The block ends with the connection, also if we are killed. Closing it is all: an
         * unblock before the close would be two wakeup events for the daemon (EPOLLWAKEUP), and
         * a writer that waited behind the block in the kernel's cooperative mode could save its
         * count between them and be aborted by the second (EBUSY). */
        suspendctl_block_forget(b);
        suspendctl_client_free(c);
        return rc;
}

/* "resumed after", or for another state "resumed from hibernate after" (suspendctl(1)) */
static void print_outcome(const SuspendctlRecord *r)
{
        g_autofree char *slept = cli_format_duration_ms(suspendctl_record_get_u64(r, "slept_ms", 0));
        const char *state = get(r, "sleep_state");
        bool plain = !*state || strcmp(state, "suspend") == 0;

        printf("attempt %s: resumed %s%s%safter %s, woken by %s%s%s%s\n", get(r, "attempt"), plain ? "" : "from ",
               plain ? "" : state, plain ? "" : " ", slept, get(r, "wake"),
               *get(r, "alarm") ? " (alarm " : "", get(r, "alarm"), *get(r, "alarm") ? ")" : "");
}

/* suspend, hibernate, hybrid-sleep, suspend-then-hibernate: the command names the state */
static SuspendctlSleepState state_of_command(const char *cmd)
{
        if (strcmp(cmd, "hibernate") == 0)
                return SUSPENDCTL_SLEEP_HIBERNATE;
        if (strcmp(cmd, "hybrid-sleep") == 0)
                return SUSPENDCTL_SLEEP_HYBRID;
        if (strcmp(cmd, "suspend-then-hibernate") == 0)
                return SUSPENDCTL_SLEEP_SUSPEND_THEN_HIBERNATE;
        return SUSPENDCTL_SLEEP_SUSPEND;
}

static int cmd_suspend(int argc, char **argv)
{
        bool user = false;
        int rc = 0;
        SuspendctlClient *c;
        SuspendctlRecord *outcome = NULL;
        GError *error = NULL;
        guint64 attempt = 0;
        SuspendctlSleepState state = state_of_command(argv[0]);

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--user") == 0)
                        user = true;
                else
                        return usage_error("%s: unexpected argument '%s'", argv[0], argv[i]);
        }
        if (!(c = connect_or_fail(&rc)))
                return rc;
        if (isatty(STDOUT_FILENO)) {
                printf("asking suspendd for a%s %s…\n", user ? " forced (user)" : "n application", argv[0]);
                fflush(stdout);
        }
        if (!suspendctl_client_sleep(c, state, user, &attempt, &outcome, &error)) {
                if (g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_ABORTED)) {
                        printf("attempt %llu: aborted: %s%s%s\n", (unsigned long long)attempt, get(outcome, "reason"),
                               *get(outcome, "detail") ? ": " : "", get(outcome, "detail"));
                        suspendctl_record_free(outcome);
                        g_error_free(error);
                        suspendctl_client_free(c);
                        return EXIT_REFUSED;
                }
                suspendctl_client_free(c);
                return fail(error);
        }
        if (attempt == 0)
                printf("suspendd is in immediate mode: it suspends by itself whenever nothing blocks\n");
        else
                print_outcome(outcome);
        suspendctl_record_free(outcome);
        suspendctl_client_free(c);
        return 0;
}

static int cmd_mode(int argc, char **argv)
{
        int rc = 0;
        SuspendctlClient *c;
        GError *error = NULL;
        g_autofree char *mode = NULL;

        if (argc > 2)
                return usage_error("mode: at most one argument");
        if (argc == 2 && strcmp(argv[1], "on-demand") != 0 && strcmp(argv[1], "immediate") != 0)
                return usage_error("mode: '%s' is not on-demand or immediate", argv[1]);
        if (!(c = connect_or_fail(&rc)))
                return rc;
        if (argc == 2 && !suspendctl_client_set_mode(c, argv[1], &error)) {
                suspendctl_client_free(c);
                return fail(error);
        }
        mode = suspendctl_client_get_mode(c, &error);
        suspendctl_client_free(c);
        if (!mode)
                return fail(error);
        printf("%s\n", mode);
        return 0;
}

typedef struct {
        SuspendctlClient *client;
        const char *why;
        gint64 lost_since;
} DisableHold;

/* If the daemon restarts while we hold a disable, reconnect and take it again within its grace
 * period (PROTOCOL.md §10). */
static void keep_disabled(gpointer data)
{
        DisableHold *h = data;
        struct pollfd p;
        GError *error = NULL;

        if (h->client) {
                p = (struct pollfd){ suspendctl_client_get_fd(h->client), POLLIN, 0 };
                if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLHUP | POLLERR)))
                        return;
                fprintf(stderr, "suspendctl: lost suspendd; reconnecting to keep suspend disabled\n");
                suspendctl_client_free(h->client);
                h->client = NULL;
                h->lost_since = g_get_monotonic_time();
        }
        h->client = suspendctl_client_new_with_timeout(socket_path, "suspendctl disable", timeout_ms, NULL);
        if (h->client && !suspendctl_client_disable(h->client, h->why, &error)) {
                fprintf(stderr, "suspendctl: could not disable again: %s\n", error->message);
                g_clear_error(&error);
                suspendctl_client_free(h->client);
                h->client = NULL;
        } else if (h->client) {
                fprintf(stderr, "suspendctl: suspend disabled again\n");
        }
}

static int cmd_disable(int argc, char **argv)
{
        int cmd = 0, rc = 0, i;
        DisableHold h = { 0 };
        GError *error = NULL;
        g_autofree char *auto_why = NULL;

        if (split_command(argc, argv, &cmd) < 0)
                return usage_error("disable: give the command after --, e.g. suspendctl disable -- fwupdmgr update");
        for (i = 1; i < cmd - 1; i++) {
                if (strcmp(argv[i], "--why") == 0 && i + 1 < cmd - 1)
                        h.why = argv[++i];
                else
                        return usage_error("disable: unexpected argument '%s'", argv[i]);
        }
        if (!h.why)
                h.why = auto_why = joined_reason(argv + cmd);
        if (!(h.client = connect_or_fail(&rc)))
                return rc;
        if (!suspendctl_client_disable(h.client, h.why, &error)) {
                suspendctl_client_free(h.client);
                return fail(error);
        }
        rc = wait_child(spawn(argv + cmd), keep_disabled, &h);
        suspendctl_client_free(h.client);
        return rc;
}

/* alarm add --name NAME (--at T | --in D | --cron SPEC) [--hold D] [-- COMMAND...] */
static int cmd_alarm_add(int argc, char **argv)
{
        int rc = 0;
        SuspendctlClient *c;
        GError *error = NULL;

        const char *name = NULL, *cron = NULL;
        int64_t at = 0, in = 0, hold = 0, next = 0;
        int cmd = argc, given = 0;
        g_autofree char *command = NULL;
        guint32 id;

        for (int i = 2; i < argc; i++) {
                const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
                if (strcmp(a, "--") == 0) {
                        cmd = i + 1;
                        break;
                }
                if (!v)
                        return usage_error("alarm add: %s needs a value", a);
                if (strcmp(a, "--name") == 0)
                        name = v;
                else if (strcmp(a, "--at") == 0) {
                        if ((at = cli_parse_time(v, time(NULL))) < 0)
                                return usage_error("alarm add: bad time '%s' (YYYY-MM-DD HH:MM[:SS], HH:MM or @UNIX)", v);
                        if (at <= time(NULL))
                                return usage_error("alarm add: --at %s is not in the future", v);
                        given++;
                } else if (strcmp(a, "--in") == 0) {
                        if ((in = cli_parse_duration(v)) <= 0 || in > 315360000)
                                return usage_error("alarm add: bad duration '%s' (e.g. 90, 90s, 5m, 2h, 1d, 1h30m; at most 3650d)", v);
                        given++;
                } else if (strcmp(a, "--cron") == 0) {
                        cron = v;
                        given++;
                } else if (strcmp(a, "--hold") == 0) {
                        if ((hold = cli_parse_duration(v)) <= 0 || hold > 86400)
                                return usage_error("alarm add: bad hold duration '%s' (1s to 1d)", v);
                } else
                        return usage_error("alarm add: unexpected argument '%s'", a);
                i++;
        }
        if (!name)
                return usage_error("alarm add: --name is required");
        if (given != 1)
                return usage_error("alarm add: give exactly one of --at, --in, --cron");
        if (cmd < argc) {
                GString *s = g_string_new(NULL);
                for (int i = cmd; i < argc; i++) {
                        g_autofree char *q = g_shell_quote(argv[i]);
                        g_string_append_printf(s, "%s%s", i > cmd ? " " : "", q);
                }
                command = g_string_free(s, FALSE);
        }
        if (!(c = connect_or_fail(&rc)))
                return rc;
        id = suspendctl_client_alarm_add(c, name, at, (guint64)in, cron, (guint)hold, command, &next, &error);
        suspendctl_client_free(c);
        if (!id)
                return fail(error);
        {
                g_autofree char *when = format_time((uint64_t)next);
                printf("alarm #%u %s: next at %s\n", id, name, when);
        }
        return 0;
}

static int cmd_alarm_list(int argc, char **argv)
{
        int rc = 0;
        SuspendctlClient *c;
        GError *error = NULL;

        bool json = argc > 2 && strcmp(argv[2], "--json") == 0;
        GPtrArray *items;
        if (argc > 2 + json)
                return usage_error("alarm list: unexpected argument '%s'", argv[2 + json]);
        if (!(c = connect_or_fail(&rc)))
                return rc;
        items = suspendctl_client_alarm_list(c, &error);
        suspendctl_client_free(c);
        if (!items)
                return fail(error);
        if (json) {
                print_json_items(items);
        } else if (items->len == 0) {
                printf("no alarms\n");
        } else {
                for (guint i = 0; i < items->len; i++) {
                        const SuspendctlRecord *r = g_ptr_array_index(items, i);
                        g_autofree char *next = format_time(suspendctl_record_get_u64(r, "next", 0));
                        printf("#%s\t%s\tuid %s\tnext %s\t%s%s\thold %ss\t%s%s%s\n", get(r, "id"), get(r, "name"),
                               get(r, "owner"), next, *get(r, "cron") ? "cron " : "once", get(r, "cron"),
                               get(r, "hold"), get(r, "command"),
                               /* why the last firing ran no command (a locked account...) */
                               *get(r, "not_run") ? "\tNOT RUN: " : "", get(r, "not_run"));
                }
        }
        g_ptr_array_unref(items);
        return 0;
}

static int cmd_alarm_cancel(int argc, char **argv)
{
        int rc = 0;
        SuspendctlClient *c;
        GError *error = NULL;

        bool numeric, ok;
        guint64 id;
        if (argc != 3)
                return usage_error("alarm cancel: give one alarm NAME or ID");
        if (!argv[2][0])
                return usage_error("alarm cancel: the alarm NAME or ID is empty");
        id = strlen(argv[2]) <= 10 ? g_ascii_strtoull(argv[2], NULL, 10) : 0;
        numeric = strspn(argv[2], "0123456789") == strlen(argv[2]) && id >= 1 && id <= G_MAXUINT32;
        if (!(c = connect_or_fail(&rc)))
                return rc;
        /* A name first (digits make a valid name too); a number that names none of the
         * caller's alarms is an id. */
        ok = suspendctl_client_alarm_cancel(c, 0, argv[2], &error);
        if (!ok && numeric && g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_NOT_FOUND)) {
                g_clear_error(&error);
                ok = suspendctl_client_alarm_cancel(c, (guint32)id, NULL, &error);
        }
        if (!ok) {
                suspendctl_client_free(c);
                return fail(error);
        }
        suspendctl_client_free(c);
        printf("alarm %s cancelled\n", argv[2]);
        return 0;
}

static int cmd_alarm(int argc, char **argv)
{
        if (argc < 2)
                return usage_error("alarm: add, list or cancel?");
        if (strcmp(argv[1], "add") == 0)
                return cmd_alarm_add(argc, argv);
        if (strcmp(argv[1], "list") == 0)
                return cmd_alarm_list(argc, argv);
        if (strcmp(argv[1], "cancel") == 0)
                return cmd_alarm_cancel(argc, argv);
        return usage_error("alarm: unknown subcommand '%s'", argv[1]);
}

static void print_event(const SuspendctlRecord *r, bool json)
{
        if (json) {
                GString *out = g_string_new(NULL);
                json_record(out, r);
                printf("%s\n", out->str);
                g_string_free(out, TRUE);
        } else {
                char when[16];
                time_t now = time(NULL);
                struct tm tm;
                localtime_r(&now, &tm);
                strftime(when, sizeof when, "%H:%M:%S", &tm);
                printf("%s %-15s", when, suspendctl_record_type(r));
                for (guint i = 0; i < suspendctl_record_n_fields(r); i++) {
                        const char *k, *v;
                        suspendctl_record_field(r, i, &k, &v);
                        printf(strchr(v, ' ') || !*v ? " %s=\"%s\"" : " %s=%s", k, v);
                }
                printf("\n");
        }
        fflush(stdout);
}

static int cmd_monitor(int argc, char **argv)
{
        bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
        int rc = 0;
        SuspendctlClient *c;
        GError *error = NULL;

        if (argc > 1 + json)
                return usage_error("monitor: unexpected argument '%s'", argv[1 + json]);
        if (!(c = connect_or_fail(&rc)))
                return rc;
        if (!suspendctl_client_monitor(c, &error)) {
                suspendctl_client_free(c);
                return fail(error);
        }
        for (;;) {
                SuspendctlRecord *r = suspendctl_client_next_event(c, -1, NULL);
                bool gone = !r || strcmp(suspendctl_record_type(r), "disconnected") == 0;
                if (r)
                        print_event(r, json);
                suspendctl_record_free(r);
                if (gone)
                        break;
        }
        suspendctl_client_free(c);
        fprintf(stderr, "suspendctl: suspendd closed the connection\n");
        return EXIT_NOT_RUNNING;
}

static int cmd_watch(int argc, char **argv)
{
        const char *name = "suspendctl watch";
        int64_t budget = 0;
        int cmd = 0, rc = 0, i;
        SuspendctlClient *c;
        GError *error = NULL;

        if (split_command(argc, argv, &cmd) < 0)
                return usage_error("watch: give the command after --");
        for (i = 1; i < cmd - 1; i++) {
                if (strcmp(argv[i], "--name") == 0 && i + 1 < cmd - 1)
                        name = argv[++i];
                else if (strcmp(argv[i], "--budget") == 0 && i + 1 < cmd - 1) {
                        const char *v = argv[++i];
                        size_t n = strlen(v);
                        budget = n > 2 && strcmp(v + n - 2, "ms") == 0 ? atoll(v) : cli_parse_duration(v) * 1000;
                        if (budget <= 0 || budget > 60000)
                                return usage_error("watch: bad budget '%s' (up to 60s)", v);
                } else
                        return usage_error("watch: unexpected argument '%s'", argv[i]);
        }
        if (!(c = connect_or_fail(&rc)))
                return rc;
        if (!suspendctl_client_watch(c, name, (guint)budget, &error)) {
                suspendctl_client_free(c);
                return fail(error);
        }
        for (;;) {
                SuspendctlRecord *r = suspendctl_client_next_event(c, -1, NULL);
                const char *t = r ? suspendctl_record_type(r) : "disconnected";
                if (strcmp(t, "disconnected") == 0) {
                        suspendctl_record_free(r);
                        break;
                }
                if (strcmp(t, "suspending") == 0) {
                        guint64 attempt = suspendctl_record_get_u64(r, "attempt", 0);
                        g_autofree char *env = g_strdup_printf("%llu", (unsigned long long)attempt);
                        int status;
                        g_setenv("SUSPENDD_ATTEMPT", env, TRUE);
                        g_setenv("SUSPENDD_KIND", get(r, "kind"), TRUE);
                        status = wait_child(spawn(argv + cmd), NULL, NULL);
                        if (status == 0) {
                                suspendctl_client_ready(c, attempt, NULL);
                        } else {
                                g_autofree char *text = g_strdup_printf("%s exited with status %d", argv[cmd], status);
                                g_autofree char *why = cli_reason(text);
                                suspendctl_client_veto(c, attempt, why, NULL);
                        }
                }
                print_event(r, false);
                suspendctl_record_free(r);
        }
        suspendctl_client_free(c);
        fprintf(stderr, "suspendctl: suspendd closed the connection\n");
        return EXIT_NOT_RUNNING;
}

/* --timeout: 0 is no limit; the library's DEFAULT stays when the option is not given. */
static int set_timeout(const char *v)
{
        int64_t ms = v ? cli_parse_timeout(v) : -1;
        if (ms < 0)
                return -1;
        timeout_ms = ms == 0 ? SUSPENDCTL_TIMEOUT_INFINITE : (int)ms;
        return 0;
}

int main(int argc, char **argv)
{
        int i = 1;
        static const struct {
                const char *name;
                int (*run)(int, char **);
        } commands[] = {
                { "status", cmd_status }, { "block", cmd_block }, { "suspend", cmd_suspend },
                { "hibernate", cmd_suspend }, { "hybrid-sleep", cmd_suspend },
                { "suspend-then-hibernate", cmd_suspend },
                { "mode", cmd_mode }, { "disable", cmd_disable }, { "alarm", cmd_alarm },
                { "monitor", cmd_monitor }, { "watch", cmd_watch },
        };

        setvbuf(stdout, NULL, _IOLBF, 0);
        while (i < argc && argv[i][0] == '-') {
                if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
                        fputs(usage_text, stdout);
                        return 0;
                }
                if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
                        printf("suspendctl %s\n", PACKAGE_VERSION);
                        return 0;
                }
                if ((strcmp(argv[i], "-s") == 0 || strcmp(argv[i], "--socket") == 0) && i + 1 < argc) {
                        socket_path = argv[i + 1];
                        i += 2;
                        continue;
                }
                if (strncmp(argv[i], "--socket=", 9) == 0) {
                        socket_path = argv[i] + 9;
                        i++;
                        continue;
                }
                if (strcmp(argv[i], "-s") == 0 || strcmp(argv[i], "--socket") == 0)
                        return usage_error("%s needs a PATH", argv[i]);
                if (strcmp(argv[i], "-t") == 0 || strcmp(argv[i], "--timeout") == 0 ||
                    strncmp(argv[i], "--timeout=", 10) == 0) {
                        const char *v = strncmp(argv[i], "--timeout=", 10) == 0 ? argv[i] + 10
                                        : i + 1 < argc ? argv[++i] : NULL;
                        if (!v)
                                return usage_error("%s needs a DURATION", argv[i]);
                        if (set_timeout(v) < 0)
                                return usage_error("bad timeout '%s' (a duration such as 10s, 2m or 500ms, at most 1d; 0: no limit)", v);
                        i++;
                        continue;
                }
                return usage_error("unknown option '%s'", argv[i]);
        }
        if (i >= argc)
                return usage_error("no command given");
        for (size_t k = 0; k < G_N_ELEMENTS(commands); k++)
                if (strcmp(argv[i], commands[k].name) == 0) {
                        if (wants_help(argc - i, argv + i))
                                return print_help(commands[k].name);
                        return commands[k].run(argc - i, argv + i);
                }
        return usage_error("unknown command '%s'", argv[i]);
}
