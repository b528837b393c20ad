/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libsuspendctl.c — see suspendctl.h. Messages are encoded and decoded by the protocol codec
 * (protocol/sdp.h); this file only moves them and turns errors into GErrors. */
#include <errno.h>
#include <glib-unix.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sdp.h"
#include "suspendctl.h"

G_DEFINE_QUARK(suspendctl-error-quark, suspendctl_error)

struct _SuspendctlRecord {
        char *type;
        GPtrArray *keys, *values;
};

struct _SuspendctlClient {
        int fd;
        int passed_fd;                 /* a descriptor that came with the last `ok`, not yet taken */
        char *path;
        guint id;
        guint version;                 /* the protocol version the hello negotiated */
        uint32_t next_seq;
        uint32_t next_block;
        GQueue events;                 /* SuspendctlRecord* not yet delivered */
        SuspendctlEventFunc func;
        gpointer func_data;
        GDestroyNotify func_destroy;
        GSource *source;
        guint idle;
        gboolean dead;
        const uint32_t *live;          /* the daemon's liveness page (§6.16), read-only; NULL: none */
        gboolean no_live;              /* asked, and this daemon has none: holds peek instead */
        int timeout_ms;                /* as set: SUSPENDCTL_TIMEOUT_DEFAULT unless changed */
        /* seqs of calls that timed out: their late replies are dropped, never passed off as the
         * error event of a one-way request (a ring: the oldest is forgotten first) */
        uint32_t abandoned[16];
        unsigned n_abandoned;
};

struct _SuspendctlBlock {
        SuspendctlClient *client;
        guint32 id;
};

/* A delegated block (PROTOCOL.md §6.3): `fd` is the daemon's eventfd once the first acquire
 * delegated it; -1 while the hold speaks plain one-way block/unblock (fallback). */
struct _SuspendctlHold {
        SuspendctlClient *client;
        guint32 id;
        char *reason;
        int fd;
        gboolean opened;               /* the block exists in the daemon (either form) */
        gboolean fallback;             /* the daemon cannot delegate: messages */
        guint held;                    /* acquires not yet released */
};

struct _SuspendctlDeferral {
        SuspendctlClient *client;
        guint64 attempt;
};

/* --- records --- */

static SuspendctlRecord *record_from(const SdpMessage *m)
{
        SuspendctlRecord *r = g_new0(SuspendctlRecord, 1);
        const char *type = m->type == SDP_ITEM ? sdp_get(m, "type") : sdp_type_name(m->type);
        r->type = g_strdup(type ? type : "?");
        r->keys = g_ptr_array_new_with_free_func(g_free);
        r->values = g_ptr_array_new_with_free_func(g_free);
        for (unsigned i = 0; i < m->n_fields; i++) {
                g_ptr_array_add(r->keys, g_strdup(m->fields[i].key));
                g_ptr_array_add(r->values, g_strdup(m->fields[i].value));
        }
        return r;
}

static SuspendctlRecord *record_simple(const char *type, const char *key, const char *value)
{
        SuspendctlRecord *r = g_new0(SuspendctlRecord, 1);
        r->type = g_strdup(type);
        r->keys = g_ptr_array_new_with_free_func(g_free);
        r->values = g_ptr_array_new_with_free_func(g_free);
        if (key) {
                g_ptr_array_add(r->keys, g_strdup(key));
                g_ptr_array_add(r->values, g_strdup(value));
        }
        return r;
}

const char *suspendctl_record_type(const SuspendctlRecord *r)
{
        return r->type;
}

const char *suspendctl_record_get(const SuspendctlRecord *r, const char *key)
{
        for (guint i = 0; i < r->keys->len; i++)
                if (strcmp(g_ptr_array_index(r->keys, i), key) == 0)
                        return g_ptr_array_index(r->values, i);
        return NULL;
}

guint64 suspendctl_record_get_u64(const SuspendctlRecord *r, const char *key, guint64 fallback)
{
        const char *v = suspendctl_record_get(r, key);
        uint64_t n;
        return v && sdp_parse_u64(v, strlen(v), &n) == 0 ? n : fallback;
}

guint suspendctl_record_n_fields(const SuspendctlRecord *r)
{
        return r->keys->len;
}

void suspendctl_record_field(const SuspendctlRecord *r, guint i, const char **key, const char **value)
{
        *key = i < r->keys->len ? g_ptr_array_index(r->keys, i) : NULL;
        *value = i < r->values->len ? g_ptr_array_index(r->values, i) : NULL;
}

void suspendctl_record_free(SuspendctlRecord *r)
{
        if (!r)
                return;
        g_free(r->type);
        g_ptr_array_unref(r->keys);
        g_ptr_array_unref(r->values);
        g_free(r);
}

/* --- transport --- */

/* Deadlines are CLOCK_MONOTONIC microseconds (g_get_monotonic_time), -1 for none: CLOCK_MONOTONIC
 * stops while the machine sleeps, so the time asleep inside a suspend call never counts. */
static gint64 deadline_for(const SuspendctlClient *c, int default_ms)
{
        int ms = c->timeout_ms == SUSPENDCTL_TIMEOUT_DEFAULT ? default_ms : c->timeout_ms;
        if (ms == SUSPENDCTL_TIMEOUT_INFINITE)
                return -1;
        return g_get_monotonic_time() + (gint64)ms * 1000;
}

/* What is left of a deadline as a poll() timeout, rounded up so a wait never ends early. */
static int ms_left(gint64 deadline)
{
        gint64 left;
        if (deadline < 0)
                return -1;
        left = deadline - g_get_monotonic_time();
        return left <= 0 ? 0 : (int)MIN((left + 999) / 1000, (gint64)G_MAXINT - 1);
}

static void set_timed_out(const SuspendctlClient *c, int default_ms, const char *what, GError **error)
{
        int ms = c->timeout_ms == SUSPENDCTL_TIMEOUT_DEFAULT ? default_ms : c->timeout_ms;
        g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT,
                    "suspendd did not %s within %d ms (is it hung?)", what, ms);
}

static gboolean set_dead(SuspendctlClient *c, GError **error)
{
        if (!c->dead) {
                c->dead = TRUE;
                g_queue_push_tail(&c->events, record_simple("disconnected", NULL, NULL));
        }
        g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_DISCONNECTED,
                    "the daemon closed the connection (was suspendd stopped?)");
        return FALSE;
}

/* Send one message; a daemon that does not read its socket until `deadline` is TIMED_OUT. */
static gboolean send_msg(SuspendctlClient *c, const SdpMessage *m, const int *fd, gint64 deadline, GError **error)
{
        char buf[SDP_MAX_MESSAGE + 1];
        SdpProblem p;
        int n = sdp_encode(m, buf, sizeof buf, &p);
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } control;
        struct iovec iov;
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

        if (n < 0) {
                if (n == -ENOSPC)
                        g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TOO_LARGE,
                                    "request over %u bytes", SDP_MAX_MESSAGE);
                else   /* the protocol's own code: BAD_FIELD, CONFLICTING_FIELDS, MISSING_FIELD */
                        g_set_error(error, SUSPENDCTL_ERROR,
                                    p.code != SDP_E_NONE ? (gint)p.code : SUSPENDCTL_ERROR_BAD_FIELD, "%s", p.text);
                return FALSE;
        }
        if (c->dead)
                return set_dead(c, error);
        iov.iov_base = buf;
        iov.iov_len = (size_t)n;
        if (fd) {
                struct cmsghdr *cm;
                memset(&control, 0, sizeof control);
                mh.msg_control = control.buf;
                mh.msg_controllen = sizeof control.buf;
                cm = CMSG_FIRSTHDR(&mh);
                cm->cmsg_level = SOL_SOCKET;
                cm->cmsg_type = SCM_RIGHTS;
                cm->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(cm), fd, sizeof(int));
        }
        for (;;) {
                ssize_t s = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (s >= 0)
                        return TRUE;
                if (errno == EINTR)
                        continue;
                if (errno == EAGAIN) {
                        struct pollfd pfd = { c->fd, POLLOUT, 0 };
                        int r = poll(&pfd, 1, ms_left(deadline));
                        if (r == 0) {
                                set_timed_out(c, SUSPENDCTL_TIMEOUT_REPLY_MS, "read its socket", error);
                                return FALSE;
                        }
                        continue;
                }
                if (errno == EPIPE || errno == ECONNRESET)
                        return set_dead(c, error);
                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_DISCONNECTED, "send: %s", g_strerror(errno));
                return FALSE;
        }
}

/* Read one datagram until `deadline` (-1: no limit; 0: only what is queued). Returns 1 with *m
 * filled, 0 on timeout, -1 on error. */
/* One datagram, and the descriptor it carries, if any (*fd = -1 otherwise; extra ones closed). */
static ssize_t recv_datagram(SuspendctlClient *c, char *buf, size_t size, int *fd)
{
        union {
                char buf[CMSG_SPACE(4 * sizeof(int))];
                struct cmsghdr align;
        } u;
        struct iovec iov = { buf, size };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
        ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

        *fd = -1;
        if (n < 0)
                return n;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
                size_t k;
                if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
                        continue;
                k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < k; i++) {
                        int f;
                        memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof f);
                        if (*fd < 0)
                                *fd = f;
                        else
                                close(f);
                }
        }
        return n;
}

static int recv_msg(SuspendctlClient *c, SdpMessage *m, gint64 deadline, GError **error)
{
        char buf[SDP_MAX_MESSAGE + 1];
        SdpProblem p;
        ssize_t n;
        int fd;

        for (;;) {
                struct pollfd pfd = { c->fd, POLLIN, 0 };
                int r;
                if (c->dead) {
                        set_dead(c, error);
                        return -1;
                }
                r = poll(&pfd, 1, ms_left(deadline));
                if (r < 0 && errno == EINTR)
                        continue;
                if (r == 0)
                        return 0;
                n = recv_datagram(c, buf, sizeof buf, &fd);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n <= 0) {
                        set_dead(c, error);
                        return -1;
                }
                if (sdp_decode(m, buf, (size_t)n, &p) < 0) {
                        if (fd >= 0)
                                close(fd);
                        if (p.code == SDP_E_UNKNOWN_REQUEST)
                                continue;   /* an event of a newer daemon: ignore (PROTOCOL.md §4) */
                        g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_PROTOCOL,
                                    "cannot read the daemon's message: %s", p.text);
                        return -1;
                }
                /* only an `ok` carries one (a delegated block's, the liveness page): kept for the caller */
                if (fd >= 0 && m->type == SDP_OK) {
                        if (c->passed_fd >= 0)
                                close(c->passed_fd);
                        c->passed_fd = fd;
                } else if (fd >= 0) {
                        close(fd);
                }
                return 1;
        }
}

static void error_from_reply(const SdpMessage *m, GError **error)
{
        const char *code = sdp_get(m, "code");
        SdpError e = code ? sdp_error_from_name(code) : SDP_E_INTERNAL;
        g_set_error(error, SUSPENDCTL_ERROR, (gint)e, "%s", sdp_get(m, "message") ? sdp_get(m, "message") : code);
}

static void abandon(SuspendctlClient *c, uint32_t seq)
{
        c->abandoned[c->n_abandoned++ % G_N_ELEMENTS(c->abandoned)] = seq;
}

static gboolean is_abandoned(const SuspendctlClient *c, const SdpMessage *m)
{
        uint64_t seq = sdp_get_u64_or(m, "seq", 0);
        unsigned n = MIN(c->n_abandoned, G_N_ELEMENTS(c->abandoned));
        for (unsigned i = 0; seq && i < n; i++)
                if (c->abandoned[i] == seq)
                        return TRUE;
        return FALSE;
}

/* An event, or an error reply to a one-way request (its seq has no waiter), which becomes an
 * "error" event; a late reply to a call that timed out is dropped. */
static void queue_event(SuspendctlClient *c, const SdpMessage *m)
{
        if (sdp_type_kind(m->type) != SDP_EVENT && is_abandoned(c, m))
                return;
        g_queue_push_tail(&c->events, record_from(m));
}

static void schedule_dispatch(SuspendctlClient *c);

/* Send a request and wait for its final reply, up to the client's timeout. Items go to *items if
 * given; the final `ok` to *reply if given. Events that arrive meanwhile are queued for the
 * handler. */
static gboolean call(SuspendctlClient *c, SdpMessage *req, const int *fd, GPtrArray **items,
                     SdpMessage *reply, GError **error)
{
        uint32_t seq = ++c->next_seq;
        gint64 deadline = deadline_for(c, SUSPENDCTL_TIMEOUT_REPLY_MS);
        SdpMessage m;

        if (sdp_add_u64(req, "seq", seq) < 0 || !send_msg(c, req, fd, deadline, error))
                return FALSE;
        if (items)
                *items = g_ptr_array_new_with_free_func((GDestroyNotify)suspendctl_record_free);
        for (;;) {
                int r = recv_msg(c, &m, deadline, error);
                if (r < 0)
                        break;
                if (r == 0) {   /* a late reply carries this seq: dropped when it comes */
                        abandon(c, seq);
                        set_timed_out(c, SUSPENDCTL_TIMEOUT_REPLY_MS, "answer", error);
                        break;
                }
                if (sdp_type_kind(m.type) == SDP_EVENT) {
                        queue_event(c, &m);
                        continue;
                }
                /* A refused connection (too many clients) is answered with seq=0 before our
                 * hello is read: that error is the answer to the hello. */
                if (m.type == SDP_ERROR && c->id == 0 && sdp_get_u64_or(&m, "seq", 0) == 0) {
                        error_from_reply(&m, error);
                        break;
                }
                if (sdp_get_u64_or(&m, "seq", 0) != seq) {
                        if (m.type == SDP_ERROR)
                                queue_event(c, &m);
                        continue;
                }
                if (m.type == SDP_ITEM) {
                        if (items)
                                g_ptr_array_add(*items, record_from(&m));
                        continue;
                }
                if (m.type == SDP_ERROR) {
                        error_from_reply(&m, error);
                        break;
                }
                if (reply)
                        *reply = m;
                schedule_dispatch(c);
                return TRUE;
        }
        schedule_dispatch(c);
        if (items) {
                g_ptr_array_unref(*items);
                *items = NULL;
        }
        return FALSE;
}

/* A daemon over its connection limits answers a new connection with one error and closes it,
 * maybe before our hello was sent (EPIPE): that queued error is the real answer. */
static void refusal_instead(SuspendctlClient *c, GError **error)
{
        char buf[SDP_MAX_MESSAGE + 1];
        SdpMessage m;
        ssize_t n;

        if (!error || !*error || !g_error_matches(*error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_DISCONNECTED))
                return;
        n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0 && sdp_decode(&m, buf, (size_t)n, NULL) == 0 && m.type == SDP_ERROR) {
                g_clear_error(error);
                error_from_reply(&m, error);
        }
}

/* A daemon that stopped accepting leaves connect() waiting in the kernel for room in its backlog;
 * on AF_UNIX that wait is bounded by SO_SNDTIMEO, after which connect fails with EAGAIN. */
static int connect_socket(const char *path, const struct sockaddr_un *sa, int timeout_ms, GError **error)
{
        int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), e;
        int ms = timeout_ms == SUSPENDCTL_TIMEOUT_DEFAULT ? SUSPENDCTL_TIMEOUT_REPLY_MS : timeout_ms;
        struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

        if (fd >= 0 && ms != SUSPENDCTL_TIMEOUT_INFINITE)
                (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0)
                return fd;
        e = errno;
        if (fd >= 0)
                close(fd);
        if (e == EAGAIN)
                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT,
                            "suspendd did not accept the connection within %d ms (is it hung?)", ms);
        else
                g_set_error(error, SUSPENDCTL_ERROR,
                            e == EACCES ? SUSPENDCTL_ERROR_PERMISSION_DENIED : SUSPENDCTL_ERROR_NOT_RUNNING,
                            "cannot connect to suspendd at %s: %s%s", path, g_strerror(e),
                            e == ENOENT || e == ECONNREFUSED ? " (is suspendd running?)" : "");
        return -1;
}

SuspendctlClient *suspendctl_client_new(const char *socket_path, const char *name, GError **error)
{
        return suspendctl_client_new_with_timeout(socket_path, name, SUSPENDCTL_TIMEOUT_DEFAULT, error);
}

/* The constructor as LIBSUSPENDCTL_0.1 had it, for programs linked against 0.1: every wait
 * without limit, as then (the client's timeout is a property of the client, so this one
 * constructor keeps all of 0.1's calls as they were). Programs built against 0.2 get the
 * constructor above, suspendctl_client_new@@LIBSUSPENDCTL_0.2, with the documented timeouts. */
SuspendctlClient *libsuspendctl_compat_client_new_0_1(const char *socket_path, const char *name, GError **error);
__asm__(".symver libsuspendctl_compat_client_new_0_1,suspendctl_client_new@LIBSUSPENDCTL_0.1");
SuspendctlClient *libsuspendctl_compat_client_new_0_1(const char *socket_path, const char *name, GError **error)
{
        return suspendctl_client_new_with_timeout(socket_path, name, SUSPENDCTL_TIMEOUT_INFINITE, error);
}

SuspendctlClient *suspendctl_client_new_with_timeout(const char *socket_path, const char *name, int timeout_ms,
                                                     GError **error)
{
        SuspendctlClient *c;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        SdpMessage m, reply;
        const char *path = socket_path ? socket_path : g_getenv("SUSPENDD_SOCKET");
        int fd;

        g_return_val_if_fail(timeout_ms > 0 || timeout_ms == SUSPENDCTL_TIMEOUT_DEFAULT, NULL);
        if (!path || !*path)
                path = "/run/suspendd/socket";
        if (strlen(path) >= sizeof sa.sun_path) {
                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_NOT_RUNNING, "socket path too long: %s", path);
                return NULL;
        }
        strcpy(sa.sun_path, path);
        if ((fd = connect_socket(path, &sa, timeout_ms, error)) < 0)
                return NULL;
        c = g_new0(SuspendctlClient, 1);
        c->fd = fd;
        c->passed_fd = -1;
        c->path = g_strdup(path);
        c->timeout_ms = timeout_ms;
        g_queue_init(&c->events);
        sdp_message_init(&m, SDP_HELLO);
        sdp_add_u64(&m, "version", SDP_VERSION);
        if (name)
                sdp_add(&m, "name", name);
        if (!call(c, &m, NULL, NULL, &reply, error)) {
                refusal_instead(c, error);
                suspendctl_client_free(c);
                return NULL;
        }
        c->id = (guint)sdp_get_u64_or(&reply, "client", 0);
        c->version = (guint)sdp_get_u64_or(&reply, "version", 1);
        return c;
}

void suspendctl_client_free(SuspendctlClient *c)
{
        if (!c)
                return;
        if (c->source) {
                g_source_destroy(c->source);
                g_source_unref(c->source);
        }
        if (c->idle)
                g_source_remove(c->idle);
        if (c->func_destroy)
                c->func_destroy(c->func_data);
        g_queue_clear_full(&c->events, (GDestroyNotify)suspendctl_record_free);
        if (c->passed_fd >= 0)
                close(c->passed_fd);
        if (c->live)
                munmap((void *)c->live, SDP_LIVENESS_PAGE);
        close(c->fd);
        g_free(c->path);
        g_free(c);
}

const char *suspendctl_client_get_socket_path(const SuspendctlClient *c)
{
        return c->path;
}

guint suspendctl_client_get_id(const SuspendctlClient *c)
{
        return c->id;
}

guint suspendctl_client_get_version(const SuspendctlClient *c)
{
        return c->version;
}

const char *suspendctl_sleep_state_name(SuspendctlSleepState state)
{
        switch (state) {
        case SUSPENDCTL_SLEEP_SUSPEND: return "suspend";
        case SUSPENDCTL_SLEEP_HIBERNATE: return "hibernate";
        case SUSPENDCTL_SLEEP_HYBRID: return "hybrid";
        case SUSPENDCTL_SLEEP_SUSPEND_THEN_HIBERNATE: return "suspend-then-hibernate";
        }
        return NULL;
}

int suspendctl_client_get_fd(const SuspendctlClient *c)
{
        return c->fd;
}

void suspendctl_client_set_timeout(SuspendctlClient *c, int timeout_ms)
{
        g_return_if_fail(timeout_ms > 0 || timeout_ms == SUSPENDCTL_TIMEOUT_DEFAULT);
        c->timeout_ms = timeout_ms;
}

int suspendctl_client_get_timeout(const SuspendctlClient *c)
{
        return c->timeout_ms;
}

/* --- events --- */

static void dispatch_queued(SuspendctlClient *c)
{
        SuspendctlRecord *r;
        while (c->func && (r = g_queue_pop_head(&c->events))) {
                c->func(c, r, c->func_data);
                suspendctl_record_free(r);
        }
}

static gboolean idle_dispatch(gpointer data)
{
        SuspendctlClient *c = data;
        c->idle = 0;
        dispatch_queued(c);
        return G_SOURCE_REMOVE;
}

static void schedule_dispatch(SuspendctlClient *c)
{
        if (c->source && c->func && !c->idle && !g_queue_is_empty(&c->events))
                c->idle = g_idle_add(idle_dispatch, c);
}

static gboolean on_readable(gint fd, GIOCondition cond, gpointer data)
{
        SuspendctlClient *c = data;
        SdpMessage m;
        int r;
        while ((r = recv_msg(c, &m, 0, NULL)) > 0)
                if (sdp_type_kind(m.type) == SDP_EVENT || m.type == SDP_ERROR)
                        queue_event(c, &m);
        dispatch_queued(c);
        if (r < 0 || c->dead) {
                g_source_unref(c->source);
                c->source = NULL;
                return G_SOURCE_REMOVE;
        }
        return G_SOURCE_CONTINUE;
}

void suspendctl_client_set_event_handler(SuspendctlClient *c, SuspendctlEventFunc func, gpointer user_data,
                                         GDestroyNotify destroy)
{
        if (c->func_destroy)
                c->func_destroy(c->func_data);
        c->func = func;
        c->func_data = user_data;
        c->func_destroy = destroy;
        schedule_dispatch(c);
}

void suspendctl_client_attach(SuspendctlClient *c, GMainContext *context)
{
        if (c->source)
                return;
        c->source = g_unix_fd_source_new(c->fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
        g_source_set_callback(c->source, (GSourceFunc)(void (*)(void))on_readable, c, NULL);
        g_source_attach(c->source, context);
        schedule_dispatch(c);
}

/* The next event, waiting until `deadline` (as recv_msg); NULL on timeout. */
static SuspendctlRecord *next_event_until(SuspendctlClient *c, gint64 deadline, GError **error)
{
        SdpMessage m;
        for (;;) {
                int r;
                if (!g_queue_is_empty(&c->events))
                        return g_queue_pop_head(&c->events);
                r = recv_msg(c, &m, deadline, error);
                if (r < 0)
                        return g_queue_pop_head(&c->events);   /* the "disconnected" record */
                if (r == 0)
                        return NULL;
                if (sdp_type_kind(m.type) == SDP_EVENT || m.type == SDP_ERROR)
                        queue_event(c, &m);
        }
}

SuspendctlRecord *suspendctl_client_next_event(SuspendctlClient *c, int timeout_ms, GError **error)
{
        return next_event_until(c, timeout_ms < 0 ? -1 : g_get_monotonic_time() + (gint64)timeout_ms * 1000, error);
}

/* --- requests --- */

static gboolean simple(SuspendctlClient *c, SdpType type, const char *k1, const char *v1, GError **error)
{
        SdpMessage m;
        sdp_message_init(&m, type);
        if (k1 && v1)
                sdp_add(&m, k1, v1);
        return call(c, &m, NULL, NULL, NULL, error);
}

/* `block` (with its reason) or `unblock` of block `id`: one-way (PROTOCOL.md §6.3), or waiting
 * for the daemon's answer. Blocks and holds both send theirs through here. */
static gboolean send_block(SuspendctlClient *c, SdpType type, guint32 id, const char *reason, gboolean oneway,
                           GError **error)
{
        SdpMessage m;

        sdp_message_init(&m, type);
        sdp_add_u64(&m, "id", id);
        if (type == SDP_BLOCK && reason)
                sdp_add(&m, "reason", reason);
        if (!oneway)
                return call(c, &m, NULL, NULL, NULL, error);
        sdp_add_u64(&m, "seq", ++c->next_seq);
        sdp_add_bool(&m, "noreply", true);
        return send_msg(c, &m, NULL, deadline_for(c, SUSPENDCTL_TIMEOUT_REPLY_MS), error);
}

static SuspendctlBlock *block(SuspendctlClient *c, const char *reason, gboolean oneway, GError **error)
{
        SuspendctlBlock *b;
        guint32 id = ++c->next_block;

        if (!send_block(c, SDP_BLOCK, id, reason, oneway, error))
                return NULL;
        b = g_new0(SuspendctlBlock, 1);
        b->client = c;
        b->id = id;
        return b;
}

SuspendctlBlock *suspendctl_client_block(SuspendctlClient *c, const char *reason, GError **error)
{
        return block(c, reason, TRUE, error);
}

SuspendctlBlock *suspendctl_client_block_acked(SuspendctlClient *c, const char *reason, GError **error)
{
        return block(c, reason, FALSE, error);
}

void suspendctl_block_forget(SuspendctlBlock *b)
{
        g_free(b);
}

guint32 suspendctl_block_get_id(const SuspendctlBlock *b)
{
        return b->id;
}

gboolean suspendctl_block_release(SuspendctlBlock *b, GError **error)
{
        gboolean ok = send_block(b->client, SDP_UNBLOCK, b->id, NULL, TRUE, error);
        g_free(b);
        return ok;
}

/* --- delegated blocks (PROTOCOL.md §6.3) --- */

SuspendctlHold *suspendctl_client_hold_new(SuspendctlClient *c, const char *reason)
{
        SuspendctlHold *h = g_new0(SuspendctlHold, 1);
        h->client = c;
        h->id = ++c->next_block;   /* the block ids' space: plain and delegated share it */
        h->reason = g_strdup(reason);
        h->fd = -1;
        h->fallback = c->version < 2;   /* delegate=1 is a version 2 field */
        return h;
}

/* One peek at the connection, no wait: EOF only once the daemon closed its end. */
static gboolean peek_alive(SuspendctlClient *c, GError **error)
{
        char byte;
        ssize_t n;

        if (!c->dead) {
                do
                        n = recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
                while (n < 0 && errno == EINTR);
                if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
                        return TRUE;
        }
        return set_dead(c, error);
}

/* The daemon went away (a restart): our eventfd is a counter nobody watches, so an acquire must
 * fail rather than pretend. With the daemon's liveness page (PROTOCOL.md §6.16) that is one load:
 * its first word is a robust futex the daemon's main thread holds, whose TID bits the kernel
 * clears and whose FUTEX_OWNER_DIED it sets when that thread exits (a clean stop leaves 0).
 * Without it, a peek. (A connection the running daemon ended is told by the eventfd itself: the
 * write fails.) */
static gboolean connection_alive(SuspendctlClient *c, GError **error)
{
        uint32_t w;

        if (c->dead || !c->live)
                return peek_alive(c, error);
        w = __atomic_load_n(c->live, __ATOMIC_ACQUIRE);
        if ((w & FUTEX_TID_MASK) != 0 && !(w & FUTEX_OWNER_DIED))
                return TRUE;
        return set_dead(c, error);
}

/* The daemon's liveness page, asked for once per client, with its first delegated hold: mapped
 * read-only (the daemon sealed it so). A daemon without one (an error of any kind, e.g.
 * unknown-request from an older one) leaves the holds peeking at the connection. */
static void liveness_map(SuspendctlClient *c)
{
        SdpMessage m;
        void *page;

        if (c->live || c->no_live)
                return;
        sdp_message_init(&m, SDP_LIVENESS);
        if (call(c, &m, NULL, NULL, NULL, NULL) && c->passed_fd >= 0) {
                page = mmap(NULL, SDP_LIVENESS_PAGE, PROT_READ, MAP_SHARED, c->passed_fd, 0);
                close(c->passed_fd);
                c->passed_fd = -1;
                if (page != MAP_FAILED)
                        c->live = page;
        }
        c->no_live = !c->live;   /* asked once: without a page the holds peek */
}

/* The first acquire: `block delegate=1`, held from the daemon's side at once (counter 1). A
 * daemon that cannot delegate (unsupported) makes this hold speak messages from now on. */
static gboolean hold_open(SuspendctlHold *h, GError **error)
{
        SuspendctlClient *c = h->client;
        GError *local = NULL;
        SdpMessage m, reply;

        sdp_message_init(&m, SDP_BLOCK);
        sdp_add_u64(&m, "id", h->id);
        if (h->reason)
                sdp_add(&m, "reason", h->reason);
        sdp_add_bool(&m, "delegate", true);
        if (!call(c, &m, NULL, NULL, &reply, &local)) {
                if (g_error_matches(local, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_UNSUPPORTED)) {
                        g_error_free(local);
                        h->fallback = TRUE;
                        return FALSE;   /* the caller sends the plain block */
                }
                g_propagate_error(error, local);
                return FALSE;
        }
        if (c->passed_fd < 0) {
                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_PROTOCOL,
                            "the daemon delegated block %u without its descriptor", h->id);
                return FALSE;
        }
        h->fd = c->passed_fd;
        c->passed_fd = -1;
        h->opened = TRUE;
        liveness_map(c);
        return TRUE;
}

static gboolean hold_message(SuspendctlHold *h, SdpType type, GError **error)
{
        return send_block(h->client, type, h->id, h->reason, TRUE, error);
}

gboolean suspendctl_hold_acquire(SuspendctlHold *h, GError **error)
{
        static const uint64_t one = 1;
        GError *local = NULL;

        if (h->fd >= 0) {   /* the fast path: one write, no message */
                if (!connection_alive(h->client, error))
                        return FALSE;
                if (write(h->fd, &one, sizeof one) != (ssize_t)sizeof one) {
                        if (errno != EAGAIN) {
                                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_INTERNAL,
                                            "delegated block %u: %s", h->id, g_strerror(errno));
                                return FALSE;
                        }
                        /* the daemon ended it and filled the counter (§6.3): gone with the
                         * connection, or ended by an unblock of its id sent around us */
                        if (!peek_alive(h->client, error))
                                return FALSE;
                        g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_NOT_FOUND,
                                    "delegated block %u was ended by the daemon", h->id);
                        return FALSE;
                }
                h->held++;
                return TRUE;
        }
        if (!h->fallback && !h->opened) {
                if (hold_open(h, &local)) {
                        h->held = 1;
                        return TRUE;
                }
                if (!h->fallback) {
                        g_propagate_error(error, local);
                        return FALSE;
                }
        }
        /* fallback: a one-way block for the first acquire; nested ones only count */
        if (h->held == 0 && !hold_message(h, SDP_BLOCK, error))
                return FALSE;
        h->held++;
        return TRUE;
}

gboolean suspendctl_hold_release(SuspendctlHold *h, GError **error)
{
        uint64_t v;

        if (h->held == 0) {
                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_NOT_FOUND,
                            "hold %u is not held", h->id);
                return FALSE;
        }
        if (h->fd >= 0) {   /* EFD_SEMAPHORE: one read gives one acquire back */
                if (read(h->fd, &v, sizeof v) != (ssize_t)sizeof v) {
                        g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_INTERNAL,
                                    "delegated block %u: %s", h->id, g_strerror(errno));
                        return FALSE;
                }
                h->held--;
                return TRUE;
        }
        if (h->held == 1 && !hold_message(h, SDP_UNBLOCK, error))
                return FALSE;
        h->held--;
        return TRUE;
}

gboolean suspendctl_hold_is_delegated(const SuspendctlHold *h)
{
        return h->fd >= 0;
}

guint32 suspendctl_hold_get_id(const SuspendctlHold *h)
{
        return h->id;
}

void suspendctl_hold_free(SuspendctlHold *h)
{
        if (!h)
                return;
        /* the daemon's end: a delegated block exists until unblock even when not held */
        if ((h->fd >= 0 || (h->fallback && h->held > 0)) && !h->client->dead)
                hold_message(h, SDP_UNBLOCK, NULL);
        if (h->fd >= 0)
                close(h->fd);
        g_free(h->reason);
        g_free(h);
}

gboolean suspendctl_client_watch(SuspendctlClient *c, const char *name, guint budget_ms, GError **error)
{
        SdpMessage m;
        sdp_message_init(&m, SDP_WATCH);
        if (name)
                sdp_add(&m, "name", name);
        if (budget_ms)
                sdp_add_u64(&m, "budget_ms", budget_ms);
        return call(c, &m, NULL, NULL, NULL, error);
}

gboolean suspendctl_client_unwatch(SuspendctlClient *c, GError **error)
{
        return simple(c, SDP_UNWATCH, NULL, NULL, error);
}

gboolean suspendctl_client_ready(SuspendctlClient *c, guint64 attempt, GError **error)
{
        SdpMessage m;
        sdp_message_init(&m, SDP_READY);
        sdp_add_u64(&m, "attempt", attempt);
        return call(c, &m, NULL, NULL, NULL, error);
}

gboolean suspendctl_client_veto(SuspendctlClient *c, guint64 attempt, const char *reason, GError **error)
{
        SdpMessage m;
        sdp_message_init(&m, SDP_VETO);
        sdp_add_u64(&m, "attempt", attempt);
        sdp_add(&m, "reason", reason ? reason : "busy");
        return call(c, &m, NULL, NULL, NULL, error);
}

SuspendctlDeferral *suspendctl_client_defer(SuspendctlClient *c, guint64 attempt)
{
        SuspendctlDeferral *d = g_new0(SuspendctlDeferral, 1);
        d->client = c;
        d->attempt = attempt;
        return d;
}

gboolean suspendctl_deferral_complete(SuspendctlDeferral *d, GError **error)
{
        gboolean ok = suspendctl_client_ready(d->client, d->attempt, error);
        g_free(d);
        return ok;
}

gboolean suspendctl_client_add_fd(SuspendctlClient *c, int fd, const char *label, guint32 *id, GError **error)
{
        SdpMessage m;
        guint32 fid = ++c->next_block;
        sdp_message_init(&m, SDP_FD_ADD);
        sdp_add_u64(&m, "id", fid);
        if (label)
                sdp_add(&m, "label", label);
        if (!call(c, &m, &fd, NULL, NULL, error))
                return FALSE;
        if (id)
                *id = fid;
        return TRUE;
}

gboolean suspendctl_client_remove_fd(SuspendctlClient *c, guint32 id, GError **error)
{
        SdpMessage m;
        sdp_message_init(&m, SDP_FD_REMOVE);
        sdp_add_u64(&m, "id", id);
        return call(c, &m, NULL, NULL, NULL, error);
}

/* Start a request; returns the attempt id (0: immediate-mode no-op) or -1 with error. A plain
 * suspend sends no state, so it reads the same to a daemon of either protocol version. */
static gint64 request_suspend(SuspendctlClient *c, SuspendctlSleepState state, gboolean user, GError **error)
{
        SdpMessage m, reply;
        const char *name = suspendctl_sleep_state_name(state);

        if (!name) {
                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_BAD_FIELD, "no such sleep state %d", (int)state);
                return -1;
        }
        if (state != SUSPENDCTL_SLEEP_SUSPEND && c->version < 2) {
                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_UNSUPPORTED,
                            "this suspendd speaks protocol version %u: %s needs version 2 (a newer suspendd)",
                            c->version, name);
                return -1;
        }
        sdp_message_init(&m, SDP_SUSPEND);
        sdp_add(&m, "kind", user ? "user" : "application");
        if (state != SUSPENDCTL_SLEEP_SUSPEND)
                sdp_add(&m, "state", name);
        if (!call(c, &m, NULL, NULL, &reply, error))
                return -1;
        return (gint64)sdp_get_u64_or(&reply, "attempt", 0);
}

static gboolean is_outcome(const SuspendctlRecord *r, guint64 attempt)
{
        const char *t = suspendctl_record_type(r);
        return (strcmp(t, "resumed") == 0 || strcmp(t, "aborted") == 0) &&
               suspendctl_record_get_u64(r, "attempt", 0) == attempt;
}

static gboolean outcome_result(SuspendctlRecord *r, SuspendctlRecord **outcome, GError **error)
{
        gboolean ok = strcmp(suspendctl_record_type(r), "resumed") == 0;
        if (!ok)
                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_ABORTED, "attempt %s aborted: %s%s%s",
                            suspendctl_record_get(r, "attempt"), suspendctl_record_get(r, "reason"),
                            suspendctl_record_get(r, "detail") ? ": " : "",
                            suspendctl_record_get(r, "detail") ? suspendctl_record_get(r, "detail") : "");
        if (outcome)
                *outcome = r;
        else
                suspendctl_record_free(r);
        return ok;
}

gboolean suspendctl_client_suspend(SuspendctlClient *c, gboolean user, guint64 *attempt,
                                   SuspendctlRecord **outcome, GError **error)
{
        return suspendctl_client_sleep(c, SUSPENDCTL_SLEEP_SUSPEND, user, attempt, outcome, error);
}

gboolean suspendctl_client_sleep(SuspendctlClient *c, SuspendctlSleepState state, gboolean user,
                                 guint64 *attempt, SuspendctlRecord **outcome, GError **error)
{
        gint64 deadline = deadline_for(c, SUSPENDCTL_TIMEOUT_ATTEMPT_MS);
        gint64 id = request_suspend(c, state, user, error);
        GQueue keep = G_QUEUE_INIT;
        gboolean result = FALSE;

        if (outcome)
                *outcome = NULL;
        if (id < 0)
                return FALSE;
        if (attempt)
                *attempt = (guint64)id;
        if (id == 0)
                return TRUE;
        for (;;) {
                GError *local = NULL;
                SuspendctlRecord *r = next_event_until(c, deadline, &local);
                if (!r && !local) {   /* the daemon is silent: no outcome in time */
                        set_timed_out(c, SUSPENDCTL_TIMEOUT_ATTEMPT_MS, "report the attempt's outcome", error);
                        break;
                }
                if (!r || strcmp(suspendctl_record_type(r), "disconnected") == 0) {
                        if (r)
                                g_queue_push_tail(&keep, r);
                        if (local)
                                g_propagate_error(error, local);
                        else
                                g_set_error(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_DISCONNECTED,
                                            "the daemon went away during the attempt");
                        break;
                }
                g_clear_error(&local);
                if (is_outcome(r, (guint64)id)) {
                        result = outcome_result(r, outcome, error);
                        break;
                }
                g_queue_push_tail(&keep, r);   /* other events stay for the handler */
        }
        while (!g_queue_is_empty(&keep))
                g_queue_push_head(&c->events, g_queue_pop_tail(&keep));
        schedule_dispatch(c);
        return result;
}

/* The async form runs the blocking wait on a worker thread of its own connection so the
 * caller's connection and main loop stay free. */
typedef struct {
        char *path;
        SuspendctlSleepState state;
        gboolean user;
        int timeout_ms;
} SuspendJob;

static void suspend_job_free(gpointer p)
{
        SuspendJob *j = p;
        g_free(j->path);
        g_free(j);
}

static void suspend_thread(GTask *task, gpointer src, gpointer data, GCancellable *cancel)
{
        SuspendJob *j = data;
        GError *error = NULL;
        SuspendctlRecord *outcome = NULL;
        SuspendctlClient *own = suspendctl_client_new_with_timeout(j->path, "libsuspendctl-async", j->timeout_ms, &error);
        if (own && suspendctl_client_sleep(own, j->state, j->user, NULL, &outcome, &error) && !outcome)
                outcome = record_simple("resumed", "noop", "1");
        suspendctl_client_free(own);
        if (error) {
                suspendctl_record_free(outcome);
                g_task_return_error(task, error);
        } else {
                g_task_return_pointer(task, outcome, (GDestroyNotify)suspendctl_record_free);
        }
}

void suspendctl_client_suspend_async(SuspendctlClient *c, gboolean user, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data)
{
        suspendctl_client_sleep_async(c, SUSPENDCTL_SLEEP_SUSPEND, user, cancellable, callback, user_data);
}

void suspendctl_client_sleep_async(SuspendctlClient *c, SuspendctlSleepState state, gboolean user,
                                   GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
        GTask *task = g_task_new(NULL, cancellable, callback, user_data);
        SuspendJob *j = g_new0(SuspendJob, 1);
        j->path = g_strdup(c->path);
        j->state = state;
        j->user = user;
        j->timeout_ms = c->timeout_ms;
        g_task_set_source_tag(task, suspendctl_client_suspend_async);
        g_task_set_task_data(task, j, suspend_job_free);
        g_task_run_in_thread(task, suspend_thread);
        g_object_unref(task);
}

SuspendctlRecord *suspendctl_client_suspend_finish(SuspendctlClient *c, GAsyncResult *result, GError **error)
{
        return g_task_propagate_pointer(G_TASK(result), error);
}

char *suspendctl_client_get_mode(SuspendctlClient *c, GError **error)
{
        SdpMessage m, reply;
        sdp_message_init(&m, SDP_MODE_GET);
        if (!call(c, &m, NULL, NULL, &reply, error))
                return NULL;
        return g_strdup(sdp_get(&reply, "mode"));
}

gboolean suspendctl_client_set_mode(SuspendctlClient *c, const char *mode, GError **error)
{
        return simple(c, SDP_MODE_SET, "mode", mode, error);
}

gboolean suspendctl_client_disable(SuspendctlClient *c, const char *reason, GError **error)
{
        return simple(c, SDP_DISABLE, "reason", reason, error);
}

gboolean suspendctl_client_enable(SuspendctlClient *c, GError **error)
{
        return simple(c, SDP_ENABLE, NULL, NULL, error);
}

guint32 suspendctl_client_alarm_add(SuspendctlClient *c, const char *name, gint64 at, guint64 in_seconds,
                                    const char *cron, guint hold_s, const char *command,
                                    gint64 *next, GError **error)
{
        SdpMessage m, reply;
        sdp_message_init(&m, SDP_ALARM_ADD);
        sdp_add(&m, "name", name);
        if (at > 0)
                sdp_add_u64(&m, "at", (uint64_t)at);
        if (in_seconds > 0)
                sdp_add_u64(&m, "in", in_seconds);
        if (cron)
                sdp_add(&m, "cron", cron);
        if (hold_s)
                sdp_add_u64(&m, "hold", hold_s);
        if (command)
                sdp_add(&m, "command", command);
        if (!call(c, &m, NULL, NULL, &reply, error))
                return 0;
        if (next)
                *next = (gint64)sdp_get_u64_or(&reply, "next", 0);
        return (guint32)sdp_get_u64_or(&reply, "alarm", 0);
}

GPtrArray *suspendctl_client_alarm_list(SuspendctlClient *c, GError **error)
{
        SdpMessage m;
        GPtrArray *items = NULL;
        sdp_message_init(&m, SDP_ALARM_LIST);
        return call(c, &m, NULL, &items, NULL, error) ? items : NULL;
}

gboolean suspendctl_client_alarm_cancel(SuspendctlClient *c, guint32 id, const char *name, GError **error)
{
        SdpMessage m;
        sdp_message_init(&m, SDP_ALARM_CANCEL);
        if (name)
                sdp_add(&m, "name", name);
        else
                sdp_add_u64(&m, "id", id);
        return call(c, &m, NULL, NULL, NULL, error);
}

gboolean suspendctl_client_alarm_release(SuspendctlClient *c, guint32 id, GError **error)
{
        SdpMessage m;
        sdp_message_init(&m, SDP_ALARM_RELEASE);
        sdp_add_u64(&m, "alarm", id);
        return call(c, &m, NULL, NULL, NULL, error);
}

GPtrArray *suspendctl_client_status(SuspendctlClient *c, GError **error)
{
        SdpMessage m;
        GPtrArray *items = NULL;
        sdp_message_init(&m, SDP_STATUS);
        return call(c, &m, NULL, &items, NULL, error) ? items : NULL;
}

gboolean suspendctl_client_monitor(SuspendctlClient *c, GError **error)
{
        return simple(c, SDP_MONITOR, NULL, NULL, error);
}

gboolean suspendctl_client_ping(SuspendctlClient *c, GError **error)
{
        return simple(c, SDP_PING, NULL, NULL, error);
}
