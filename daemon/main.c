/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c — suspendd's command line; everything else lives in the modules (daemon.h). */
#include <errno.h>
#include <getopt.h>
#include <glib-unix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon.h"

#define DEFAULT_CONFIG "/etc/suspendd/suspendd.conf"

static void usage(FILE *f)
{
        fprintf(f,
"Usage: suspendd [OPTION]...\n"
"The suspend daemon: the only writer of /sys/power/state. Clients talk to it on a\n"
"SOCK_SEQPACKET socket (protocol/PROTOCOL.md); suspendctl(1) is its command line client.\n"
"\n"
"  -s, --socket=PATH       listen on PATH (default " SD_DEFAULT_SOCKET_PATH "); ignored when\n"
"                          systemd passes a socket (socket activation); a PATH longer than\n"
"                          107 bytes is refused (exit 2)\n"
"  -r, --sysfs-root=DIR    find sys/power, sys/class/rtc, sys/class/wakeup and dev/sleepctl\n"
"                          under DIR instead of / (tests use a fake kernel)\n"
"  -S, --state-dir=DIR     persistent state: alarms, mode, attempt ids, disable\n"
"                          (default " SD_DEFAULT_STATE_DIR ")\n"
"  -c, --config=FILE       configuration (default " DEFAULT_CONFIG "); see suspendd.conf(5)\n"
"  -m, --mode=MODE         start in MODE: on-demand or immediate (default: the saved mode,\n"
"                          else on-demand)\n"
"  -v, --verbose           log debug messages\n"
"  -h, --help              show this help and exit\n"
"  -V, --version           show the version and exit\n"
"\n"
"Exit status: 0 after SIGTERM, SIGINT or SIGHUP, 1 on a start-up error, 2 on bad usage\n"
"(an unknown option, a bad --mode, a --socket path that is too long).\n");
}

static gboolean on_signal(gpointer data)
{
        Daemon *d = data;
        log_info("stopping");
        d->shutting_down = true;
        g_main_loop_quit(d->loop);
        return G_SOURCE_CONTINUE;
}

/* Each client costs one fd (plus its passed fds): raise the soft limit towards the hard one so
 * MaxClients, not a default of 1024, is what bounds connections. */
static void raise_fd_limit(unsigned max_clients)
{
        struct rlimit rl;
        rlim_t want = (rlim_t)max_clients + 64;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
                return;
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                log_warn("cannot raise the open-file limit to %llu: %s", (unsigned long long)want, g_strerror(errno));
}

/* Test-only mutants (HACKING.md, "Mutation checks") say what they are. */
#if defined(SUSPENDD_MUTANT_NO_COUNT_WRITE)
#define SUSPENDD_MUTANT "no-count-write"
#elif defined(SUSPENDD_MUTANT_NO_EPOLLWAKEUP)
#define SUSPENDD_MUTANT "no-epollwakeup"
#endif

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "socket", required_argument, NULL, 's' },
                { "sysfs-root", required_argument, NULL, 'r' },
                { "state-dir", required_argument, NULL, 'S' },
                { "config", required_argument, NULL, 'c' },
                { "mode", required_argument, NULL, 'm' },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { NULL, 0, NULL, 0 },
        };
        const char *socket_path = SD_DEFAULT_SOCKET_PATH, *root = "/", *state_dir = SD_DEFAULT_STATE_DIR;
        const char *config = DEFAULT_CONFIG, *mode = NULL;
        g_autofree char *warnings = NULL, *error = NULL;
        bool verbose = false;
        Daemon *d;
        int opt, r, passed = -1;
        char missing[512];

        while ((opt = getopt_long(argc, argv, "s:r:S:c:m:vhV", opts, NULL)) != -1) {
                switch (opt) {
                case 's': socket_path = optarg; break;
                case 'r': root = optarg; break;
                case 'S': state_dir = optarg; break;
                case 'c': config = optarg; break;
                case 'm': mode = optarg; break;
                case 'v': verbose = true; break;
                case 'h': usage(stdout); return 0;
#ifdef SUSPENDD_MUTANT
                case 'V': printf("suspendd %s (TEST MUTANT %s: deliberately broken, never install)\n",
                                 PACKAGE_VERSION, SUSPENDD_MUTANT); return 0;
#else
                case 'V': printf("suspendd %s\n", PACKAGE_VERSION); return 0;
#endif
                default: usage(stderr); return 2;
                }
        }
        if (optind < argc || (mode && strcmp(mode, "on-demand") != 0 && strcmp(mode, "immediate") != 0)) {
                usage(stderr);
                return 2;
        }
        /* bind() would need it cut, and a cut path names another file (issue 15) */
        if (strlen(socket_path) >= sizeof(((struct sockaddr_un *)NULL)->sun_path)) {
                fprintf(stderr, "suspendd: --socket: the path is too long (%zu bytes; a UNIX socket path "
                        "has at most %zu): %s\n", strlen(socket_path),
                        sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1, socket_path);
                return 2;
        }
        log_init(verbose);

        d = daemon_new(state_dir, socket_path);

        if (config_load(&d->cfg, config, &warnings, &error) < 0) {
                log_err("configuration: %s", error);
                daemon_free(d);
                return 1;
        }
        if (warnings)
                log_warn("configuration %s: %s", config, warnings);
        raise_fd_limit(d->cfg.max_clients);
        r = sysfs_open(root, &d->sysfs);
        if (r < 0 || (r = sysfs_detect(d->sysfs, &d->features)) < 0) {
                log_err("cannot use the kernel interfaces under %s: %s", root, g_strerror(-r));
                daemon_free(d);
                return 1;
        }
        if (!sysfs_state_supported(&d->features, d->cfg.sleep_state)) {
                log_err("the kernel does not offer '%s' in %s/sys/power/state (it offers '%s')",
                        d->cfg.sleep_state, root, d->features.states);
                daemon_free(d);
                return 1;
        }
        sysfs_describe_missing(&d->features, missing, sizeof missing);
        log_info("kernel under %s: states '%s', mem_sleep '%s', sleep_mode %s, sleepctl %s, rtc %s",
                 root, d->features.states, d->features.mem_sleep,
                 d->features.has_sleep_mode ? d->features.sleep_modes : "absent",
                 d->features.has_sleepctl ? "present" : "absent", d->features.rtc[0] ? d->features.rtc : "absent");
        if (missing[0])
                log_warn("missing: %s", missing);

        state_load(d);
        if (mode)
                d->mode = strcmp(mode, "immediate") == 0 ? MODE_IMMEDIATE : MODE_ON_DEMAND;
        if (sd_listen_fds(1) == 1)
                passed = SD_LISTEN_FDS_START;
        r = server_start(d, passed);
        if (r < 0) {
                log_err("cannot listen on %s: %s", socket_path,
                        r == -EEXIST ? "the path exists and is not a socket" :
                        r == -EADDRINUSE ? "another suspendd is listening there" : g_strerror(-r));
                daemon_free(d);
                return 1;
        }
        daemon_init_modules(d);

        d->loop = g_main_loop_new(NULL, FALSE);
        g_unix_signal_add(SIGTERM, on_signal, d);
        g_unix_signal_add(SIGINT, on_signal, d);
        /* No reload: the configuration is read at start. A hang-up stops cleanly rather than
         * dying like a crash (which would leave a disable in its grace period). */
        g_unix_signal_add(SIGHUP, on_signal, d);
#ifdef SUSPENDD_MUTANT
        log_warn("TEST MUTANT %s: this daemon is deliberately broken (HACKING.md, mutation checks)",
                 SUSPENDD_MUTANT);
#endif
        log_info("suspendd %s ready on %s in %s mode", PACKAGE_VERSION,
                 passed >= 0 ? "the socket systemd passed" : socket_path, mode_name(d->mode));
        sd_notifyf(0, "READY=1\nSTATUS=%s mode, %s", mode_name(d->mode),
                   missing[0] ? "kernel lacks sleep_mode/sleepctl" : "all kernel features present");
        attempt_reevaluate(d);
        g_main_loop_run(d->loop);

        sd_notify(0, "STOPPING=1");
        /* Let a committed suspend finish: the worker is inside the kernel's state write. A
         * wakeup_count read may block for as long as a wakeup event is in progress (another
         * process's /dev/sleepctl holder): that one is left behind. */
        while (d->state == ATTEMPT_SUSPENDED ||
               ((d->state == ATTEMPT_COMMIT || d->state == ATTEMPT_PREPARE) && !d->reading_count))
                g_main_context_iteration(NULL, TRUE);
        if (d->reading_count)
                log_warn("stopping while the wakeup_count read waits for wakeup events in progress");
        if (d->state == ATTEMPT_NOTIFY)
                attempt_abort(d, "shutdown", "the daemon is stopping");
        {
                GHashTableIter it;
                gpointer v;
                GList *all = NULL;
                g_hash_table_iter_init(&it, d->clients);
                while (g_hash_table_iter_next(&it, NULL, &v))
                        all = g_list_prepend(all, v);
                /* Disable holders are deliberately not dropped: the persisted state keeps the
                 * kernel disabled across a restart (PROTOCOL.md §10). A clean stop ends them. */
                for (GList *l = all; l; l = l->next) {
                        Client *c = l->data;
                        if (c->disabling) {
                                c->disabling = false;
                                d->disable_holders--;
                        }
                }
                state_save(d);
                for (GList *l = all; l; l = l->next)
                        client_free(l->data);
                g_list_free(all);
        }
        handoff_free(d);
        logind_free(d);
        cooperate_stop(d);
        if (d->kernel_disabled && !disable_active(d))
                sysfs_write_sleep_mode(d->sysfs, d->saved_sleep_mode[0] ? d->saved_sleep_mode : "direct");
        alarm_free_all(d);
        server_stop(d);
        if (passed < 0)   /* only a socket we created ourselves; systemd owns a passed one */
                unlink(socket_path);
        daemon_free(d);
        return 0;
}
