/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock-step.so — a test-only LD_PRELOAD shim that steps one process's wall clock.
 *
 * The integration tests must not set the host's clock, yet they need to see what the daemon does
 * when the wall clock is stepped during a sleep (NTP, an administrator, an RTC read at resume).
 * Loaded into the daemon only, this adds the signed number of seconds written in the file named
 * by CLOCK_STEP_FILE to CLOCK_REALTIME (and its coarse variant), gettimeofday() and time();
 * every other clock (MONOTONIC, BOOTTIME) passes through untouched. The file is read on every
 * call, so the test steps the clock by rewriting it. Never installed. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long offset_s(void)
{
        const char *path = getenv("CLOCK_STEP_FILE");
        char buf[32];
        ssize_t n;
        int fd;

        if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
                return 0;
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        return strtoll(buf, NULL, 10);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
        static int (*real)(clockid_t, struct timespec *);
        int r;

        if (!real)
                real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
        r = real(id, ts);
        if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
                ts->tv_sec += (time_t)offset_s();
        return r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
                return -1;
        tv->tv_sec = ts.tv_sec;   /* glibc declares tv nonnull */
        tv->tv_usec = ts.tv_nsec / 1000;
        (void)tz;
        return 0;
}

time_t time(time_t *out)
{
        struct timespec ts;
        time_t t = clock_gettime(CLOCK_REALTIME, &ts) < 0 ? (time_t)-1 : ts.tv_sec;

        if (out)
                *out = t;
        return t;
}
