/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs.c — see sysfs.h. The only file in suspendd that opens kernel interfaces. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sysfs.h"

#include "decision.h"

#include "sleepctl-uapi.h"

/* The wakeup source of our own /dev/sleepctl holder ("sleepctl:<comm>:<pid>"): it moves with our
 * clients' blocks, which are IPC like the socket's, not wakeup events. */
static char own_holder[64];

struct Sysfs {
        char root[4096];
};

static int path_of(const Sysfs *s, const char *rel, char *buf, size_t size)
{
        int n = snprintf(buf, size, "%s%s", strcmp(s->root, "/") == 0 ? "" : s->root, rel);
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int sysfs_open(const char *root, Sysfs **out)
{
        Sysfs *s;
        size_t len;

        if (!root || root[0] != '/')
                return -EINVAL;
        len = strlen(root);
        if (len >= sizeof s->root)
                return -ENAMETOOLONG;
        s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        memcpy(s->root, root, len + 1);
        while (len > 1 && s->root[len - 1] == '/')
                s->root[--len] = '\0';
        *out = s;
        return 0;
}

void sysfs_free(Sysfs *s)
{
        free(s);
}

const char *sysfs_root(const Sysfs *s)
{
        return s->root;
}

/* Open a file under the root: the one place a path is made (returns fd or -errno). */
static int open_attr(const Sysfs *s, const char *rel, int flags)
{
        char path[4200];
        int fd, r = path_of(s, rel, path, sizeof path);

        if (r < 0)
                return r;
        fd = open(path, flags | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* Read a small attribute file; strips the trailing newline. */
static int read_attr(const Sysfs *s, const char *rel, char *buf, size_t size)
{
        ssize_t n;
        int r, fd = open_attr(s, rel, O_RDONLY);

        if (fd < 0)
                return fd;
        do
                n = read(fd, buf, size - 1);
        while (n < 0 && errno == EINTR);
        r = n < 0 ? -errno : 0;
        close(fd);
        if (r < 0)
                return r;
        buf[n] = '\0';
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                buf[--n] = '\0';
        return 0;
}

/* sysfs attributes take one write; a short write is an error, not a reason to loop. */
static int write_attr(const Sysfs *s, const char *rel, const char *value)
{
        size_t len = strlen(value);
        ssize_t n;
        int r, fd = open_attr(s, rel, O_WRONLY);

        if (fd < 0)
                return fd;
        do
                n = write(fd, value, len);
        while (n < 0 && errno == EINTR);
        r = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
        close(fd);
        return r;
}

static bool exists(const Sysfs *s, const char *rel)
{
        char path[4200];
        return path_of(s, rel, path, sizeof path) == 0 && access(path, F_OK) == 0;
}

int sysfs_detect(Sysfs *s, SysfsFeatures *f)
{
        int r;

        memset(f, 0, sizeof *f);
        r = read_attr(s, "/sys/power/state", f->states, sizeof f->states);
        if (r < 0)
                return r;
        if (read_attr(s, "/sys/power/mem_sleep", f->mem_sleep, sizeof f->mem_sleep) < 0)
                f->mem_sleep[0] = '\0';
        f->has_sleep_mode = read_attr(s, "/sys/power/sleep_mode", f->sleep_modes,
                                      sizeof f->sleep_modes) == 0;
        f->has_sleepctl = exists(s, "/dev/sleepctl");
        if (exists(s, "/sys/class/rtc/rtc0/wakealarm")) {
                char path[4200], link[256];
                ssize_t n;
                snprintf(f->rtc, sizeof f->rtc, "rtc0");
                /* An RTC wake is counted on the RTC's parent device (rtc_cmos: "00:06"), not on rtc0. */
                if (path_of(s, "/sys/class/rtc/rtc0/device", path, sizeof path) == 0 &&
                    (n = readlink(path, link, sizeof link - 1)) > 0) {
                        link[n] = '\0';
                        const char *base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
                        if (strlen(base) < sizeof f->rtc_device)
                                memcpy(f->rtc_device, base, strlen(base) + 1);
                }
        }
        f->has_wakeup_sources = exists(s, "/sys/class/wakeup");
        return 0;
}

void sysfs_describe_missing(const SysfsFeatures *f, char *buf, size_t size)
{
        size_t n = 0;
        buf[0] = '\0';
#define ADD(text) do { if (n < size) n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "; " : "", text); } while (0)
        if (!f->has_sleep_mode)
                ADD("no /sys/power/sleep_mode (unpatched kernel): disable is enforced by suspendd only, direct writes to /sys/power/state are not stopped");
        if (!f->has_sleepctl)
                ADD("no /dev/sleepctl (unpatched kernel): no cooperative mode, third-party kernel holders are not seen");
        if (!f->rtc[0])
                ADD("no RTC wakealarm: alarms cannot wake a sleeping machine");
        if (!f->has_wakeup_sources)
                ADD("no /sys/class/wakeup: wake reasons other than the RTC are unknown");
#undef ADD
}

/* A word of a kernel list ("freeze mem disk", "[platform] shutdown suspend"), brackets or not. */
static bool word_in(const char *list, const char *word)
{
        size_t len = strlen(word);
        for (const char *p = list; (p = strstr(p, word)); p += len) {
                bool start = p == list || p[-1] == ' ' || p[-1] == '[';
                bool end = p[len] == '\0' || p[len] == ' ' || p[len] == ']';
                if (start && end)
                        return true;
        }
        return false;
}

bool sysfs_state_supported(const SysfsFeatures *f, const char *state)
{
        return word_in(f->states, state);
}

/* The bracketed word of a kernel list into out ("" if none). */
static void selected_word(const char *list, char *out, size_t size)
{
        const char *open_b = strchr(list, '['), *close_b = open_b ? strchr(open_b, ']') : NULL;
        size_t n = close_b ? (size_t)(close_b - open_b - 1) : 0;

        if (n >= size)
                n = 0;
        memcpy(out, open_b ? open_b + 1 : "", n);
        out[n] = '\0';
}

/* The selected word of a kernel list file ("" when nothing is bracketed), or -errno. */
static int read_selected(const Sysfs *s, const char *rel, char *out, size_t size)
{
        char buf[128];
        int r = read_attr(s, rel, buf, sizeof buf);

        if (r < 0)
                return r;
        selected_word(buf, out, size);
        return 0;
}

int sysfs_read_disk_mode(Sysfs *s, char *mode, size_t size)
{
        return read_selected(s, "/sys/power/disk", mode, size);
}

bool sysfs_disk_mode_offered(Sysfs *s, const char *mode)
{
        char buf[128];
        return read_attr(s, "/sys/power/disk", buf, sizeof buf) == 0 && word_in(buf, mode);
}

int sysfs_write_disk_mode(Sysfs *s, const char *mode)
{
        return write_attr(s, "/sys/power/disk", mode);
}

/* Free swap in KiB over all active areas (/proc/swaps: name type size used priority); false if
 * there is none. */
static bool swap_free(const Sysfs *s, unsigned long long *kib)
{
        char buf[4096];
        bool any = false;

        *kib = 0;
        if (read_attr(s, "/proc/swaps", buf, sizeof buf) < 0)
                return false;
        for (char *line = strchr(buf, '\n'); line && *line; line = strchr(line, '\n')) {
                unsigned long long size, used;
                line++;
                if (sscanf(line, "%*s %*s %llu %llu", &size, &used) == 2) {
                        any = true;
                        *kib += size > used ? size - used : 0;
                }
        }
        return any;
}

/* Anonymous memory in KiB: what a hibernation image must hold (page cache is dropped). */
static unsigned long long anon_kib(const Sysfs *s)
{
        char buf[8192];
        unsigned long long sum = 0, v;

        if (read_attr(s, "/proc/meminfo", buf, sizeof buf) < 0)
                return 0;
        for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
                if ((sscanf(line, "Active(anon): %llu", &v) == 1 || sscanf(line, "Inactive(anon): %llu", &v) == 1))
                        sum += v;
        return sum;
}

void sysfs_hibernate_facts(Sysfs *s, const char *suspend_state, bool rtc, HibernateFacts *f)
{
        char states[128] = "", buf[128] = "";

        memset(f, 0, sizeof *f);
        if (read_attr(s, "/sys/power/state", states, sizeof states) == 0) {
                f->disk_state = word_in(states, "disk");
                f->suspend_state = word_in(states, suspend_state);
        }
        f->disk_mode_suspend = sysfs_disk_mode_offered(s, "suspend");
        /* no lockdown LSM: nothing locked down */
        if (read_selected(s, "/sys/kernel/security/lockdown", buf, sizeof buf) == 0)
                f->locked_down = buf[0] && strcmp(buf, "none") != 0;
        f->resume_device = read_attr(s, "/sys/power/resume", buf, sizeof buf) == 0 && buf[0] &&
                           strcmp(buf, "0:0") != 0;
        f->rtc = rtc;
        f->swap = swap_free(s, &f->swap_free_kib);
        f->image_kib = anon_kib(s);
}

int sysfs_read_wakeup_count(Sysfs *s, unsigned *count)
{
        char buf[32], *end;
        unsigned long v;
        int r = read_attr(s, "/sys/power/wakeup_count", buf, sizeof buf);
        if (r < 0)
                return r;
        errno = 0;
        v = strtoul(buf, &end, 10);
        if (errno || *end || end == buf)
                return -EIO;
        *count = (unsigned)v;
        return 0;
}

int sysfs_write_wakeup_count(Sysfs *s, unsigned count)
{
        char buf[16];
        snprintf(buf, sizeof buf, "%u", count);
        return write_attr(s, "/sys/power/wakeup_count", buf);
}

int sysfs_write_state(Sysfs *s, const char *state)
{
        return write_attr(s, "/sys/power/state", state);
}

int sysfs_read_sleep_mode(Sysfs *s, char *mode, size_t size)
{
        int r = read_selected(s, "/sys/power/sleep_mode", mode, size);
        return r < 0 ? r : mode[0] ? 0 : -EIO;
}

int sysfs_read_sleep_modes(Sysfs *s, char *modes, size_t size)
{
        return read_attr(s, "/sys/power/sleep_mode", modes, size);
}

int sysfs_write_sleep_mode(Sysfs *s, const char *mode)
{
        return write_attr(s, "/sys/power/sleep_mode", mode);
}

int sysfs_rtc_set_wakealarm(Sysfs *s, const char *rtc, time_t when)
{
        char rel[128], buf[32];
        int r;
        snprintf(rel, sizeof rel, "/sys/class/rtc/%s/wakealarm", rtc);
        r = write_attr(s, rel, "0");
        if (r < 0 || when == 0)
                return r;
        /* Relative to the RTC's own clock ("+N"), not an absolute time: the system clock and
         * the RTC drift apart (NTP slews one, a VM's clock lags the other), and an absolute alarm
         * already past in RTC time would never fire. */
        long long in = (long long)(when - time(NULL));
        snprintf(buf, sizeof buf, "+%lld", in > 1 ? in : 1);
        return write_attr(s, rel, buf);
}

int sysfs_rtc_get_wakealarm(Sysfs *s, const char *rtc, time_t *when)
{
        char rel[128], buf[32];
        int r;
        snprintf(rel, sizeof rel, "/sys/class/rtc/%s/wakealarm", rtc);
        r = read_attr(s, rel, buf, sizeof buf);
        if (r < 0)
                return r;
        *when = buf[0] ? (time_t)strtoll(buf, NULL, 10) : 0;
        return 0;
}

int sysfs_wakeup_snapshot(Sysfs *s, WakeupSnapshot *snap)
{
        char dir[4200];
        DIR *d;
        struct dirent *e;
        int r = path_of(s, "/sys/class/wakeup", dir, sizeof dir);

        snap->n = 0;
        if (r < 0)
                return r;
        d = opendir(dir);
        if (!d)
                return -errno;
        while ((e = readdir(d)) && snap->n < SYSFS_MAX_SOURCES) {
                char rel[512], value[64];
                WakeupSourceCount *w = &snap->src[snap->n];
                if (e->d_name[0] == '.')
                        continue;
                snprintf(rel, sizeof rel, "/sys/class/wakeup/%.200s/name", e->d_name);
                if (read_attr(s, rel, w->name, sizeof w->name) < 0)
                        continue;
                snprintf(rel, sizeof rel, "/sys/class/wakeup/%.200s/event_count", e->d_name);
                if (read_attr(s, rel, value, sizeof value) < 0)
                        continue;
                w->events = strtoull(value, NULL, 10);
                snap->n++;
        }
        closedir(d);
        return 0;
}

/* EPOLLWAKEUP's wakeup sources: "eventpoll" for an epoll set, and one per watched file named
 * after its dentry, which for a socket is its protocol ("UNIX" for SOCK_SEQPACKET/DGRAM,
 * "UNIX-STREAM"). They count IPC in flight, not hardware: they can hold a machine awake but
 * never wake a sleeping one. */
bool sysfs_wakeup_source_is_ipc(const char *name)
{
        return strcmp(name, "eventpoll") == 0 || strcmp(name, "UNIX") == 0 ||
               strcmp(name, "UNIX-STREAM") == 0 || (own_holder[0] && strcmp(name, own_holder) == 0);
}

size_t sysfs_wakeup_diff(const WakeupSnapshot *before, const WakeupSnapshot *after, char *out,
                         size_t size, uint64_t *ipc_events)
{
        size_t found = 0, n = 0;
        out[0] = '\0';
        if (ipc_events)
                *ipc_events = 0;
        for (size_t i = 0; i < after->n; i++) {
                uint64_t prev = 0;
                for (size_t j = 0; j < before->n; j++)
                        if (strcmp(before->src[j].name, after->src[i].name) == 0)
                                prev += before->src[j].events;
                for (size_t j = 0; j < i; j++)   /* same-named sources: count each name once */
                        if (strcmp(after->src[j].name, after->src[i].name) == 0)
                                goto next;
                uint64_t now = 0;
                for (size_t j = i; j < after->n; j++)
                        if (strcmp(after->src[j].name, after->src[i].name) == 0)
                                now += after->src[j].events;
                if (now <= prev)
                        continue;
                if (sysfs_wakeup_source_is_ipc(after->src[i].name)) {
                        if (ipc_events)
                                *ipc_events += now - prev;
                        continue;
                }
                if (n < size)
                        n += (size_t)snprintf(out + n, size - n, "%s%s", found ? "," : "", after->src[i].name);
                found++;
        next:;
        }
        return found;
}

int sysfs_sleepctl_open(Sysfs *s)
{
        char comm[32] = "";
        int fd = open_attr(s, "/dev/sleepctl", O_RDWR);
        int cfd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
        ssize_t n = cfd < 0 ? -1 : read(cfd, comm, sizeof comm - 1);

        if (cfd >= 0)
                close(cfd);
        comm[n > 0 ? n : 0] = '\0';
        comm[strcspn(comm, "\n")] = '\0';
        if (fd >= 0)
                snprintf(own_holder, sizeof own_holder, "sleepctl:%s:%d", comm, (int)getpid());
        return fd;
}

const char *sysfs_sleepctl_own_holder(void)
{
        return own_holder;
}

size_t sysfs_sleepctl_holders(Sysfs *s, char *out, size_t size)
{
        char dir[4200];
        DIR *d;
        struct dirent *e;
        size_t found = 0, n = 0;

        out[0] = '\0';
        if (path_of(s, "/sys/class/wakeup", dir, sizeof dir) < 0 || !(d = opendir(dir)))
                return 0;
        while ((e = readdir(d))) {
                char rel[512], name[128], active[32], *comm, *pid;
                if (e->d_name[0] == '.')
                        continue;
                snprintf(rel, sizeof rel, "/sys/class/wakeup/%s/name", e->d_name);
                if (read_attr(s, rel, name, sizeof name) < 0 || strncmp(name, "sleepctl:", 9) != 0 ||
                    strcmp(name, own_holder) == 0)
                        continue;
                snprintf(rel, sizeof rel, "/sys/class/wakeup/%s/active_time_ms", e->d_name);
                if (read_attr(s, rel, active, sizeof active) < 0 || strtoull(active, NULL, 10) == 0)
                        continue;
                comm = name + 9;
                pid = strrchr(comm, ':');
                if (!pid)
                        continue;
                *pid++ = '\0';
                if (n < size)
                        n += (size_t)snprintf(out + n, size - n, "%s%s (pid %s)", found ? ", " : "", comm, pid);
                found++;
        }
        closedir(d);
        return found;
}

int sysfs_sleepctl_stay_awake(int fd)
{
        return ioctl(fd, SLEEPCTL_STAY_AWAKE) < 0 ? -errno : 0;
}

int sysfs_sleepctl_relax(int fd)
{
        return ioctl(fd, SLEEPCTL_RELAX) < 0 ? -errno : 0;
}

int sysfs_sleepctl_set_timeout(int fd, unsigned ms)
{
        ssize_t n = write(fd, &ms, sizeof ms);
        return n < 0 ? -errno : n == sizeof ms ? 0 : -EIO;
}
