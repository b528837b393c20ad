/* SPDX-License-Identifier: GPL-2.0-or-later */
/* server.c — the listening socket and the epoll set.
 *
 * Client sockets are watched through our own epoll set with EPOLLWAKEUP: from the moment a
 * datagram is queued on a socket until we call epoll_wait again after handling it, the kernel
 * holds a wakeup source, so a suspend in flight aborts instead of sleeping over a new block
 * (ARCHITECTURE.md, "the fast path"). GLib's poll() loop cannot ask for that, so GLib watches
 * the epoll fd itself. EPOLLWAKEUP needs CAP_BLOCK_SUSPEND; without it the kernel silently
 * drops the flag and we log that the guarantee is off. */
#include <errno.h>
#include <glib-unix.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon.h"

#define LISTEN_TAG ((uint64_t)-1)
#define MAX_MESSAGES_PER_WAKE 64   /* fairness between busy peers */

#ifdef SUSPENDD_MUTANT_NO_EPOLLWAKEUP
#define CLIENT_EPOLLWAKEUP 0   /* test-only mutant (HACKING.md): the fast path's guarantee off */
#else
#define CLIENT_EPOLLWAKEUP EPOLLWAKEUP
#endif

static unsigned clients_of_uid(Daemon *d, uid_t uid)
{
        GHashTableIter it;
        gpointer v;
        unsigned n = 0;
        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v))
                n += ((Client *)v)->uid == uid;
        return n;
}

static void refuse_connection(int fd, const char *limit, const char *text)
{
        char buf[256];
        int n = snprintf(buf, sizeof buf, "error seq=0 code=limit-exceeded message=\"%s\" limit=%s", text, limit);
        (void)!send(fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
        close(fd);
}

static gboolean resume_accepting(gpointer data)
{
        Daemon *d = data;
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = LISTEN_TAG };
        d->accept_timer = 0;
        if (epoll_ctl(d->epoll_fd, EPOLL_CTL_MOD, d->listen_fd, &ev) < 0)
                log_err("epoll_ctl (listening socket): %s", g_strerror(errno));
        return G_SOURCE_REMOVE;
}

/* Out of descriptors: the pending connection stays queued and the listening socket stays
 * readable, so retrying at once would spin. Stop watching it for a second. */
static void pause_accepting(Daemon *d, int err)
{
        struct epoll_event ev = { .events = 0, .data.u64 = LISTEN_TAG };
        if (d->accept_timer)
                return;
        log_warn("accept: %s: not accepting connections for 1 s (%u connected)", g_strerror(err),
                 g_hash_table_size(d->clients));
        epoll_ctl(d->epoll_fd, EPOLL_CTL_MOD, d->listen_fd, &ev);
        d->accept_timer = g_timeout_add_seconds(1, resume_accepting, d);
}

static void accept_clients(Daemon *d)
{
        for (;;) {
                int fd = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                Client *c;
                char who[160];

                if (fd < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                                pause_accepting(d, errno);
                        else if (errno != EAGAIN && errno != EWOULDBLOCK)
                                log_warn("accept: %s", g_strerror(errno));
                        return;
                }
                c = client_new(d, fd);
                if (g_hash_table_size(d->clients) >= d->cfg.max_clients) {
                        log_warn("%s: refused: %u connections (MaxClients)",
                                 client_describe(c, who, sizeof who), d->cfg.max_clients);
                        refuse_connection(fd, "clients", "too many connections");
                        c->fd = -1;
                        client_free(c);
                        continue;
                }
                if (c->uid != 0 && clients_of_uid(d, c->uid) >= d->cfg.max_clients_per_user) {
                        log_warn("%s: refused: MaxClientsPerUser", client_describe(c, who, sizeof who));
                        refuse_connection(fd, "clients-per-user", "too many connections for this user");
                        c->fd = -1;
                        client_free(c);
                        continue;
                }
                g_hash_table_insert(d->clients, GUINT_TO_POINTER(c->id), c);
                g_hash_table_insert(d->clients_by_fd, GINT_TO_POINTER(fd), c);
                if (server_watch_client(d, c, false) < 0) {
                        client_disconnect(c, "epoll_ctl failed");
                        continue;
                }
                log_debug("%s: connected", client_describe(c, who, sizeof who));
        }
}

int server_watch_client(Daemon *d, Client *c, bool want_out)
{
        struct epoll_event ev = { .events = EPOLLIN | CLIENT_EPOLLWAKEUP, .data.u64 = (uint64_t)c->fd };
        if (c->closing) {
                epoll_ctl(d->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
                return 0;
        }
        if (want_out)
                ev.events |= EPOLLOUT;
        if (g_queue_get_length(&c->out) >= d->cfg.max_queued_messages)
                ev.events &= ~(uint32_t)EPOLLIN;   /* backpressure until it reads */
        if (epoll_ctl(d->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
                return 0;
        if (errno == ENOENT && epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, c->fd, &ev) == 0)
                return 0;
        return -errno;
}

/* A closed connection leaves: unwatched before the next epoll_wait, out of the tables, what it
 * held ended (request_client_gone), freed. client_disconnect() only marks it, because its callers
 * may be iterating over the clients. */
void server_reap(Daemon *d)
{
        Client *c;
        char who[160];

        while ((c = g_queue_pop_head(&d->closing))) {
                log_debug("%s: disconnected", client_describe(c, who, sizeof who));
                epoll_ctl(d->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
                g_hash_table_remove(d->clients_by_fd, GINT_TO_POINTER(c->fd));
                g_hash_table_remove(d->clients, GUINT_TO_POINTER(c->id));
                g_hash_table_remove(d->monitors, c);
                if (c->out_dirty)
                        g_queue_remove(&d->out_dirty, c);
                request_client_gone(c);
                client_free(c);
        }
}

/* The watch of every connection whose output queue changed: EPOLLOUT while it has queued
 * datagrams, and no EPOLLIN while the queue is full (backpressure). */
void server_sync(Daemon *d)
{
        Client *c;

        while ((c = g_queue_pop_head(&d->out_dirty))) {
                c->out_dirty = false;
                if (!c->closing && server_watch_client(d, c, !g_queue_is_empty(&c->out)) < 0)
                        client_disconnect(c, "epoll_ctl failed");
        }
}

static void flush(Daemon *d, Client *c)
{
        while (!g_queue_is_empty(&c->out)) {
                GBytes *b = g_queue_peek_head(&c->out);
                gsize len;
                const void *data = g_bytes_get_data(b, &len);
                gpointer fdp = c->out_fds ? g_hash_table_lookup(c->out_fds, b) : NULL;
                int fd = fdp ? GPOINTER_TO_INT(fdp) : -1;
                ssize_t n = client_send_bytes(c->fd, data, len, fd);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        break;
                if (n < 0) {
                        client_disconnect(c, g_strerror(errno));
                        return;
                }
                if (fd >= 0) {   /* our copy, kept for the queue (client.c) */
                        g_hash_table_remove(c->out_fds, b);
                        close(fd);
                }
                g_bytes_unref(g_queue_pop_head(&c->out));
        }
        if (server_watch_client(d, c, !g_queue_is_empty(&c->out)) < 0)
                client_disconnect(c, "epoll_ctl failed");
}

/* Its requests, a bounded number per wake (fairness between busy peers). A watcher asked by the
 * NOTIFY under way owes one datagram, its answer: that one is read alone, with one recvmsg's
 * worth of work, where a batch read would try a second time and find the socket empty (with
 * 1000 watchers that second try was a tenth of NOTIFY, issue 19). Whatever else it sent is
 * reported again by the next epoll_wait (level-triggered) and read then. */
static void receive(Client *c)
{
        int budget = attempt_awaits_answer(c->d, c) ? 1 : MAX_MESSAGES_PER_WAKE;

        for (int i = 0; i < budget && !c->closing; i++) {
                SdpMessage m;
                int fds[CLIENT_MAX_FDS];
                size_t n_fds;
                ClientInput in = client_receive(c, &m, fds, &n_fds, (unsigned)(budget - i));

                if (in == CLIENT_INPUT_NONE)
                        break;
                if (in == CLIENT_INPUT_REQUEST)
                        request_handle(c, &m, fds, n_fds);
        }
        client_receive_done(c);   /* the next wake reads afresh */
}

static gboolean on_epoll(gint fd, GIOCondition cond, gpointer data)
{
        Daemon *d = data;
        struct epoll_event evs[64];
        int n;

        /* Drain without blocking; the next epoll_wait releases the wakeup sources of the
         * events handled here, after their requests took effect. */
        server_reap(d);
        while ((n = epoll_wait(d->epoll_fd, evs, G_N_ELEMENTS(evs), 0)) > 0) {
                for (int i = 0; i < n; i++) {
                        Client *c;
                        if (evs[i].data.u64 == LISTEN_TAG) {
                                accept_clients(d);
                                continue;
                        }
                        c = g_hash_table_lookup(d->clients_by_fd, GINT_TO_POINTER((int)evs[i].data.u64));
                        if (!c || c->closing)
                                continue;
                        if (evs[i].events & EPOLLOUT)
                                flush(d, c);
                        if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                                receive(c);
                }
                server_reap(d);   /* a connection closed here is unwatched before the next epoll_wait */
                if (n < (int)G_N_ELEMENTS(evs))
                        break;
        }
        server_sync(d);
        return G_SOURCE_CONTINUE;
}

/* Only a socket nobody listens on (left by a run that died) is ours to remove: never a regular
 * file given by mistake, never the live socket of another daemon. */
static int remove_stale_socket(const char *path)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct stat st;
        int probe, r;

        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISSOCK(st.st_mode))
                return -EEXIST;
        strcpy(sa.sun_path, path);
        probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (probe < 0)
                return -errno;
        if (connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0)
                r = -EADDRINUSE;        /* a live daemon */
        else
                r = errno == ECONNREFUSED ? 0 : -errno;   /* e.g. EPROTOTYPE: somebody else's */
        close(probe);
        if (r == 0 && unlink(path) < 0 && errno != ENOENT)
                r = -errno;
        return r;
}

static int listen_on(const char *path)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        g_autofree char *dir = g_path_get_dirname(path);
        int fd, r;

        if (strlen(path) >= sizeof sa.sun_path)
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, path);
        if (g_mkdir_with_parents(dir, 0755) < 0)
                return -errno;
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        r = remove_stale_socket(path);
        if (r < 0) {
                close(fd);
                return r;
        }
        if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || chmod(path, 0666) < 0 ||
            listen(fd, 128) < 0) {
                r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* EPOLLWAKEUP is silently dropped without CAP_BLOCK_SUSPEND (capability 36): say so once. */
static bool check_block_suspend_capability(void)
{
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        unsigned long long eff = 0;
        bool found = false;

        if (!f)
                return true;   /* cannot tell: assume the kernel honours it */
        while (fgets(line, sizeof line, f))
                if (sscanf(line, "CapEff: %llx", &eff) == 1) {
                        found = true;
                        break;
                }
        fclose(f);
        if (found && !(eff & (1ULL << 36))) {
                log_warn("no CAP_BLOCK_SUSPEND: the kernel ignores EPOLLWAKEUP, so a one-way block sent "
                         "while an attempt commits is not guaranteed to abort it, and delegated blocks are "
                         "unsupported (run as root or grant the capability)");
                return false;
        }
        return true;
}

int server_start(Daemon *d, int passed_fd)
{
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = LISTEN_TAG };
        int r;

        d->can_hold_wakeups = check_block_suspend_capability() && CLIENT_EPOLLWAKEUP != 0;

        if (passed_fd >= 0) {
                d->listen_fd = passed_fd;
                g_unix_set_fd_nonblocking(passed_fd, TRUE, NULL);
        } else {
                d->listen_fd = listen_on(d->socket_path);
                if (d->listen_fd < 0)
                        return d->listen_fd;
        }
        d->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        if (d->epoll_fd < 0 || epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, d->listen_fd, &ev) < 0)
                return -errno;
        /* Not in our epoll set: a take wakes us only when nothing is held (delegate.c). */
        r = delegate_init(d);
        if (r < 0)
                log_warn("no delegated blocks: %s", g_strerror(-r));
        d->epoll_source = g_unix_fd_add(d->epoll_fd, G_IO_IN, on_epoll, d);
        /* GLib blocks a source that cannot recurse while it dispatches it: it takes the fd out
         * of its poll set and puts it back, and each of those wakes its own context through an
         * eventfd, so every wake of the server cost three system calls more (two writes, then a
         * read). on_epoll() never runs a nested loop, so nothing can recurse into it. */
        g_source_set_can_recurse(g_main_context_find_source_by_id(NULL, d->epoll_source), TRUE);
        return 0;
}

void server_stop(Daemon *d)
{
        delegate_stop(d);
        liveness_stop(d);   /* dead to the pages' readers from here on, as after a crash */
        if (d->accept_timer)
                g_source_remove(d->accept_timer);
        if (d->epoll_source)
                g_source_remove(d->epoll_source);
        if (d->epoll_fd >= 0)
                close(d->epoll_fd);
        if (d->listen_fd >= 0)
                close(d->listen_fd);
}
