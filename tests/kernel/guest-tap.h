/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the kernel series' guest tests (tests/kernel/): TAP output, one-call sysfs reads
 * and writes, the guest-only guard, and the kernel-log splat check that ends every test. */
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int n, failed;

static void ok(bool cond, const char *fmt, ...)
{
        va_list ap;
        printf("%s %d - ", cond ? "ok" : "not ok", ++n);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        fflush(stdout);
        failed += !cond;
}

/* write(2) the whole string in one call; returns bytes written or -errno */
static long put(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        long r;
        if (fd < 0)
                return -errno;
        r = write(fd, text, strlen(text));
        r = r < 0 ? -errno : r;
        close(fd);
        return r;
}

static void get(const char *path, char *buf, size_t size)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t r = fd < 0 ? -1 : read(fd, buf, size - 1);
        buf[r > 0 ? r : 0] = '\0';
        if (fd >= 0)
                close(fd);
}

/* These tests write /sys/power: only inside the guest image, never on a host. Exits 77 there. */
static void require_guest(void)
{
        char host[64];
        get("/etc/hostname", host, sizeof host);
        if (!getenv("SUSPENDD_GUEST") || strcmp(host, "suspendd-guest\n") != 0) {
                printf("1..0 # SKIP guest-only test: run it through make check-vm\n");
                exit(77);
        }
}

/* The last check of every test: a warning, lockdep or KASAN report fails the run (this matters
 * most on the debug kernel, make check-vm-debug). Prints the plan; returns the exit status. */
static int finish(void)
{
        char buf[512];
        FILE *p = popen("dmesg | grep -E 'BUG:|WARNING:|KASAN|possible .*deadlock|Call Trace' | head -3", "r");
        size_t got = p ? fread(buf, 1, sizeof buf - 1, p) : 0;
        buf[got] = '\0';
        if (p)
                pclose(p);
        ok(got == 0, "no kernel warning, lockdep or KASAN report in dmesg%s%s", got ? ": " : "", buf);
        printf("1..%d\n", n);
        return failed ? 1 : 0;
}
