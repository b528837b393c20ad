/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c — suspendd's command line: the options, checked; the daemon's life is loop.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

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

/* Test-only mutants (HACKING.md, "Mutation checks") say what they are. */
#if defined(SUSPENDD_MUTANT_NO_COUNT_WRITE)
#define SUSPENDD_MUTANT "no-count-write"
#elif defined(SUSPENDD_MUTANT_NO_EPOLLWAKEUP)
#define SUSPENDD_MUTANT "no-epollwakeup"
#elif defined(SUSPENDD_MUTANT_NO_DELEGATED_WAKEUP)
#define SUSPENDD_MUTANT "no-delegated-wakeup"
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
        DaemonOptions o = {
                .socket_path = SD_DEFAULT_SOCKET_PATH, .root = "/", .state_dir = SD_DEFAULT_STATE_DIR,
                .config = DEFAULT_CONFIG,
        };
        bool verbose = false;
        int opt;

        while ((opt = getopt_long(argc, argv, "s:r:S:c:m:vhV", opts, NULL)) != -1) {
                switch (opt) {
                case 's': o.socket_path = optarg; break;
                case 'r': o.root = optarg; break;
                case 'S': o.state_dir = optarg; break;
                case 'c': o.config = optarg; break;
                case 'm': o.mode = optarg; break;
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
        if (optind < argc || (o.mode && strcmp(o.mode, "on-demand") != 0 && strcmp(o.mode, "immediate") != 0)) {
                usage(stderr);
                return 2;
        }
        /* bind() would need it cut, and a cut path names another file (issue 15) */
        if (strlen(o.socket_path) >= sizeof(((struct sockaddr_un *)NULL)->sun_path)) {
                fprintf(stderr, "suspendd: --socket: the path is too long (%zu bytes; a UNIX socket path "
                        "has at most %zu): %s\n", strlen(o.socket_path),
                        sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1, o.socket_path);
                return 2;
        }
        log_init(verbose);
#ifdef SUSPENDD_MUTANT
        log_warn("TEST MUTANT %s: this daemon is deliberately broken (HACKING.md, mutation checks)",
                 SUSPENDD_MUTANT);
#endif
        return loop_main(&o);
}
