/* SPDX-License-Identifier: GPL-2.0-or-later */
/* liveness.c — the daemon's liveness page (PROTOCOL.md §6.16): how a client with delegated
 * blocks knows, without a system call, that the daemon it delegated to is still there.
 *
 * A delegated block is taken by a write to an eventfd of ours (delegate.c). Once we are gone the
 * client's copy is a counter nobody watches, and a write to it blocks nothing. libsuspendctl used
 * to look at its connection before every acquire (a recv(MSG_PEEK)), a third system call beside
 * the write and the read: with the kernel's wake_lock pair at two, that peek was what kept the
 * delegated pair above it on 6.12 (issue 19).
 *
 * The page is one memfd page whose first 32-bit word is a robust futex (the kernel's
 * Documentation/locking/robust-futexes.rst): a process-shared robust mutex our main thread
 * locks when the page is made and never unlocks while it runs. Locked, the word holds that
 * thread's TID. When the thread exits — a clean stop, a crash, SIGKILL, an exec — the kernel
 * walks its robust list and sets FUTEX_OWNER_DIED in the word (clearing the TID), through our
 * own mapping, before the memory goes; a clean stop unlocks it first (server_stop(): the word
 * becomes 0). So "the TID bits are not 0 and FUTEX_OWNER_DIED is clear" is "the daemon that
 * made this page runs", readable by a load. A restarted daemon makes a new page: an old one
 * says dead for ever.
 *
 * Clients may only read it: the memfd is sealed against growing, shrinking and any writable
 * mapping made after ours (F_SEAL_FUTURE_WRITE), so one client cannot make the daemon look
 * dead, or alive, to another. What the page cannot say is that we ended a client's connection
 * while we run; delegate.c fills the eventfd's counter for that (its next write fails). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon.h"

/* The futex word is the mutex's first member on every glibc target: what the kernel's robust
 * list names (glibc's futex_offset) and what clients read at offset 0. */
G_STATIC_ASSERT(offsetof(pthread_mutex_t, __data.__lock) == 0);

static int make_page(Daemon *d)
{
        pthread_mutexattr_t attr;
        void *page = MAP_FAILED;
        int fd, r;

        fd = memfd_create("suspendd-liveness", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return -errno;
        if (ftruncate(fd, SDP_LIVENESS_PAGE) < 0 ||
            (page = mmap(NULL, SDP_LIVENESS_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED ||
            /* our writable mapping exists; from now on nobody gets another */
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) < 0) {
                r = -errno;
                goto fail;
        }
        pthread_mutexattr_init(&attr);
        pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
        r = -pthread_mutex_init(page, &attr);
        pthread_mutexattr_destroy(&attr);
        if (r == 0)
                r = -pthread_mutex_lock(page);   /* held by this (the main) thread until it exits */
        if (r < 0)
                goto fail;
        d->liveness_page = page;
        d->liveness_fd = fd;
        return fd;
fail:
        if (page != MAP_FAILED)
                munmap(page, SDP_LIVENESS_PAGE);
        close(fd);
        return r;
}

int liveness_fd(Daemon *d)
{
        return d->liveness_fd >= 0 ? d->liveness_fd : make_page(d);
}

/* A clean stop: the word becomes 0 (dead to readers), and the mutex leaves glibc's robust list
 * before its memory does. */
void liveness_stop(Daemon *d)
{
        if (!d->liveness_page)
                return;
        pthread_mutex_unlock(d->liveness_page);
        munmap(d->liveness_page, SDP_LIVENESS_PAGE);
        d->liveness_page = NULL;
        close(d->liveness_fd);
        d->liveness_fd = -1;
}
