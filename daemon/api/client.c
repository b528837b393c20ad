/* SPDX-License-Identifier: GPL-2.0-or-later */
/* client.c — one connection: who the peer is (SO_PEERCRED, fixed at connect), reading
 * datagrams with their fds, and a bounded output queue (a peer that stops reading is cut off,
 * never buffered without bound). */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"
#include "sdp-schema.h"

#define MAX_TOO_LARGE 16
#define MAX_QUEUED_REPLIES 65536

static void read_comm(pid_t pid, char *buf, size_t size)
{
        char path[64];
        FILE *f;
        snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
        buf[0] = '\0';
        f = fopen(path, "re");
        if (!f)
                return;
        if (fgets(buf, (int)size, f))
                buf[strcspn(buf, "\n")] = '\0';
        fclose(f);
        /* comm is chosen by the peer and cut by the kernel at 15 bytes, maybe inside a character:
         * drop a partial last character, then make it valid protocol text (PROTOCOL.md §6.14) */
        {
                char raw[64];
                g_strlcpy(raw, buf, sizeof raw);
                sdp_text_cut(raw, strlen(raw));
                sdp_text_sanitize(buf, size, raw);
        }
}

Client *client_new(Daemon *d, int fd)
{
        Client *c = g_new0(Client, 1);
        struct ucred cred;
        socklen_t len = sizeof cred;
        socklen_t glen = sizeof c->groups;

        c->d = d;
        c->fd = fd;
        c->id = ++d->next_client_id;
        if (c->id == 0)
                c->id = ++d->next_client_id;
        c->since = g_get_real_time();
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
                c->pid = cred.pid;
                c->uid = cred.uid;
                c->gid = cred.gid;
        } else {
                /* without credentials the peer gets nothing: treat it as nobody */
                c->uid = (uid_t)65534;
                c->gid = (gid_t)65534;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, c->groups, &glen) == 0)
                c->n_groups = glen / sizeof(gid_t);
        read_comm(c->pid, c->comm, sizeof c->comm);
        c->block_keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_queue_init(&c->out);
        return c;
}

static void close_registered_fd(gpointer p)
{
        RegisteredFd *r = p;
        close(r->fd);
        g_free(r);
}

static void batch_drop(const Client *c);

void client_free(Client *c)
{
        GHashTableIter it;
        gpointer v;

        batch_drop(c);
        delegate_client_free(c);
        if (c->fds) {
                g_hash_table_iter_init(&it, c->fds);
                while (g_hash_table_iter_next(&it, NULL, &v))
                        close_registered_fd(v);
                g_hash_table_destroy(c->fds);
        }
        g_hash_table_destroy(c->block_keys);
        g_queue_clear_full(&c->out, (GDestroyNotify)g_bytes_unref);
        if (c->out_fds) {   /* descriptors of replies never sent */
                g_hash_table_iter_init(&it, c->out_fds);
                while (g_hash_table_iter_next(&it, NULL, &v))
                        close(GPOINTER_TO_INT(v));
                g_hash_table_destroy(c->out_fds);
        }
        if (c->fd >= 0)
                close(c->fd);
        g_free(c);
}

/* Deferred: callers may be iterating over the clients. The server unwatches and frees it before
 * its next epoll_wait, and request.c ends what it held (server_reap()). */
void client_disconnect(Client *c, const char *why)
{
        char who[160];
        if (c->closing)
                return;
        c->closing = true;
        if (why)
                log_info("%s: disconnecting: %s", client_describe(c, who, sizeof who), why);
        shutdown(c->fd, SHUT_RDWR);
        g_queue_push_tail(&c->d->closing, c);
        c->d->unsettled = true;
}

/* A datagram that could not be encoded in full (a bug: every text is cut to fit) is sent in a
 * fallback form rather than not at all: a final reply becomes `error code=internal` with its seq,
 * an item keeps its seq and type, an event keeps its required fields (PROTOCOL.md §2, §7).
 * Returns the length, or -1 if even the fallback failed (an event: it is lost). */
static int encode_or_fallback(const SdpMessage *m, char *buf, size_t size, bool *fallback)
{
        const SdpTypeSpec *spec = sdp_type_spec(m->type);
        SdpMessage f;
        SdpProblem p;
        int n;

        *fallback = false;
        n = sdp_encode(m, buf, size, &p);
        if (n >= 0)
                return n;
        *fallback = true;
        log_err("internal: cannot encode %s (%s): sending its fallback form",
                sdp_type_name(m->type), n == -ENOSPC ? "too long" : p.text);
        sdp_message_init(&f, m->type == SDP_OK ? SDP_ERROR : m->type);
        if (m->type == SDP_OK || m->type == SDP_ERROR) {
                sdp_add(&f, "seq", sdp_get(m, "seq") ? sdp_get(m, "seq") : "0");
                sdp_add(&f, "code", "internal");
                sdp_add(&f, "message", "the reply could not be encoded (logged by the daemon)");
        } else {
                for (const SdpFieldSpec *fs = spec ? spec->fields : NULL; fs && fs->key; fs++)
                        if (fs->required && sdp_get(m, fs->key))
                                sdp_add(&f, fs->key, sdp_get(m, fs->key));
        }
        n = sdp_encode(&f, buf, size, &p);
        return n >= 0 ? n : -1;
}

static void send_datagram(Client *c, const SdpMessage *m);
static void send_datagram_fd(Client *c, const SdpMessage *m, int fd);

/* One datagram, with a descriptor as SCM_RIGHTS when fd >= 0 (a delegated block's eventfd). */
ssize_t client_send_bytes(int sock, const void *buf, size_t len, int fd)
{
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } u;
        struct iovec iov = { (void *)buf, len };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        struct cmsghdr *cm;

        if (fd < 0)
                return send(sock, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        memset(&u, 0, sizeof u);
        mh.msg_control = u.buf;
        mh.msg_controllen = sizeof u.buf;
        cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof fd);
        return sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Monitors learn of every datagram that needed its fallback form (event-lost, PROTOCOL.md §7). */
static void tell_monitors_lost(Daemon *d, const Client *to, SdpType type, bool delivered)
{
        static bool telling;
        SdpMessage ev;
        GHashTableIter it;
        gpointer m;

        if (telling)
                return;   /* event-lost itself always encodes; never recurse */
        telling = true;
        sdp_message_init(&ev, SDP_EVENT_LOST);
        sdp_add(&ev, "event", sdp_type_name(type));
        sdp_add_u64(&ev, "client", to->id);
        sdp_add_bool(&ev, "delivered", delivered);
        sdp_add_u64(&ev, "total", d->n_encode_failures);
        /* the monitors' own fan-out (events.c's), here: the transport calls nothing above it */
        g_hash_table_iter_init(&it, d->monitors);
        while (g_hash_table_iter_next(&it, &m, NULL)) {
                Client *c = m;
                if (c->monitoring && !c->closing)
                        send_datagram(c, &ev);
        }
        telling = false;
}

static void send_datagram(Client *c, const SdpMessage *m)
{
        send_datagram_fd(c, m, -1);
}

static void deliver(Client *c, SdpType type, const char *buf, size_t n, int fd);

static void send_datagram_fd(Client *c, const SdpMessage *m, int fd)
{
        char buf[SDP_MAX_MESSAGE + 1];
        bool fallback;
        int n;

        if (c->closing)
                return;
        n = encode_or_fallback(m, buf, sizeof buf, &fallback);
        if (fallback) {
                c->d->n_encode_failures++;
                if (n < 0)
                        log_err("internal: %s to client %u lost", sdp_type_name(m->type), c->id);
                tell_monitors_lost(c->d, c, m->type, n >= 0);
                if (n < 0 || c->closing)
                        return;
        }
        if (fallback)
                fd = -1;   /* an error in place of the reply: no descriptor goes with it */
        deliver(c, m->type, buf, (size_t)n, fd);
}

/* The only place a datagram is queued or sent: buf holds it encoded. */
static void deliver(Client *c, SdpType type, const char *buf, size_t n, int fd)
{
        GBytes *b;
        int dup;

        if (g_queue_is_empty(&c->out)) {
                ssize_t s = client_send_bytes(c->fd, buf, n, fd);
                if (s >= 0)
                        return;
                if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                        client_disconnect(c, g_strerror(errno));
                        return;
                }
        }
        /* Events are unsolicited: a peer that does not read them is cut off. Replies are
         * bounded by its own requests, because we stop reading requests from a peer whose
         * queue is full (server_sync), so one status reply may exceed the limit. */
        if (g_queue_get_length(&c->out) >= (sdp_type_kind(type) == SDP_EVENT
                                                    ? c->d->cfg.max_queued_messages
                                                    : MAX_QUEUED_REPLIES)) {
                client_disconnect(c, "not reading its messages (output queue full)");
                return;
        }
        /* a queued descriptor is a copy: the one it was made from may be closed before it goes */
        dup = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
        if (fd >= 0 && dup < 0) {
                client_disconnect(c, "cannot keep a descriptor for its queued reply");
                return;
        }
        b = g_bytes_new(buf, n);
        g_queue_push_tail(&c->out, b);
        if (dup >= 0) {
                if (!c->out_fds)
                        c->out_fds = g_hash_table_new(NULL, NULL);
                g_hash_table_insert(c->out_fds, b, GINT_TO_POINTER(dup));
        }
        /* the server watches for room (EPOLLOUT) and, the queue full, stops reading its
         * requests: server_sync() before the loop sleeps */
        if (!c->out_dirty) {
                c->out_dirty = true;
                g_queue_push_tail(&c->d->out_dirty, c);
        }
        c->d->unsettled = true;
}

void client_send(Client *c, const SdpMessage *m)
{
        /* replies go through a Reply (reply_ok, reply_error, reply_item): one final per request */
        if (sdp_type_kind(m->type) != SDP_EVENT) {
                log_err("internal: %s sent outside a reply", sdp_type_name(m->type));
                return;
        }
        send_datagram(c, m);
}

/* An event encoded once for many connections (events.c's fan-out): its bytes as they are. */
void client_send_encoded(Client *c, const EncodedEvent *e)
{
        if (sdp_type_kind(e->type) != SDP_EVENT || e->n < 0) {
                log_err("internal: %s sent as an encoded event", sdp_type_name(e->type));
                return;
        }
        if (!c->closing)
                deliver(c, e->type, e->buf, (size_t)e->n, -1);
}

Reply reply_begin(Client *c, uint64_t seq)
{
        return (Reply){ .c = c, .seq = seq > 0xffffffffu ? 0 : seq };
}

static bool reply_open(Reply *r, const char *what)
{
        if (!r->final_sent)
                return true;
        log_err("internal: a second final reply (%s) to seq %llu suppressed", what,
                (unsigned long long)r->seq);
        return false;
}

void reply_item(Reply *r, SdpMessage *item)
{
        if (!reply_open(r, "item"))
                return;
        send_datagram(r->c, item);
        r->items++;
}

/* The final `ok`, with m's fields after its seq, and a descriptor when fd >= 0. */
static void send_ok(Reply *r, const SdpMessage *m, int fd)
{
        SdpMessage full;

        if (!reply_open(r, "ok"))
                return;
        r->final_sent = true;
        if (r->quiet_ok && fd < 0)
                return;   /* noreply=1: success is silent (PROTOCOL.md §6.3) */
        /* seq goes first for people reading with socat */
        sdp_message_init(&full, SDP_OK);
        sdp_add_u64(&full, "seq", r->seq);
        for (unsigned i = 0; m && i < m->n_fields; i++)
                if (strcmp(m->fields[i].key, "seq") != 0)
                        sdp_add(&full, m->fields[i].key, m->fields[i].value);
        send_datagram_fd(r->c, &full, fd);
}

void reply_ok(Reply *r, const SdpMessage *m)
{
        send_ok(r, m, -1);
}

/* reply_ok, carrying a delegated block's eventfd (PROTOCOL.md §6.3). */
void reply_ok_fd(Reply *r, const SdpMessage *m, int fd)
{
        send_ok(r, m, fd);
}

/* Cut a text that goes into a message to max bytes at a character boundary, marking the cut. */
static void cut_marked(char *s, size_t max)
{
        if (strlen(s) <= max)
                return;
        sdp_text_cut(s, max - 3);
        strcat(s, "...");
}

void reply_error(Reply *r, SdpError code, const char *field, const char *extra_key,
                 const char *extra_value, const char *fmt, ...)
{
        SdpMessage m;
        char text[REPLY_TEXT_MAX + 64], extra[REPLY_TEXT_MAX + 1], who[160];
        va_list ap;

        if (!reply_open(r, "error"))
                return;
        r->final_sent = true;
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        cut_marked(text, REPLY_TEXT_MAX);
        sdp_message_init(&m, SDP_ERROR);
        sdp_add_u64(&m, "seq", r->seq);
        sdp_add(&m, "code", sdp_error_name(code));
        sdp_add(&m, "message", text);
        if (field && *field)
                sdp_add(&m, "field", field);
        if (extra_key && extra_value) {
                g_strlcpy(extra, extra_value, sizeof extra);
                cut_marked(extra, REPLY_TEXT_MAX);
                sdp_add(&m, extra_key, extra);
        }
        log_info("%s: refused (%s): %s", client_describe(r->c, who, sizeof who), sdp_error_name(code), text);
        send_datagram(r->c, &m);
}

/* The one exit of every request: a request that reached no final reply gets `internal`. */
void reply_finish(Reply *r)
{
        if (r->final_sent)
                return;
        log_err("internal: request seq %llu reached no reply", (unsigned long long)r->seq);
        reply_error(r, SDP_E_INTERNAL, NULL, NULL, NULL, "the request reached no reply (a daemon bug, logged)");
}

/* A SOCK_SEQPACKET read of 0 bytes is either end of file or an empty datagram; only the
 * first sets the receive-shutdown flag that POLLRDHUP reports. */
static bool peer_closed(int fd)
{
        struct pollfd pfd = { .fd = fd, .events = POLLRDHUP };
        return poll(&pfd, 1, 0) != 0;
}

/* The descriptors that came with a datagram (SCM_RIGHTS): up to CLIENT_MAX_FDS, the rest closed. */
static void take_fds(struct msghdr *mh, int *fds, size_t *n_fds)
{
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
                if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
                        continue;
                size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                int *in = (int *)CMSG_DATA(cm);
                for (size_t j = 0; j < k; j++) {
                        if (*n_fds < CLIENT_MAX_FDS)
                                fds[(*n_fds)++] = in[j];
                        else
                                close(in[j]);
                }
        }
}

/* A datagram refused before any handler: its fds closed, one error reply. */
static void refuse(Client *c, uint64_t seq, int *fds, size_t *n_fds, SdpError code, const char *field,
                   const char *fmt, ...) G_GNUC_PRINTF(7, 8);
static void refuse(Client *c, uint64_t seq, int *fds, size_t *n_fds, SdpError code, const char *field,
                   const char *fmt, ...)
{
        Reply r = reply_begin(c, seq);
        char text[REPLY_TEXT_MAX + 64];   /* as reply_error() formats it: the same cut */
        va_list ap;

        for (size_t j = 0; j < *n_fds; j++)
                close(fds[j]);
        *n_fds = 0;
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        reply_error(&r, code, field, NULL, NULL, "%s", text);
        reply_finish(&r);
}

/* Datagrams read ahead by one recvmmsg(): a busy peer's requests cost one system call per
 * batch rather than one per request plus the one that finds the socket empty (issue 19, the
 * socket path; BENCHMARKS.md). The batch belongs to one connection and is used up before
 * another is read: the caller's budget caps it (server.c's fairness per wake), so nothing read
 * is ever left behind. Single-threaded, like the whole transport. */
#define RECV_BATCH 16
static struct {
        Client *owner;
        unsigned n, next;
        bool drained;              /* the last read got fewer than it asked for: the socket was empty */
        struct mmsghdr mm[RECV_BATCH];
        struct iovec iov[RECV_BATCH];
        char buf[RECV_BATCH][SDP_MAX_MESSAGE + 1];
        union {
                char buf[CMSG_SPACE(sizeof(int) * CLIENT_MAX_FDS)];
                struct cmsghdr align;
        } control[RECV_BATCH];
} batch;

/* What is left of c's batch is never read: it is going (a connection's memory may be reused
 * by the next one, which must not inherit it). */
static void batch_drop(const Client *c)
{
        if (batch.owner == c) {
                batch.owner = NULL;
                batch.n = batch.next = 0;
                batch.drained = false;
        }
}

/* Read up to `want` datagrams of c; 0 (nothing now), 1.., or -errno. */
static int fill_batch(Client *c, unsigned want)
{
        int n;

        batch.owner = c;
        batch.n = batch.next = 0;
        batch.drained = false;
        if (want > RECV_BATCH)
                want = RECV_BATCH;
        for (unsigned i = 0; i < want; i++) {
                batch.iov[i] = (struct iovec){ batch.buf[i], sizeof batch.buf[i] };
                batch.mm[i].msg_hdr = (struct msghdr){
                        .msg_iov = &batch.iov[i], .msg_iovlen = 1,
                        .msg_control = batch.control[i].buf, .msg_controllen = sizeof batch.control[i].buf,
                };
                batch.mm[i].msg_len = 0;
        }
        do
                n = recvmmsg(c->fd, batch.mm, want, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC, NULL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
        batch.n = (unsigned)n;
        /* fewer than asked: the socket was empty then, so this wake need not ask again (what
         * comes later makes epoll report the socket again; the lone answer of a watcher costs
         * one system call, not two) */
        batch.drained = (unsigned)n < want;
        return n;
}

void client_receive_done(Client *c)
{
        batch_drop(c);
}

/* One datagram of the connection: CLIENT_INPUT_REQUEST with the decoded request and the fds that
 * came with it (the caller owns them); CLIENT_INPUT_ANSWERED when it was refused here (too
 * large, too many fds, not decodable: the error reply is sent); CLIENT_INPUT_NONE when there is
 * nothing to read now, the peer's replies are not read yet (backpressure), or it is gone.
 * `budget`: how many more datagrams the caller takes from c in this wake (at least 1). */
ClientInput client_receive(Client *c, SdpMessage *m, int *fds, size_t *n_fds, unsigned budget)
{
        struct msghdr *mh;
        const char *buf;
        SdpProblem p;
        ssize_t n;
        unsigned room;

        *n_fds = 0;
        if (batch.owner != c)
                batch.n = batch.next = 0;
        if (c->closing || g_queue_get_length(&c->out) >= c->d->cfg.max_queued_messages) {
                batch_drop(c);
                return CLIENT_INPUT_NONE;   /* backpressure: read more once it has read our replies */
        }
        if (batch.next == batch.n && batch.owner == c && batch.drained)
                return CLIENT_INPUT_NONE;
        if (batch.next == batch.n) {
                /* no more than the queue has room for: each request has one final reply */
                room = c->d->cfg.max_queued_messages - g_queue_get_length(&c->out);
                int r = fill_batch(c, MIN(budget ? budget : 1, room));
                if (r < 0) {
                        batch_drop(c);
                        client_disconnect(c, g_strerror(-r));
                        return CLIENT_INPUT_NONE;
                }
                if (r == 0)
                        return CLIENT_INPUT_NONE;
        }
        mh = &batch.mm[batch.next].msg_hdr;
        n = (ssize_t)batch.mm[batch.next].msg_len;
        buf = batch.buf[batch.next++];
        if (n == 0 && mh->msg_controllen == 0 && peer_closed(c->fd)) {
                batch_drop(c);   /* the rest is end of file again: recvmmsg fills every entry */
                client_disconnect(c, NULL);   /* end of file: the peer closed */
                return CLIENT_INPUT_NONE;
        }
        /* else an empty datagram: decoded below, it is a bad-message */
        take_fds(mh, fds, n_fds);
        if ((size_t)n > SDP_MAX_MESSAGE) {
                refuse(c, 0, fds, n_fds, SDP_E_TOO_LARGE, NULL, "message of %zd bytes exceeds %u", n,
                       SDP_MAX_MESSAGE);
                if (++c->too_large > MAX_TOO_LARGE)
                        client_disconnect(c, "too many oversized messages");
                return CLIENT_INPUT_ANSWERED;
        }
        c->too_large = 0;
        if (mh->msg_flags & MSG_CTRUNC) {
                /* answer the request's seq if it has one, so the caller can match it */
                uint64_t seq = sdp_decode(m, buf, (size_t)n, &p) == 0 ? sdp_get_u64_or(m, "seq", 0) : 0;
                refuse(c, seq, fds, n_fds, SDP_E_BAD_FD, NULL,
                       "too many file descriptors in one message (at most %d)", CLIENT_MAX_FDS);
                return CLIENT_INPUT_ANSWERED;
        }
        /* before the hello, the highest version: a request is no-hello, not unknown-field */
        if (sdp_decode_request(m, buf, (size_t)n, c->hello ? c->version : 0, &p) < 0) {
                refuse(c, sdp_get_u64_or(m, "seq", 0), fds, n_fds, p.code, p.field, "%s", p.text);
                return CLIENT_INPUT_ANSWERED;
        }
        return CLIENT_INPUT_REQUEST;
}
