/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the daemon's whole request handling: one in-process suspendd (its real
 * modules, server and main loop) on a socket in a temporary directory, with a sysfs root of plain
 * files (never the host's /sys). Each input is one client session: messages separated by '\n',
 * sent over a real SOCK_SEQPACKET connection; a message whose first byte is 0x01-0x04 also
 * passes that many descriptors of odd kinds (a pipe, a directory, a socket, /dev/null). Then the
 * connection closes and any attempt it started runs to its end. Alarm commands run through
 * /bin/true instead of /bin/sh.
 *
 * The oracle (PROTOCOL.md §2, §3): after each datagram the harness runs the daemon until it has
 * answered, and aborts unless
 *   - every datagram the daemon sends is at most 4096 bytes, decodes with the codec, and
 *     re-encodes to the same bytes; events carry no seq;
 *   - each datagram sent gets exactly one final reply (ok or error), items only before it; a
 *     request that decodes gets its own seq back; one that does not decode gets an error;
 *     `ok items=N` follows exactly N items;
 *     block/unblock with noreply=1 get nothing or an error.
 *
 * `make fuzz-requests` runs a campaign with clang -fsanitize=fuzzer; `make check` replays the
 * corpus (tests/fuzz/corpus-requests) through the same entry point. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon.h"

static Daemon *d;
static char sock_path[200];

static void put_file(const char *root, const char *rel, const char *text)
{
        char path[512];
        FILE *f;
        snprintf(path, sizeof path, "%s/%s", root, rel);
        g_autofree char *dir = g_path_get_dirname(path);
        g_mkdir_with_parents(dir, 0755);
        f = fopen(path, "w");
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static void start_daemon(void)
{
        static char root[128];
        g_autofree char *state = NULL;

        snprintf(root, sizeof root, "%s/suspendd-fuzz-XXXXXX", g_get_tmp_dir());
        if (!g_mkdtemp(root))
                abort();
        /* a kernel of plain files: state writes return at once, as from a very short sleep */
        put_file(root, "sys/power/state", "freeze mem disk\n");
        put_file(root, "sys/power/wakeup_count", "0\n");
        put_file(root, "sys/power/mem_sleep", "s2idle [deep]\n");
        put_file(root, "sys/class/rtc/rtc0/wakealarm", "");   /* alarms are accepted */
        state = g_build_filename(root, "state", NULL);
        g_mkdir_with_parents(state, 0700);
        snprintf(sock_path, sizeof sock_path, "%s/socket", root);
        log_init(false);
        d = daemon_new(state, sock_path);
        d->command_shell = "/bin/true";
        d->cfg.backoff_initial_ms = 1;
        d->cfg.backoff_max_ms = 1;
        if (sysfs_open(root, &d->sysfs) < 0 || sysfs_detect(d->sysfs, &d->features) < 0 ||
            server_start(d, -1) < 0)
                abort();
        loop_start(d);
}

static void pump(void)
{
        for (int i = 0; i < 64 && g_main_context_iteration(NULL, FALSE); i++)
                ;
}

/* What the daemon owes one datagram. */
typedef struct {
        bool decodes;          /* a request that decodes: its seq must come back */
        uint64_t seq;
        bool optional;         /* block/unblock noreply=1: nothing, or an error */
        uint64_t items;        /* items received before the final */
        bool final_seen;
        bool closed;           /* the daemon closed the connection */
        unsigned oversized;    /* datagrams over 4096 bytes in a row, this one included */
} Expect;

static void violation(const char *what, const char *data, size_t len)
{
        fprintf(stderr, "fuzz-requests oracle: %s: %.*s\n", what, (int)(len > 300 ? 300 : len), data);
        abort();
}

static void expect_for(Expect *e, const uint8_t *msg, size_t len)
{
        static SdpMessage m;
        SdpProblem p;

        *e = (Expect){ .closed = e->closed, .oversized = e->oversized };
        if (len > 0 && msg[0] >= 1 && msg[0] <= 4)
                msg++, len--;   /* the descriptor prefix is not part of the datagram */
        /* §5: a datagram of an allowed size between oversized ones starts the count again */
        e->oversized = len > SDP_MAX_MESSAGE ? e->oversized + 1 : 0;
        if (sdp_decode_request(&m, msg, len, 0, &p) < 0)
                return;
        e->decodes = true;
        e->seq = sdp_get_u64_or(&m, "seq", 0);
        e->optional = (m.type == SDP_BLOCK || m.type == SDP_UNBLOCK) && sdp_get_bool(&m, "noreply", false);
}

/* One datagram from the daemon against the protocol's invariants. */
static void check_datagram(Expect *e, const char *buf, size_t n)
{
        static SdpMessage m;
        static char again[SDP_MAX_MESSAGE + 1];
        SdpProblem p;
        SdpKind kind;
        int k;

        if (n > SDP_MAX_MESSAGE)
                violation("a datagram over 4096 bytes", buf, n);
        if (sdp_decode(&m, buf, n, &p) < 0)
                violation(p.text, buf, n);
        k = sdp_encode(&m, again, sizeof again, &p);
        if (k < 0 || (size_t)k != n || memcmp(again, buf, n) != 0)
                violation("does not re-encode to the same bytes", buf, n);
        kind = sdp_type_kind(m.type);
        if (kind == SDP_EVENT) {
                if (sdp_get(&m, "seq"))
                        violation("an event with a seq", buf, n);
                return;
        }
        if (e->final_seen)
                violation(m.type == SDP_ITEM ? "an item after the final reply" : "a second final reply", buf, n);
        if (e->decodes && sdp_get_u64_or(&m, "seq", UINT64_MAX) != e->seq)
                violation("a reply with another seq", buf, n);
        if (m.type == SDP_ITEM) {
                e->items++;
                return;
        }
        if ((!e->decodes || e->optional) && m.type != SDP_ERROR)
                violation("ok for a datagram that must be refused or left unanswered", buf, n);
        if (m.type == SDP_OK && sdp_get_u64_or(&m, "items", e->items) != e->items)
                violation("items=N is not the number of items sent", buf, n);
        e->final_seen = true;
}

/* Run the daemon until it has answered the datagram just sent (requests are answered while the
 * daemon handles them; several rounds let a backlog flush). */
static void await_reply(int fd, Expect *e)
{
        char buf[2 * SDP_MAX_MESSAGE];
        int idle = 0;

        for (int round = 0; round < 1000 && !e->final_seen && !e->closed && idle < 3; round++) {
                bool got = false;
                ssize_t n;
                pump();
                while ((n = recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC)) >= 0) {
                        if (n == 0) {
                                /* §5: the daemon ends a connection only after the 17th oversized
                                 * datagram in a row (events overflowing the backlog and the
                                 * daemon stopping cannot happen here) */
                                if (e->oversized < 17)
                                        violation("the connection was closed, not after 17 oversized datagrams", "", 0);
                                e->closed = true;
                                break;
                        }
                        got = true;
                        check_datagram(e, buf, (size_t)n > sizeof buf ? sizeof buf : (size_t)n);
                        if ((size_t)n > sizeof buf)
                                violation("a datagram over 4096 bytes", buf, sizeof buf);
                }
                idle = got || g_main_context_pending(NULL) ? 0 : idle + 1;
        }
        if (!e->final_seen && !e->optional && !e->closed)
                violation(e->decodes ? "a request without a final reply" : "a bad datagram without an error", "", 0);
}

/* Whatever the daemon still sends after the session: checked, then dropped. */
static void drain(int fd)
{
        char buf[2 * SDP_MAX_MESSAGE];
        Expect none = { .final_seen = true };
        ssize_t n;
        while ((n = recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC)) > 0)
                check_datagram(&none, buf, (size_t)n > sizeof buf ? sizeof buf : (size_t)n);
}

static int odd_fd(int kind)
{
        int p[2];
        switch (kind % 4) {
        case 0:
                if (pipe(p) < 0)
                        return -1;
                close(p[1]);
                return p[0];
        case 1:
                return open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        case 2:
                return socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        default:
                return open("/dev/null", O_RDWR | O_CLOEXEC);
        }
}

static bool send_message(int fd, const uint8_t *msg, size_t len)
{
        int fds[4], n_fds = 0;
        union {
                char buf[CMSG_SPACE(sizeof fds)];
                struct cmsghdr align;
        } control;
        struct iovec iov;
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        bool sent = false;

        if (len > 0 && msg[0] >= 1 && msg[0] <= 4) {
                for (int i = 0; i < msg[0]; i++)
                        if ((fds[n_fds] = odd_fd(i)) >= 0)
                                n_fds++;
                msg++, len--;
        }
        iov.iov_base = (void *)msg;
        iov.iov_len = len;
        if (n_fds) {
                struct cmsghdr *cm;
                mh.msg_control = control.buf;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_fds);
                cm = CMSG_FIRSTHDR(&mh);
                cm->cmsg_level = SOL_SOCKET;
                cm->cmsg_type = SCM_RIGHTS;
                cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_fds);
                memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n_fds);
        }
        for (int tries = 0; tries < 8; tries++) {
                if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) {
                        sent = true;
                        break;
                }
                if (errno != EAGAIN && errno != ENOBUFS)
                        break;
                pump();
        }
        for (int i = 0; i < n_fds; i++)
                close(fds[i]);
        return sent;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t start = 0;
        int fd, messages = 0;
        Expect e = { 0 };

        if (!d)
                start_daemon();
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        strcpy(sa.sun_path, sock_path);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
                abort();
        pump();
        for (size_t i = 0; i <= size && messages < 64 && !e.closed; i++) {
                if (i < size && data[i] != '\n')
                        continue;
                expect_for(&e, data + start, i - start);
                if (send_message(fd, data + start, i - start))
                        await_reply(fd, &e);
                start = i + 1;
                messages++;
        }
        drain(fd);
        close(fd);
        /* Sessions are independent: back to on-demand (immediate mode on a kernel whose sleeps
         * return at once would only spin), then let the disconnect and any attempt this
         * session started run to their end. */
        d->mode = MODE_ON_DEMAND;
        for (int i = 0; i < 2000 && (attempt_active(d) || g_main_context_pending(NULL)); i++)
                g_main_context_iteration(NULL, attempt_active(d));
        return 0;
}
