/* Test-only LD_PRELOAD for tests/guest/wakeup-dance.test (issue 29): holds suspendd in its
 * commit window on a real kernel, so that a test can put an event exactly there instead of
 * aiming at a window of microseconds with timing.
 *
 * The window is the daemon's last step: its worker thread has written the count it read to
 * /sys/power/wakeup_count (the kernel now checks for any wakeup event since that count) and is
 * about to write the sleep state to /sys/power/state. On that state write this library connects
 * to the Unix stream socket named by SUSPENDD_COMMIT_WINDOW, sends one line
 *     window state=mem count_written=1
 * (count_written: this thread's last write to wakeup_count succeeded, which is what "in the
 * window" means), and waits for the test to send any byte back (at most 60 s) before the real
 * write goes on. With nothing listening the write goes on at once, so the daemon behaves as
 * usual between trials. Never installed: make check-vm copies it into the guest only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define WAIT_MS 60000

static ssize_t (*real_write)(int, const void *, size_t);
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
/* per thread: did the last wakeup_count write succeed? (the daemon writes both from one call) */
static __thread int count_written = -1;

/* read once, before the daemon's threads exist: getenv is not safe beside a setenv */
__attribute__((constructor)) static void init(void)
{
        const char *p = getenv("SUSPENDD_COMMIT_WINDOW");

        *(void **)&real_write = dlsym(RTLD_NEXT, "write");
        if (p && strlen(p) < sizeof sock_path)
                strcpy(sock_path, p);
}

/* which power file is fd? 0 none, 1 wakeup_count, 2 state */
static int power_file(int fd)
{
        char link[40], path[64];
        ssize_t n;

        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        n = readlink(link, path, sizeof path - 1);
        if (n < 0)
                return 0;
        path[n] = '\0';
        return strcmp(path, "/sys/power/wakeup_count") == 0 ? 1 : strcmp(path, "/sys/power/state") == 0 ? 2 : 0;
}

static void hold_in_window(const char *value, size_t len)
{
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        struct pollfd p;
        char line[96], go;
        int s, n, r;

        while (len > 0 && (value[len - 1] == '\n' || len > 16))
                len--;
        memcpy(a.sun_path, sock_path, sizeof sock_path);
        s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
                return;
        if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
                close(s);   /* nobody listening: no trial now */
                return;
        }
        n = snprintf(line, sizeof line, "window state=%.*s count_written=%d\n", (int)len, value, count_written);
        if (send(s, line, (size_t)n, MSG_NOSIGNAL) == n) {
                p = (struct pollfd){ .fd = s, .events = POLLIN };
                do
                        r = poll(&p, 1, WAIT_MS);
                while (r < 0 && errno == EINTR);
                if (r <= 0 || recv(s, &go, 1, 0) != 1)
                        fprintf(stderr, "commit-window: no go from the test within %d ms; writing anyway\n", WAIT_MS);
        }
        close(s);
}

ssize_t write(int fd, const void *buf, size_t len)
{
        int which = sock_path[0] ? power_file(fd) : 0;
        ssize_t n;

        if (which == 2)
                hold_in_window(buf, len);
        n = real_write(fd, buf, len);
        if (which == 1)
                count_written = n >= 0 && (size_t)n == len;
        else if (which == 2)
                count_written = -1;   /* the next window must show its own count write */
        return n;
}
