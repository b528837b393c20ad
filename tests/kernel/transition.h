/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the series' guest tests that run transitions (tests/kernel/sleepctl.c, interleave.c):
 * /dev/sleepctl holders and writers of /sys/power/state in child processes. */
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../daemon/sleepctl-uapi.h"
#include "guest-tap.h"

#define DEV "/dev/sleepctl"
#define STATE "/sys/power/state"
#define MODE "/sys/power/sleep_mode"
#define WAKEUP_COUNT "/sys/power/wakeup_count"

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int holder(unsigned timeout_ms)
{
        int fd = open(DEV, O_RDWR | O_CLOEXEC);
        uint32_t t = timeout_ms;
        if (fd >= 0 && write(fd, &t, sizeof t) != sizeof t) {
                close(fd);
                return -1;
        }
        return fd;
}

static void on_usr1(int sig) { (void)sig; }

/* A child that writes "what" to /sys/power/state, first moving itself into the cgroup dir unless
 * it is NULL; it exits 0 on success, else with the errno (254: the cgroup move failed). */
static pid_t start_transition_in(const char *dir, const char *what)
{
        pid_t pid = fork();
        if (pid == 0) {
                struct sigaction sa = { .sa_handler = on_usr1 };   /* no SA_RESTART */
                char procs[256];
                /* a forked child shares the parent's holders (one open file each): not this one */
                close_range(3, ~0U, 0);
                sigaction(SIGUSR1, &sa, NULL);
                snprintf(procs, sizeof procs, "%s/cgroup.procs", dir ? dir : "");
                if (dir && put(procs, "0") < 0)
                        _exit(254);
                long r = put(STATE, what);
                _exit(r == (long)strlen(what) ? 0 : r < 0 ? (int)-r : 255);
        }
        return pid;
}

static pid_t start_transition(const char *what)
{
        return start_transition_in(NULL, what);
}

/* Waits up to secs for the child; returns its exit status, or -1 if it is still running. */
static int finished_within(pid_t pid, double secs)
{
        double end = now_s() + secs;
        int st;
        do {
                pid_t r = waitpid(pid, &st, WNOHANG);
                if (r == pid)
                        return WIFEXITED(st) ? WEXITSTATUS(st) : 254;
                usleep(20000);
        } while (now_s() < end);
        return -1;
}

static void reap(pid_t pid)
{
        int st;
        if (finished_within(pid, 0) < 0) {
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
        }
}

/* a wakeup event made inside the transition by the console owner (console-owner.h) */
static void holder_event(void)
{
        int h = holder(0);
        ioctl(h, SLEEPCTL_STAY_AWAKE);
        ioctl(h, SLEEPCTL_RELAX);
        close(h);
}

/* The start of a test of 0002: guest only (exits 77 elsewhere), a skip without /dev/sleepctl,
 * TAP lines unbuffered, and pm_test=freezer with no delay so no transition really sleeps. */
static void start_sleepctl_test(void)
{
        require_guest();
        if (access(DEV, F_OK) != 0) {
                printf("1..0 # SKIP no %s: the kernel lacks kernel-patches/0002\n", DEV);
                exit(77);
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        put("/sys/power/pm_test", "freezer");
        put("/sys/module/suspend/parameters/pm_test_delay", "0");
}
