/* SPDX-License-Identifier: GPL-2.0-or-later */
/* delegate.c — delegated blocks (PROTOCOL.md §6.3, "delegated form"): a block the client takes
 * and gives back with one system call each, no message, the daemon still in charge.
 *
 * After the policy and limit checks of `block delegate=1` we create an eventfd (EFD_SEMAPHORE,
 * counter 1: held at once, as any block is), add it to our own epoll set with
 * EPOLLIN|EPOLLWAKEUP and pass a copy to the client. Its write of 1 takes a hold, its read gives
 * one back. While the counter is above zero the eventfd is readable, and the kernel activates the
 * epoll item's wakeup source in the write itself, before we run: a suspend in flight aborts
 * (pm_wakeup_pending()), a wakeup_count read waits, a cooperative state writer waits. That is
 * the socket path's no-lost-wakeup guarantee (server.c) at the cost of a wake lock, on any
 * kernel: EPOLLWAKEUP is mainline since 3.5, no /dev/sleepctl needed.
 *
 * Why not a /dev/sleepctl holder passed to the client, as issue 19 sketched: a holder is an open
 * file; once the client has it we cannot take it back (the client's STAY_AWAKE works after our
 * RELAX, after its connection closed, after we restarted). Here the client holds only a counter:
 * the wakeup source is ours (the epoll item), so taking the eventfd out of the set ends the hold
 * whatever the client's copy does — unblock, the connection closed, a user request.
 *
 * We learn which are held by asking the set (epoll_wait, timeout 0): it returns exactly the
 * readable ones and relaxes the wakeup source of those given back. A given-back eventfd's wakeup
 * source stays active until the next ask, so an ask must always come: a wakeup source left
 * active would hold every cooperative state writer and every wakeup_count reader, ours and
 * others', for as long as nothing else made us ask. Hence two states:
 *  - quiet (nothing held, as far as we know): the main loop polls the set itself (`watch`), so
 *    the first take wakes us;
 *  - polling: after that wake, while one is held, and while our wakeup_count read may be waiting
 *    on one, we ask every DELEGATE_POLL_MS, with the set out of the main loop, until a tick finds
 *    nothing held: a give-back is seen within that time, and we go quiet again.
 * So a burst of takes and give-backs wakes us once per DELEGATE_POLL_MS at most, not once per
 * take (a wake per take costs what the socket path costs: on one CPU, the switch to us and
 * back). We also ask whenever we decide (attempt.c, request.c) and for status. A held delegation
 * is in the block set (source `delegated`) from the ask that saw it held to the ask that saw it
 * given back. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <glib-unix.h>

#include "daemon.h"

#define DELEGATE_POLL_MS 250

#ifdef SUSPENDD_MUTANT_NO_DELEGATED_WAKEUP
#define DELEGATED_EPOLLWAKEUP 0   /* test-only mutant (HACKING.md): the delegated path's guarantee off */
#else
#define DELEGATED_EPOLLWAKEUP EPOLLWAKEUP
#endif

typedef struct {
        uint64_t tag;             /* client << 32 | id: its key in d->delegations, its epoll data */
        unsigned client;
        uint32_t id;
        int fd;                   /* our eventfd; the client has a copy */
        bool held;                /* at the last ask: then it is in the block set */
        uint64_t seen;            /* the last ask that returned it */
        char reason[257];
} Delegation;

static uint64_t tag_of(unsigned client, uint32_t id)
{
        return (uint64_t)client << 32 | id;
}

static uint32_t events_for(const Daemon *d)
{
        return EPOLLIN | (d->delegate_relaxed ? 0 : DELEGATED_EPOLLWAKEUP);
}

static void arm(Daemon *d);

int delegate_init(Daemon *d)
{
        d->delegations = g_hash_table_new(g_int64_hash, g_int64_equal);
        d->delegations_held = g_hash_table_new(NULL, NULL);
        d->delegate_epfd = epoll_create1(EPOLL_CLOEXEC);
        if (d->delegate_epfd < 0)
                return -errno;
        arm(d);   /* quiet: the first take wakes us */
        return d->delegate_epfd;
}

static void given_back(Daemon *d, Delegation *dl)
{
        dl->held = false;
        g_hash_table_remove(d->delegations_held, dl);
        blocker_remove(d, BLOCKER_DELEGATED, dl->client, dl->id);
}

/* Ended, the client's copy takes nothing more, and says so: its counter is filled to the
 * eventfd's maximum, so the client's next write fails with EAGAIN (the eventfd is non-blocking)
 * instead of pretending to hold (PROTOCOL.md §6.3). Greedy, high bit first: each write adds its
 * value if there is room, so the counter ends exactly full whatever it held. Out of our set
 * first: a full counter holds no wakeup source. */
static void fill(int fd)
{
        for (uint64_t v = UINT64_C(1) << 63; v; v >>= 1)
                if (write(fd, &v, sizeof v) < 0 && errno != EAGAIN)
                        return;
}

/* Our copy gone: out of the set (its wakeup source unregistered) before it is filled, then
 * closed; the client's copy is a full counter nobody watches from now on. */
static void let_go(const Daemon *d, Delegation *dl)
{
        if (d->delegate_epfd >= 0)   /* at the stop the set may be closed already */
                epoll_ctl(d->delegate_epfd, EPOLL_CTL_DEL, dl->fd, NULL);
        fill(dl->fd);
        close(dl->fd);
}

/* Ended: let go, and out of the block set. The caller frees dl (it is c->delegations' value). */
static void end(Daemon *d, Delegation *dl)
{
        /* closed before the unblocked event goes out: whoever hears it finds the hold gone */
        let_go(d, dl);
        if (dl->held)
                given_back(d, dl);
        if (d->delegations)
                g_hash_table_remove(d->delegations, &dl->tag);
}

static gboolean on_poll_timer(gpointer data)
{
        Daemon *d = data;
        d->delegate_timer = 0;
        d->delegate_woken = false;   /* a tick has asked since the wake: quiet if it finds none */
        delegate_refresh(d);
        d->unsettled = true;   /* a give-back may let an attempt start */
        return G_SOURCE_REMOVE;
}

/* Quiet, something in the set became readable: a take. */
static gboolean on_take(gint fd, GIOCondition cond, gpointer data)
{
        Daemon *d = data;
        (void)fd;
        (void)cond;
        d->delegate_watch = 0;
        d->delegate_woken = true;   /* poll on, at least until a tick: the take may be given back already */
        delegate_refresh(d);
        d->unsettled = true;   /* a take may stop an attempt, or keep one from starting */
        return G_SOURCE_REMOVE;
}

/* Polling or quiet, as the last ask left it (see the top of this file). The watch is level
 * triggered: a take between an ask and the watch's return is seen by the main loop's next poll. */
static void arm(Daemon *d)
{
        bool polling = delegate_any_held(d) || d->reading_count || d->delegate_woken;

        if (polling && !d->delegate_timer)
                d->delegate_timer = g_timeout_add(DELEGATE_POLL_MS, on_poll_timer, d);
        else if (!polling && d->delegate_timer) {
                g_source_remove(d->delegate_timer);
                d->delegate_timer = 0;
        }
        if (polling && d->delegate_watch) {
                g_source_remove(d->delegate_watch);
                d->delegate_watch = 0;
        } else if (!polling && !d->delegate_watch && d->delegate_epfd >= 0) {
                d->delegate_watch = g_unix_fd_add(d->delegate_epfd, G_IO_IN, on_take, d);
        }
}

static void held(Daemon *d, Delegation *dl)
{
        Client *c = g_hash_table_lookup(d->clients, GUINT_TO_POINTER(dl->client));
        dl->held = true;
        g_hash_table_add(d->delegations_held, dl);
        blocker_add(d, BLOCKER_DELEGATED, c, dl->id, dl->reason, c ? c->pid : 0, c ? c->uid : 0,
                    c ? (c->name[0] ? c->name : c->comm) : "");
}

/* Given back since the last ask: held, but not returned by this one. O(held). */
static void drop_given_back(Daemon *d)
{
        GHashTableIter it;
        gpointer v;
        GPtrArray *gone = g_ptr_array_new();

        g_hash_table_iter_init(&it, d->delegations_held);
        while (g_hash_table_iter_next(&it, &v, NULL))
                if (((Delegation *)v)->seen != d->delegate_round)
                        g_ptr_array_add(gone, v);
        for (guint i = 0; i < gone->len; i++)
                given_back(d, g_ptr_array_index(gone, i));
        g_ptr_array_free(gone, TRUE);
}

/* Which are held now: the block set follows. O(held). */
static void ask(Daemon *d, guint total)
{
        int n;

        if (d->delegate_evs_size < total) {
                d->delegate_evs_size = total * 2;
                d->delegate_evs = g_renew(struct epoll_event, d->delegate_evs, d->delegate_evs_size);
        }
        /* one call returns every held one: the array has room for all of them */
        do
                n = epoll_wait(d->delegate_epfd, d->delegate_evs, (int)d->delegate_evs_size, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
                log_err("epoll_wait (delegated blocks): %s", g_strerror(errno));
                return;   /* the block set stays as it was: the safe side */
        }
        d->delegate_round++;
        for (int i = 0; i < n; i++) {
                uint64_t tag = d->delegate_evs[i].data.u64;   /* a copy: the struct is packed */
                Delegation *dl = g_hash_table_lookup(d->delegations, &tag);
                if (!dl)
                        continue;
                dl->seen = d->delegate_round;
                if (!dl->held)
                        held(d, dl);
        }
        /* a block set of n held entries: the scan for give-backs only when one can have gone */
        if (g_hash_table_size(d->delegations_held) > (guint)n)
                drop_given_back(d);
}

void delegate_refresh(Daemon *d)
{
        guint total = d->delegations ? g_hash_table_size(d->delegations) : 0;

        if (d->delegate_epfd < 0)
                return;   /* none (delegate_init failed), or stopped */
        if (total > 0)
                ask(d, total);
        arm(d);
}

int delegate_open(Daemon *d, Client *c, uint32_t id, const char *reason, int *client_fd)
{
        struct epoll_event ev;
        Delegation *dl;
        int fd;

        if (delegate_exists(c, id))
                return -EEXIST;
        fd = eventfd(1, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd < 0)
                return -errno;
        ev = (struct epoll_event){ .events = events_for(d), .data.u64 = tag_of(c->id, id) };
        if (epoll_ctl(d->delegate_epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        dl = g_new0(Delegation, 1);
        dl->tag = tag_of(c->id, id);
        dl->client = c->id;
        dl->id = id;
        dl->fd = fd;
        sdp_text_sanitize(dl->reason, sizeof dl->reason, reason ? reason : "");
        if (!c->delegations)
                c->delegations = g_hash_table_new_full(NULL, NULL, NULL, g_free);
        g_hash_table_insert(c->delegations, GUINT_TO_POINTER(id), dl);
        g_hash_table_insert(d->delegations, &dl->tag, dl);
        /* held from now, as a block is: in the block set before the reply goes out */
        dl->seen = d->delegate_round;
        held(d, dl);
        arm(d);   /* polling: it is held */
        *client_fd = fd;
        return 0;
}

bool delegate_any_held(const Daemon *d)
{
        return d->delegations_held && g_hash_table_size(d->delegations_held) > 0;
}

bool delegate_exists(const Client *c, uint32_t id)
{
        return c->delegations && g_hash_table_contains(c->delegations, GUINT_TO_POINTER(id));
}

int delegate_close(Daemon *d, Client *c, uint32_t id)
{
        Delegation *dl = c->delegations ? g_hash_table_lookup(c->delegations, GUINT_TO_POINTER(id)) : NULL;
        if (!dl)
                return -ENOENT;
        end(d, dl);
        g_hash_table_remove(c->delegations, GUINT_TO_POINTER(id));   /* frees dl */
        return 0;
}

void delegate_client_gone(Daemon *d, Client *c)
{
        GHashTableIter it;
        gpointer v;

        if (!c->delegations)
                return;
        g_hash_table_iter_init(&it, c->delegations);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                end(d, v);
                g_hash_table_iter_remove(&it);
        }
        g_clear_pointer(&c->delegations, g_hash_table_unref);
}

/* The daemon stops (loop.c frees every connection): our copies filled (fill()) and closed,
 * nothing told; the epoll set closes with us. */
void delegate_client_free(Client *c)
{
        GHashTableIter it;
        gpointer v;

        if (!c->delegations)
                return;
        g_hash_table_iter_init(&it, c->delegations);
        while (g_hash_table_iter_next(&it, NULL, &v))
                let_go(c->d, v);
        g_clear_pointer(&c->delegations, g_hash_table_unref);
}

/* A user request's attempt goes ahead over blocks (§7), so while it runs the kernel must not hold
 * it either: the items lose EPOLLWAKEUP (their wakeup sources go) and get it back after. A held
 * one's wakeup source is active again at once (epoll re-polls a modified item). */
void delegate_enforce(Daemon *d, bool on)
{
        GHashTableIter it;
        gpointer v;

        if (d->delegate_relaxed == !on || !d->delegations)
                return;
        d->delegate_relaxed = !on;
        g_hash_table_iter_init(&it, d->delegations);
        while (g_hash_table_iter_next(&it, NULL, &v)) {
                Delegation *dl = v;
                struct epoll_event ev = { .events = events_for(d), .data.u64 = dl->tag };
                if (epoll_ctl(d->delegate_epfd, EPOLL_CTL_MOD, dl->fd, &ev) < 0)
                        log_err("epoll_ctl (delegated block %u of client %u): %s", dl->id, dl->client,
                                g_strerror(errno));
        }
}

void delegate_stop(Daemon *d)
{
        if (d->delegate_timer)
                g_source_remove(d->delegate_timer);
        d->delegate_timer = 0;
        if (d->delegate_watch)
                g_source_remove(d->delegate_watch);
        d->delegate_watch = 0;
        if (d->delegate_epfd >= 0)
                close(d->delegate_epfd);
        d->delegate_epfd = -1;
        g_clear_pointer(&d->delegate_evs, g_free);
        g_clear_pointer(&d->delegations, g_hash_table_unref);
        g_clear_pointer(&d->delegations_held, g_hash_table_unref);
}
