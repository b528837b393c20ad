/* SPDX-License-Identifier: GPL-2.0-or-later */
/* suspendd-bench — the measurements behind BENCHMARKS.md (driven by tests/bench/run).
 *
 *   suspendd-bench pairs SOCKET CLIENTS PAIRS      one-way block+unblock pairs, CLIENTS processes
 *                                                  in parallel, each ending with a ping: pairs/s
 *   suspendd-bench roundtrip SOCKET N              acknowledged block+unblock: µs per pair; and
 *                                                  N one-way pairs then one ping: µs per pair
 *   suspendd-bench writes FILE1 FILE2 N            the kernel baseline: a write to FILE1 and one
 *                                                  to FILE2 per pair (wake_lock/wake_unlock in the
 *                                                  guest; a tmpfs file pair on the host)
 *   suspendd-bench sends N                         the one-way pair's two datagrams to a bare reader
 *                                                  (no daemon): the socket path's floor, µs per pair
 *   suspendd-bench sleepctl N                      STAY_AWAKE+RELAX ioctl pairs on /dev/sleepctl
 *   suspendd-bench delegated SOCKET N              libsuspendctl hold acquire+release pairs after the
 *                                                  first (a delegated block: one eventfd write and
 *                                                  one read each, PROTOCOL.md §6.3): µs per pair; a
 *                                                  hold the daemon did not delegate is an error
 *   suspendd-bench fanout SOCKET WATCHERS ROUNDS [CTL|- [floor]]
 *                                                  WATCHERS watchers answer ready at once: ms from
 *                                                  the request to the resume (fake kernel, no sleep),
 *                                                  and the daemon's notify_us of each round (a round
 *                                                  without it is an error, not a number); with CTL
 *                                                  (the fake kernel's control socket) also the resume
 *                                                  latency: the state write's return → the last
 *                                                  watcher holding `resumed` (watchers answer
 *                                                  noreply=1, protocol version 2); with `floor` a
 *                                                  round of `floor` beside each round, alternately
 *                                                  before and after it (floor_ms, paired by round)
 *   suspendd-bench cycles SOCKET STATE PAIRS [COUNT]
 *                                                  suspend cycles, interleaved ABBA: a bare write of
 *                                                  "mem" to STATE (after the wakeup_count handshake
 *                                                  on COUNT if given), and `suspend` through the
 *                                                  daemon (request → resumed), timed the same way;
 *                                                  every cycle's ms is printed
 *   suspendd-bench floor N ROUNDS                  the same exchange over N bare socket pairs
 *                                                  between two processes: the syscall floor
 *   suspendd-bench hold SOCKET CLIENTS             CLIENTS connections each holding a block; prints
 *                                                  "holding" and waits for stdin to close
 *   suspendd-bench store DIR N                     N state-file writes in DIR the way daemon/core/store.c
 *                                                  does them (write a temporary, fsync, rename, fsync
 *                                                  the directory): median and worst µs per write
 *
 * Each prints one line "name=value ..." for the driver to read (lists of samples comma-separated)
 * and exits non-zero on any failed measurement. Never touches /sys/power itself except `writes`,
 * `sleepctl` and `cycles` when pointed there inside the guest.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "suspendctl.h"

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
        fprintf(stderr, "suspendd-bench: %s: %s\n", what, strerror(errno));
        exit(1);
}

static void send_msg(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void send_msg(int fd, const char *fmt, ...)
{
        char buf[512];
        va_list ap;
        int n;
        va_start(ap, fmt);
        n = vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        if (send(fd, buf, (size_t)n, 0) != n)
                die("send");
}

/* A suspend freezes this process too: the freezer's fake signal makes a recv() with
 * SO_RCVTIMEO, or a poll(), fail with EINTR (not restarted). That is not the daemon's answer. */
static ssize_t recv_retry(int fd, void *buf, size_t size, int flags)
{
        ssize_t n;
        do
                n = recv(fd, buf, size, flags);
        while (n < 0 && errno == EINTR);
        return n;
}

static int poll_retry(struct pollfd *p, nfds_t n, int timeout_ms)
{
        int r;
        do
                r = poll(p, n, timeout_ms);
        while (r < 0 && errno == EINTR);
        return r;
}

/* Receive until a message starting with `prefix` (and containing `needle`, if given). */
static void recv_until(int fd, const char *prefix, const char *needle, char *out, size_t size)
{
        char buf[4096];
        for (;;) {
                ssize_t n = recv_retry(fd, buf, sizeof buf - 1, 0);
                if (n <= 0) {
                        fprintf(stderr, "suspendd-bench: %s while waiting for %s\n",
                                n == 0 ? "connection closed" : strerror(errno), prefix);
                        exit(1);
                }
                buf[n] = '\0';
                if ((strncmp(buf, "error", 5) == 0 && strncmp(prefix, "error", 5) != 0) ||
                    (strncmp(buf, "aborted", 7) == 0 && needle && strstr(buf, needle))) {
                        fprintf(stderr, "suspendd-bench: daemon: %s\n", buf);
                        exit(1);
                }
                if (strncmp(buf, prefix, strlen(prefix)) == 0 && (!needle || strstr(buf, needle))) {
                        if (out)
                                snprintf(out, size, "%s", buf);
                        return;
                }
        }
}

static int connect_daemon(const char *path, const char *name)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd < 0)
                die("socket");
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
                die("connect");
        /* a daemon that stops answering fails the measurement instead of hanging it */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ .tv_sec = 60 }, sizeof(struct timeval)) < 0)
                die("SO_RCVTIMEO");
        send_msg(fd, "hello seq=1 version=2 name=%s", name);
        recv_until(fd, "ok", NULL, NULL, 0);
        return fd;
}

static int cmd_pairs(const char *path, int clients, long pairs)
{
        double t0, t1;
        int pipefd[2];
        if (pipe(pipefd) < 0)
                die("pipe");
        for (int c = 0; c < clients; c++) {
                if (fork() == 0) {
                        int fd = connect_daemon(path, "bench-pairs");
                        char go;
                        close(pipefd[1]);
                        if (read(pipefd[0], &go, 1) < 0)   /* start together: EOF when the parent closes */
                                _exit(1);
                        for (long i = 0; i < pairs; i++) {
                                send_msg(fd, "block seq=%ld id=1 reason=bench noreply=1", 2 * i + 2);
                                send_msg(fd, "unblock seq=%ld id=1 noreply=1", 2 * i + 3);
                        }
                        send_msg(fd, "ping seq=%ld", 2 * pairs + 4);
                        recv_until(fd, "ok", NULL, NULL, 0);   /* everything before it was handled */
                        _exit(0);
                }
        }
        close(pipefd[0]);
        usleep(300000);   /* let every child connect */
        t0 = now_s();
        close(pipefd[1]);
        for (int c = 0; c < clients; c++) {
                int st;
                if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                        fprintf(stderr, "suspendd-bench: a client failed\n");
                        return 1;
                }
        }
        t1 = now_s();
        /* the connect wait is excluded; the final ping round trip is included */
        printf("pairs_per_s=%.0f clients=%d pairs=%ld seconds=%.3f\n", (double)clients * (double)pairs / (t1 - t0),
               clients, (long)clients * pairs, t1 - t0);
        return 0;
}

static int cmd_roundtrip(const char *path, long n)
{
        int fd = connect_daemon(path, "bench-roundtrip");
        double t0, acked, oneway;
        t0 = now_s();
        for (long i = 0; i < n; i++) {
                send_msg(fd, "block seq=%ld id=1 reason=bench", 2 * i + 2);
                recv_until(fd, "ok", NULL, NULL, 0);
                send_msg(fd, "unblock seq=%ld id=1", 2 * i + 3);
                recv_until(fd, "ok", NULL, NULL, 0);
        }
        acked = (now_s() - t0) / (double)n;
        t0 = now_s();
        for (long i = 0; i < n; i++) {
                send_msg(fd, "block seq=%ld id=1 reason=bench noreply=1", 2 * i + 2);
                send_msg(fd, "unblock seq=%ld id=1 noreply=1", 2 * i + 3);
        }
        send_msg(fd, "ping seq=%ld", 2 * n + 4);
        recv_until(fd, "ok", NULL, NULL, 0);
        oneway = (now_s() - t0) / (double)n;
        printf("acked_us=%.2f oneway_us=%.2f n=%ld\n", acked * 1e6, oneway * 1e6, n);
        return 0;
}

static int cmd_writes(const char *f1, const char *f2, long n)
{
        int a = open(f1, O_WRONLY | O_CLOEXEC | O_CREAT, 0600), b = open(f2, O_WRONLY | O_CLOEXEC | O_CREAT, 0600);
        double t0;
        if (a < 0 || b < 0)
                die("open");
        t0 = now_s();
        for (long i = 0; i < n; i++) {
                if (pwrite(a, "bench", 5, 0) != 5 || pwrite(b, "bench", 5, 0) != 5)
                        die("write");
        }
        printf("pair_us=%.2f n=%ld\n", (now_s() - t0) / (double)n * 1e6, n);
        return 0;
}

/* The socket path's floor: the two one-way datagrams of a block+unblock pair sent N times to a
 * bare reader (another process that only drains them), no daemon logic at all. What the client
 * of the one-way pair pays in system calls alone, whatever the daemon does. */
static int cmd_sends(long n)
{
        static const char blk[] = "block seq=0 id=1 noreply=1", unb[] = "unblock seq=0 id=1 noreply=1";
        char buf[256];
        int sv[2];
        double t0, us;
        pid_t child;

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                die("socketpair");
        child = fork();
        if (child < 0)
                die("fork");
        if (child == 0) {
                close(sv[0]);
                while (recv(sv[1], buf, sizeof buf, 0) > 0)
                        ;
                _exit(0);
        }
        close(sv[1]);
        t0 = now_s();
        for (long i = 0; i < n; i++)
                if (send(sv[0], blk, sizeof blk - 1, 0) < 0 || send(sv[0], unb, sizeof unb - 1, 0) < 0)
                        die("send");
        us = (now_s() - t0) / (double)n * 1e6;
        close(sv[0]);
        waitpid(child, NULL, 0);
        printf("pair_us=%.3f n=%ld\n", us, n);
        return 0;
}

/* The kernel series' UAPI (kernel-patches/0002) */
#include "../../daemon/sleepctl-uapi.h"

static int cmd_sleepctl(long n)
{
        int fd = open("/dev/sleepctl", O_RDWR | O_CLOEXEC);
        unsigned timeout = 0;   /* hold until RELAX, like a wake_lock without a timeout */
        double t0;
        if (fd < 0)
                die("/dev/sleepctl");
        if (write(fd, &timeout, sizeof timeout) != sizeof timeout)
                die("write timeout");
        t0 = now_s();
        for (long i = 0; i < n; i++)
                if (ioctl(fd, SLEEPCTL_STAY_AWAKE) < 0 || ioctl(fd, SLEEPCTL_RELAX) < 0)
                        die("ioctl");
        printf("pair_us=%.2f n=%ld\n", (now_s() - t0) / (double)n * 1e6, n);
        return 0;
}

static int cmd_delegated(const char *path, long n)
{
        GError *error = NULL;
        SuspendctlClient *c = suspendctl_client_new(path, "bench-delegated", &error);
        SuspendctlHold *h;
        double t0;

        if (!c) {
                fprintf(stderr, "suspendd-bench: %s\n", error->message);
                return 1;
        }
        h = suspendctl_client_hold_new(c, "bench");
        /* the first acquire is the round trip that delegates: not timed */
        if (!suspendctl_hold_acquire(h, &error) || !suspendctl_hold_release(h, &error))
                goto failed;
        if (!suspendctl_hold_is_delegated(h)) {
                fprintf(stderr, "suspendd-bench: the daemon did not delegate the block\n");
                return 1;
        }
        t0 = now_s();
        for (long i = 0; i < n; i++)
                if (!suspendctl_hold_acquire(h, &error) || !suspendctl_hold_release(h, &error))
                        goto failed;
        printf("pair_us=%.3f n=%ld\n", (now_s() - t0) / (double)n * 1e6, n);
        suspendctl_hold_free(h);
        suspendctl_client_free(c);
        return 0;
failed:
        fprintf(stderr, "suspendd-bench: hold: %s\n", error->message);
        return 1;
}

static void print_samples(const char *name, const double *v, int n)
{
        printf("%s=", name);
        for (int i = 0; i < n; i++)
                printf("%s%.4f", i ? "," : "", v[i]);
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* What each state write cost an attempt before the ids were reserved in blocks (store.c). */
static int cmd_store(const char *dir, int n)
{
        static const char data[] = "[State]\nVersion=1\nMode=on-demand\nLastAttempt=123456\nDisabled=false\n"
                                   "SavedSleepMode=\n";
        char tmp[4096], path[4096];
        double *t = calloc((size_t)n, sizeof *t);

        if (!t || n <= 0)
                die("store: N");
        snprintf(tmp, sizeof tmp, "%s/.bench-state.tmp", dir);
        snprintf(path, sizeof path, "%s/bench-state", dir);
        for (int i = 0; i < n; i++) {
                double t0 = now_s();
                int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), dfd;
                if (fd < 0 || write(fd, data, sizeof data - 1) != (ssize_t)(sizeof data - 1) || fsync(fd) < 0)
                        die("store: write");
                close(fd);
                if (rename(tmp, path) < 0)
                        die("store: rename");
                dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dfd < 0 || fsync(dfd) < 0)
                        die("store: fsync dir");
                close(dfd);
                t[i] = (now_s() - t0) * 1e6;
        }
        unlink(path);
        qsort(t, (size_t)n, sizeof *t, cmp_double);
        printf("median_us=%.1f max_us=%.1f n=%d\n", t[n / 2], t[n - 1], n);
        free(t);
        return 0;
}

/* The fake kernel's CLOCK_MONOTONIC of its last state write's return (stats return_ns), in s. */
static double kernel_return_s(const char *ctl)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char buf[2048] = "";
        ssize_t n, got = 0;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const char *v;

        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", ctl);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || write(fd, "stats\n", 6) != 6)
                die("fake kernel control socket");
        while (got < (ssize_t)sizeof buf - 1 && !strchr(buf, '\n') &&
               (n = read(fd, buf + got, sizeof buf - 1 - (size_t)got)) > 0)
                got += n, buf[got] = '\0';
        close(fd);
        if (!(v = strstr(buf, "return_ns=")))
                die("no return_ns in the fake kernel's stats");
        return (double)atoll(v + 10) / 1e9;
}

/* Every watcher's `resumed` for the attempt: the time the last one arrived (CLOCK_MONOTONIC s). */
static double wait_resumed(int *w, struct pollfd *p, int watchers, const char *needle)
{
        char buf[4096];
        int got = 0;
        double last = 0;
        char *done = calloc((size_t)watchers, 1);

        while (got < watchers) {
                if (poll_retry(p, (nfds_t)watchers, 10000) <= 0)
                        die("poll (resumed)");
                for (int i = 0; i < watchers; i++) {
                        ssize_t n;
                        if (done[i] || !(p[i].revents & POLLIN))
                                continue;
                        n = recv_retry(w[i], buf, sizeof buf - 1, 0);
                        if (n <= 0)
                                die("watcher closed");
                        buf[n] = '\0';
                        if (strncmp(buf, "resumed", 7) == 0 && strstr(buf, needle)) {
                                done[i] = 1, got++, last = now_s();
                                p[i].events = 0;
                        }
                }
        }
        for (int i = 0; i < watchers; i++)
                p[i].events = POLLIN;
        free(done);
        return last;
}

/* Before each fan-out round, and each round of its floor alike: the daemon goes idle after an
 * attempt, and both sides start the round from sleep (CPUs idle, caches cold), which costs the
 * first sends and wake-ups of a round more than back-to-back rounds would. */
#define FANOUT_ROUND_PAUSE_US 200000

/* The floor under fan-out: N socket pairs, one message out and one answer back on each, between
 * two processes, with no daemon logic at all: the daemon's `suspending` and the watchers' answer
 * as the fan-out sends them, each round after the same pause. */
typedef struct {
        int n;
        int (*sv)[2];
        struct pollfd *p;
        pid_t child;
} Floor;

static void floor_open(Floor *f, int n)
{
        static const char ready[] = "ready attempt=12 noreply=1";
        char buf[256];

        f->n = n;
        f->sv = calloc((size_t)n, sizeof *f->sv);
        f->p = calloc((size_t)n, sizeof *f->p);
        for (int i = 0; i < n; i++)
                if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, f->sv[i]) < 0)
                        die("socketpair");
        f->child = fork();
        if (f->child < 0)
                die("fork");
        if (f->child == 0) {   /* the watchers' side: answer every message, until end of file */
                for (int i = 0; i < n; i++) {
                        close(f->sv[i][0]);
                        f->p[i].fd = f->sv[i][1];
                        f->p[i].events = POLLIN;
                }
                for (;;) {
                        if (poll(f->p, (nfds_t)n, -1) < 0)
                                _exit(1);
                        for (int i = 0; i < n; i++)
                                if (f->p[i].revents & POLLIN) {
                                        if (recv(f->sv[i][1], buf, sizeof buf, 0) <= 0)
                                                _exit(0);
                                        send(f->sv[i][1], ready, sizeof ready - 1, 0);
                                }
                }
        }
        for (int i = 0; i < n; i++) {
                close(f->sv[i][1]);
                f->p[i].fd = f->sv[i][0];
                f->p[i].events = POLLIN;
        }
}

/* One round after the pause: ms from the first send to the last answer read. */
static double floor_round(Floor *f)
{
        static const char suspending[] = "suspending attempt=12 deadline_ms=10000 kind=application sleep_state=suspend";
        char buf[256];
        int got = 0;
        double t0;

        usleep(FANOUT_ROUND_PAUSE_US);
        t0 = now_s();
        for (int i = 0; i < f->n; i++)
                send(f->sv[i][0], suspending, sizeof suspending - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        while (got < f->n) {
                if (poll(f->p, (nfds_t)f->n, 10000) <= 0)
                        die("poll (floor)");
                for (int i = 0; i < f->n; i++)
                        if (f->p[i].revents & POLLIN) {
                                if (recv(f->sv[i][0], buf, sizeof buf, 0) <= 0)
                                        die("floor: the answering side closed");
                                got++;
                        }
        }
        return (now_s() - t0) * 1e3;
}

static void floor_close(Floor *f)
{
        for (int i = 0; i < f->n; i++)
                close(f->sv[i][0]);
        waitpid(f->child, NULL, 0);
        free(f->sv);
        free(f->p);
}

typedef struct {
        int watchers, req;
        int *w;
        struct pollfd *p;
        const char *ctl;
} Fanout;

/* One round after the pause: `suspend`, every watcher answers its `suspending`, up to the
 * `resumed`; ms of the whole, the daemon's notify_us and (with ctl) the resume latency. */
static void fanout_round(Fanout *x, int r, double *ms, double *notify, double *resume)
{
        char attempt[32], needle[48], buf[4096];
        int answered = 0;
        double t0;

        usleep(FANOUT_ROUND_PAUSE_US);
        t0 = now_s();
        send_msg(x->req, "suspend seq=%d", 10 + r);
        recv_until(x->req, "ok", NULL, buf, sizeof buf);
        if (!strstr(buf, "attempt=")) {
                fprintf(stderr, "suspendd-bench: no attempt: %s\n", buf);
                exit(1);
        }
        sscanf(strstr(buf, "attempt=") + 8, "%31[0-9]", attempt);
        while (answered < x->watchers) {
                if (poll_retry(x->p, (nfds_t)x->watchers, 10000) <= 0)
                        die("poll (watchers)");
                for (int i = 0; i < x->watchers; i++) {
                        ssize_t n;
                        if (!(x->p[i].revents & POLLIN))
                                continue;
                        n = recv_retry(x->w[i], buf, sizeof buf - 1, 0);
                        if (n <= 0)
                                die("watcher closed");
                        buf[n] = '\0';
                        if (strncmp(buf, "suspending", 10) == 0) {
                                send_msg(x->w[i], "ready attempt=%s noreply=1", attempt);
                                answered++;
                        }
                }
        }
        snprintf(needle, sizeof needle, "attempt=%s ", attempt);
        recv_until(x->req, "resumed", needle, NULL, 0);
        *ms = (now_s() - t0) * 1e3;
        /* resume latency: the state write's return → the last watcher holding `resumed` */
        if (x->ctl)
                *resume = (wait_resumed(x->w, x->p, x->watchers, needle) - kernel_return_s(x->ctl)) * 1e3;
        /* the daemon's own figure: NOTIFY began → the last answer (status notify_us) */
        send_msg(x->req, "status seq=%d", 1000 + r);
        *notify = -1;   /* stays so only if the status has no notify_us for it: checked below */
        for (;;) {
                ssize_t n = recv_retry(x->req, buf, sizeof buf - 1, 0);
                if (n <= 0)
                        die("status");
                buf[n] = '\0';
                if (strncmp(buf, "ok", 2) == 0)
                        break;
                if (strstr(buf, "type=attempt") && strstr(buf, needle) && strstr(buf, "notify_us="))
                        *notify = atof(strstr(buf, "notify_us=") + 10) / 1e3;
        }
        if (*notify < 0) {
                fprintf(stderr, "suspendd-bench: status has no notify_us for attempt %s\n", attempt);
                exit(1);
        }
        /* drain the watchers' ok/resumed so the next round starts clean */
        for (int i = 0; i < x->watchers; i++)
                while (recv(x->w[i], buf, sizeof buf, MSG_DONTWAIT) > 0)
                        ;
}

/* with_floor: a round of the floor (the same exchange over bare socket pairs) beside every
 * round, first on even rounds and second on odd ones, so that the two are compared round by
 * round under the same load of the machine. */
static int cmd_fanout(const char *path, int watchers, int rounds, const char *ctl, bool with_floor)
{
        double *ms = calloc((size_t)rounds, sizeof *ms), *notify = calloc((size_t)rounds, sizeof *notify);
        double *resume = calloc((size_t)rounds, sizeof *resume), *floor_ms = calloc((size_t)rounds, sizeof *floor_ms);
        Fanout x = { .watchers = watchers, .ctl = ctl };
        Floor f;

        if (with_floor)   /* first: its answering child must not inherit the daemon's connections */
                floor_open(&f, watchers);
        x.w = calloc((size_t)watchers, sizeof *x.w);
        x.p = calloc((size_t)watchers, sizeof *x.p);
        x.req = connect_daemon(path, "bench-requester");
        for (int i = 0; i < watchers; i++) {
                x.w[i] = connect_daemon(path, "bench-watcher");
                send_msg(x.w[i], "watch seq=2 name=w%d budget_ms=10000", i);
                recv_until(x.w[i], "ok", NULL, NULL, 0);
                x.p[i].fd = x.w[i];
                x.p[i].events = POLLIN;
        }
        for (int r = 0; r < rounds; r++) {
                if (with_floor && r % 2 == 0)
                        floor_ms[r] = floor_round(&f);
                fanout_round(&x, r, &ms[r], &notify[r], &resume[r]);
                if (with_floor && r % 2 == 1)
                        floor_ms[r] = floor_round(&f);
        }
        print_samples("attempt_ms", ms, rounds);
        print_samples(" notify_ms", notify, rounds);
        if (ctl)
                print_samples(" resume_ms", resume, rounds);
        if (with_floor) {
                floor_close(&f);
                print_samples(" floor_ms", floor_ms, rounds);
        }
        printf(" watchers=%d rounds=%d\n", watchers, rounds);
        return 0;
}

/* One daemon-driven cycle: `suspend` → `resumed` for its attempt (an abort is an error), then
 * wait, untimed, until the daemon is idle again so the next cycle does not join this one. */
static double daemon_cycle(int fd, int *seq)
{
        char buf[4096], attempt[32], needle[48];
        double t0 = now_s(), ms;

        send_msg(fd, "suspend seq=%d", ++*seq);
        recv_until(fd, "ok", NULL, buf, sizeof buf);
        if (!strstr(buf, "attempt=") || sscanf(strstr(buf, "attempt=") + 8, "%31[0-9]", attempt) != 1 ||
            strcmp(attempt, "0") == 0) {
                fprintf(stderr, "suspendd-bench: no attempt: %s\n", buf);
                exit(1);
        }
        snprintf(needle, sizeof needle, "attempt=%s ", attempt);
        recv_until(fd, "resumed", needle, NULL, 0);
        ms = (now_s() - t0) * 1e3;
        for (int tries = 0;; tries++) {
                bool idle = false;
                send_msg(fd, "status seq=%d", ++*seq);
                for (;;) {
                        ssize_t n = recv_retry(fd, buf, sizeof buf - 1, 0);
                        if (n <= 0)
                                die("status");
                        buf[n] = '\0';
                        if (strncmp(buf, "ok", 2) == 0)
                                break;
                        if (strstr(buf, "type=daemon") && strstr(buf, "state=idle"))
                                idle = true;
                }
                if (idle)
                        break;
                if (tries > 1000) {
                        fprintf(stderr, "suspendd-bench: the daemon did not become idle after attempt %s\n", attempt);
                        exit(1);
                }
                usleep(10000);
        }
        return ms;
}

/* One bare cycle, timed the same way: the kernel's own handshake (read wakeup_count, write it
 * back, as any correct suspender must and the daemon does) if COUNT is given, then "mem" written
 * to the state file. */
static double bare_cycle(const char *state, const char *count)
{
        double t0 = now_s();
        int fd;
        if (count) {
                char buf[32];
                ssize_t n;
                if ((fd = open(count, O_RDWR | O_CLOEXEC)) < 0 || (n = read(fd, buf, sizeof buf)) <= 0 ||
                    pwrite(fd, buf, (size_t)n, 0) != n)
                        die(count);
                close(fd);
        }
        if ((fd = open(state, O_WRONLY | O_CLOEXEC)) < 0 || write(fd, "mem", 3) != 3)
                die(state);
        close(fd);
        return (now_s() - t0) * 1e3;
}

static int cmd_cycles(const char *path, const char *state, int pairs, const char *count)
{
        double *bare = calloc((size_t)pairs, sizeof *bare), *daemon = calloc((size_t)pairs, sizeof *daemon);
        int fd = connect_daemon(path, "bench-cycles"), seq = 1;

        if (pairs < 2)
                return 2;
        for (int i = 0; i < pairs; i++) {
                /* ABBA: neither side always goes first (warm caches, a pending timer) */
                if (i % 2 == 0) {
                        bare[i] = bare_cycle(state, count);
                        daemon[i] = daemon_cycle(fd, &seq);
                } else {
                        daemon[i] = daemon_cycle(fd, &seq);
                        bare[i] = bare_cycle(state, count);
                }
        }
        print_samples("bare_ms", bare, pairs);
        print_samples(" daemon_ms", daemon, pairs);
        printf(" pairs=%d\n", pairs);
        return 0;
}

static int cmd_floor(int n, int rounds)
{
        double *ms = calloc((size_t)rounds, sizeof *ms);
        Floor f;

        floor_open(&f, n);
        for (int r = 0; r < rounds; r++)
                ms[r] = floor_round(&f);
        floor_close(&f);
        print_samples("floor_ms", ms, rounds);
        printf(" n=%d rounds=%d\n", n, rounds);
        return 0;
}

static int cmd_hold(const char *path, int clients)
{
        for (int i = 0; i < clients; i++) {
                int fd = connect_daemon(path, "bench-holder");
                send_msg(fd, "block seq=2 id=1 reason=bench");
                recv_until(fd, "ok", NULL, NULL, 0);
        }
        printf("holding=%d\n", clients);
        fflush(stdout);
        while (getchar() != EOF)
                ;
        return 0;
}

int main(int argc, char **argv)
{
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (argc >= 5 && strcmp(argv[1], "pairs") == 0)
                return cmd_pairs(argv[2], atoi(argv[3]), atol(argv[4]));
        if (argc >= 4 && strcmp(argv[1], "roundtrip") == 0)
                return cmd_roundtrip(argv[2], atol(argv[3]));
        if (argc >= 5 && strcmp(argv[1], "writes") == 0)
                return cmd_writes(argv[2], argv[3], atol(argv[4]));
        if (argc >= 3 && strcmp(argv[1], "sends") == 0)
                return cmd_sends(atol(argv[2]));
        if (argc >= 4 && strcmp(argv[1], "delegated") == 0)
                return cmd_delegated(argv[2], atol(argv[3]));
        if (argc >= 3 && strcmp(argv[1], "sleepctl") == 0)
                return cmd_sleepctl(atol(argv[2]));
        if (argc >= 5 && strcmp(argv[1], "fanout") == 0)
                return cmd_fanout(argv[2], atoi(argv[3]), atoi(argv[4]), argc >= 6 && strcmp(argv[5], "-") != 0 ? argv[5] : NULL,
                                  argc >= 7 && strcmp(argv[6], "floor") == 0);
        if (argc >= 5 && strcmp(argv[1], "cycles") == 0)
                return cmd_cycles(argv[2], argv[3], atoi(argv[4]), argc >= 6 ? argv[5] : NULL);
        if (argc >= 4 && strcmp(argv[1], "floor") == 0)
                return cmd_floor(atoi(argv[2]), atoi(argv[3]));
        if (argc >= 4 && strcmp(argv[1], "store") == 0)
                return cmd_store(argv[2], atoi(argv[3]));
        if (argc >= 4 && strcmp(argv[1], "hold") == 0)
                return cmd_hold(argv[2], atoi(argv[3]));
        fprintf(stderr, "usage: see the comment at the top of tests/bench/suspendd-bench.c\n");
        return 2;
}
