/* SPDX-License-Identifier: GPL-2.0-or-later */
/* epollwakeup-shim — the fake kernel's half of eventpoll, preloaded into the daemon under test
 * (LD_PRELOAD, with FAKE_KERNEL_CONTROL=SOCKET):
 *
 * A kernel with CONFIG_PM_SLEEP holds a wakeup source for every datagram queued on a socket
 * watched with EPOLLWAKEUP (if the watcher has CAP_BLOCK_SUSPEND). The host kernel that runs the
 * integration tier may have no PM_SLEEP and then drops the flag, so the fake kernel cannot learn
 * it from /proc/PID/fdinfo. This shim passes each epoll_ctl() through unchanged and tells the
 * fake kernel which sockets are watched with EPOLLWAKEUP ("ews add|del INODE"), under the same
 * rule as the kernel (the flag counts only with CAP_BLOCK_SUSPEND). The fake kernel then treats a
 * client's datagram to such a socket as a wakeup event (`ipc`, tests/fake-kernel/README.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ctl_fd = -1;

static bool has_block_suspend(void)
{
        static int cached = -1;
        char line[256];
        unsigned long long eff = 0;
        FILE *f;

        if (cached >= 0)
                return cached;
        f = fopen("/proc/self/status", "re");
        if (!f)
                return false;
        while (fgets(line, sizeof line, f))
                if (sscanf(line, "CapEff: %llx", &eff) == 1)
                        break;
        fclose(f);
        cached = (eff >> 36) & 1;   /* CAP_BLOCK_SUSPEND */
        return cached;
}

/* One command, one answer line; a lost fake kernel is reported once on stderr, never fatal. */
static void tell(const char *cmd)
{
        const char *path = getenv("FAKE_KERNEL_CONTROL");
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char c;

        if (!path || strlen(path) >= sizeof sa.sun_path)
                return;
        if (ctl_fd < 0) {
                strcpy(sa.sun_path, path);
                ctl_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (ctl_fd >= 0 && connect(ctl_fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
                        close(ctl_fd);
                        ctl_fd = -1;
                }
                if (ctl_fd < 0) {
                        fprintf(stderr, "epollwakeup-shim: cannot reach the fake kernel at %s\n", path);
                        return;
                }
        }
        if (send(ctl_fd, cmd, strlen(cmd), MSG_NOSIGNAL) < 0)
                goto lost;
        do
                if (read(ctl_fd, &c, 1) != 1)
                        goto lost;
        while (c != '\n');
        return;
lost:
        close(ctl_fd);
        ctl_fd = -1;
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
        static int (*real)(int, int, int, struct epoll_event *);
        struct stat st;
        char cmd[64];
        int r, saved;
        bool wakeup;

        if (!real)
                real = (int (*)(int, int, int, struct epoll_event *))dlsym(RTLD_NEXT, "epoll_ctl");
        r = real(epfd, op, fd, ev);
        saved = errno;
        if (r == 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) {
                wakeup = op != EPOLL_CTL_DEL && ev && (ev->events & EPOLLWAKEUP) && has_block_suspend();
                snprintf(cmd, sizeof cmd, "ews %s %lu\n", wakeup ? "add" : "del", (unsigned long)st.st_ino);
                pthread_mutex_lock(&lock);
                tell(cmd);
                pthread_mutex_unlock(&lock);
        }
        errno = saved;
        return r;
}
