/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A place inside a suspend where a test can act: after the writer's cooperative wait has saved
 * the wakeup count (state_store(), kernel-patches/0002), before the freezer checks for wakeup
 * events. That window is microseconds wide and no timing aims at it; but suspend_prepare()
 * switches to the suspend console in it (pm_prepare_console()), and a VT in VT_PROCESS mode holds
 * such a switch until its owner releases the display (VT_RELDISP). console_owner() forks that
 * owner for the foreground VT: signalled inside the transition, it calls event() (if not NULL),
 * lets the switch go, and waits for the switch back, which proves that the transition ran and
 * ended. Used by tests/kernel/sleepctl.c. */
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/vt.h>
#include <time.h>
#include <unistd.h>

/* Waits up to secs for signal want of set; false on a timeout. The freezer of the very transition
 * it waits for interrupts sigtimedwait() (EINTR, no signal): it waits again. */
static bool owner_wait(const sigset_t *set, int want, double secs)
{
        struct timespec now, end;

        clock_gettime(CLOCK_MONOTONIC, &end);
        end.tv_sec += (time_t)secs;
        for (;;) {
                struct timespec left;
                int sig;

                clock_gettime(CLOCK_MONOTONIC, &now);
                left.tv_sec = end.tv_sec - now.tv_sec;
                left.tv_nsec = end.tv_nsec - now.tv_nsec;
                if (left.tv_nsec < 0)
                        left.tv_sec--, left.tv_nsec += 1000000000L;
                if (left.tv_sec < 0)
                        return false;
                sig = sigtimedwait(set, NULL, &left);
                if (sig == want)
                        return true;
                if (sig < 0 && errno != EINTR)
                        return false;
        }
}

/* The owner's exit status: 0 all happened; 2 no VT to own; 3 no release signal (no transition
 * reached the console switch within 30 s); 4 no switch back within 30 s; 5 no go (below). It
 * writes one byte 'r' to ready_fd once it owns the VT, and 'w' once a transition is held at its
 * switch. With go_fd >= 0 it then waits (at most 30 s) for one byte on go_fd before event(), so
 * that the parent acts inside the transition; it keeps no other descriptor of its parent's. */
static pid_t console_owner_go(void (*event)(void), int ready_fd, int go_fd)
{
        pid_t pid = fork();
        if (pid != 0)
                return pid;

        struct vt_stat vs;
        struct vt_mode vm = { .mode = VT_PROCESS, .relsig = SIGUSR1, .acqsig = SIGUSR2 };
        char path[32];
        sigset_t set;
        int tty0, tty, code = 0;

        /* a forked child shares its parent's /dev/sleepctl holders (one open file each) */
        for (int fd = 3; fd < 1024; fd++)
                if (fd != ready_fd && fd != go_fd)
                        close(fd);
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        sigaddset(&set, SIGUSR2);
        sigprocmask(SIG_BLOCK, &set, NULL);
        tty0 = open("/dev/tty0", O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (tty0 < 0 || ioctl(tty0, VT_GETSTATE, &vs) < 0)
                _exit(2);
        snprintf(path, sizeof path, "/dev/tty%u", vs.v_active);
        tty = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (tty < 0 || ioctl(tty, VT_SETMODE, &vm) < 0)
                _exit(2);
        if (write(ready_fd, "r", 1) != 1)
                _exit(2);
        if (!owner_wait(&set, SIGUSR1, 30)) {
                code = 3;
        } else {
                struct pollfd p = { .fd = go_fd, .events = POLLIN };
                char go;
                if (write(ready_fd, "w", 1) != 1)
                        code = 2;
                if (go_fd >= 0 && (poll(&p, 1, 30000) != 1 || read(go_fd, &go, 1) != 1))
                        code = 5;
                if (event)
                        event();
                ioctl(tty, VT_RELDISP, 1);
                if (!owner_wait(&set, SIGUSR2, 30))
                        code = 4;
        }
        vm.mode = VT_AUTO;   /* a dead owner would be reset by the kernel too, at the next switch */
        ioctl(tty, VT_SETMODE, &vm);
        _exit(code);
}

static inline pid_t console_owner(void (*event)(void), int ready_fd)
{
        return console_owner_go(event, ready_fd, -1);
}
