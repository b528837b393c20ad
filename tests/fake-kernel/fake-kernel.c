/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake-kernel — a FUSE file system that imitates the parts of sysfs suspendd uses, with the
 * kernel's blocking semantics, so the real daemon can be tested on the host without ever
 * touching the host's /sys/power.
 *
 *   fake-kernel --root DIR --control SOCKET [--patched] [--no-rtc] [--sleep-ms N]
 *
 * Files (under DIR): sys/power/{state,wakeup_count,mem_sleep,disk,resume[,sleep_mode]},
 * sys/kernel/security/lockdown, proc/{swaps,meminfo},
 * sys/class/rtc/rtc0/{name,since_epoch,wakealarm}, sys/class/wakeup/wakeupN/{name,event_count}.
 * The control socket takes one command per line (README.md lists them) and answers one line.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* "UNIX" stands for the wakeup source EPOLLWAKEUP gives a watched AF_UNIX socket. */
#define N_SOURCES 4
static const char *const source_names[N_SOURCES] = { "rtc0", "PNP0C0D:00", "serio0", "UNIX" };
#define SRC_UNIX 3

/* Points of the wakeup_count handshake where a test can hold the daemon (`pause-at`), to act
 * at exactly that moment and then `release` it. */
enum point {
        PP_NONE,
        PP_COUNT_READ,        /* a wakeup_count read, before the count is taken */
        PP_COUNT_READ_DONE,   /* ... the count taken, not yet returned */
        PP_COUNT_WRITE,       /* a wakeup_count write, before it is checked */
        PP_COUNT_WRITE_DONE,  /* ... accepted (the check armed), not yet returned */
        PP_STATE_WRITE,       /* a state write, before the pending-wakeup check */
        PP_COUNT,
};
static const char *const point_names[PP_COUNT] = {
        "none", "count-read", "count-read-done", "count-write", "count-write-done", "state-write",
};

/* Sockets some process watches with EPOLLWAKEUP (reported by the epollwakeup shim, README.md):
 * a datagram queued on one of them is a wakeup event, as in the kernel's eventpoll. */
#define MAX_EWS 1024
static unsigned long ews_inodes[MAX_EWS];
static size_t n_ews;

static struct {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        /* wakeup_count handshake */
        unsigned count;           /* registered wakeup events */
        int in_progress;          /* events being processed: reads of wakeup_count block */
        bool check_enabled;       /* a successful wakeup_count write arms the check */
        unsigned saved_count;
        unsigned long event_counts[N_SOURCES];
        /* suspend */
        bool patched, has_rtc;
        char sleep_mode[16];
        char mem_sleep[16];
        long sleep_ms;            /* 0: sleep until woken */
        int fail_next, fail_errno;
        bool pause_before_state, paused, released;
        enum point pause_at, paused_at;   /* armed one-shot pause; where the daemon is held */
        bool paused_legacy;               /* held by `pause on` (answers wait-paused with "ok") */
        unsigned ipc_events;
        bool sleeping;
        const char *wake_request; /* set by `wake`/`event` while sleeping */
        char last_wake[32];
        char last_state[16];
        long long rtc_alarm;      /* 0 = not armed */
        unsigned entered, completed, aborted;
        int last_errno;
        /* hibernation (`hibernation KEY=VALUE...`): what suspendd checks before a disk write */
        bool disk_state;          /* "disk" offered in state (false: nohibernate) */
        char disk_mode[16];       /* /sys/power/disk, selected */
        char last_disk_mode[16];  /* the mode of the last disk write */
        char resume[16];          /* /sys/power/resume: "0:0" = no resume device */
        char lockdown[16];        /* none, integrity, confidentiality */
        unsigned long long swap_kib, swap_used_kib, anon_kib;   /* swap_kib 0: no swap */
        unsigned images;          /* disk writes that completed: an image written and resumed */
        long long return_ns;      /* CLOCK_MONOTONIC when the last sleep's state write returned */
} k = {
        .lock = PTHREAD_MUTEX_INITIALIZER,
        .cond = PTHREAD_COND_INITIALIZER,
        .sleep_mode = "direct",
        .mem_sleep = "s2idle",
        .has_rtc = true,
        .last_wake = "none",
        .last_state = "none",
        .disk_state = true,
        .disk_mode = "platform",
        .last_disk_mode = "none",
        .resume = "254:2",
        .lockdown = "none",
        .swap_kib = 1048572,
        .anon_kib = 102400,
};

static const char *const disk_modes[] = { "platform", "shutdown", "reboot", "suspend", "test_resume", NULL };
static const char *const lockdown_levels[] = { "none", "integrity", "confidentiality", NULL };

/* "a [b] c": every word of words, the one equal to selected in brackets */
static void bracket_list(char *text, size_t size, const char *const *words, const char *selected)
{
        size_t n = 0;
        text[0] = '\0';
        for (int i = 0; words[i] && n < size; i++)
                n += (size_t)snprintf(text + n, size - n, strcmp(words[i], selected) == 0 ? "%s[%s]" : "%s%s",
                                      i ? " " : "", words[i]);
        if (n < size - 1)
                strcat(text, "\n");
}

static bool word_of(const char *const *words, const char *w)
{
        for (int i = 0; words[i]; i++)
                if (strcmp(words[i], w) == 0)
                        return true;
        return false;
}

static const char *control_path;

static long long now_s(void)
{
        return (long long)time(NULL);
}

static void deadline_in(struct timespec *ts, long ms)
{
        clock_gettime(CLOCK_REALTIME, ts);
        ts->tv_sec += ms / 1000;
        ts->tv_nsec += (ms % 1000) * 1000000L;
        if (ts->tv_nsec >= 1000000000L) {
                ts->tv_sec++;
                ts->tv_nsec -= 1000000000L;
        }
}

static int source_index(const char *name)
{
        for (int i = 0; i < N_SOURCES; i++)
                if (strcmp(source_names[i], name) == 0)
                        return i;
        return -1;
}

/* Called with the lock held: a wakeup event happened (like pm_wakeup_event()). */
static void wakeup_event(int src)
{
        k.count++;
        if (src >= 0)
                k.event_counts[src]++;
        if (k.sleeping && !k.wake_request)
                k.wake_request = src >= 0 ? source_names[src] : "unknown";
        pthread_cond_broadcast(&k.cond);
}

/* Called with the lock held at each point of the handshake: hold the caller there while a
 * `pause-at` for this point (or `pause on`, for state writes) is armed, until `release`.
 * Returns -EINTR if the caller's request was interrupted (the daemon died). */
static int pause_point(enum point p)
{
        bool legacy = p == PP_STATE_WRITE && k.pause_before_state;

        if (!legacy && k.pause_at != p)
                return 0;
        if (!legacy)
                k.pause_at = PP_NONE;   /* one-shot */
        k.paused = true;
        k.paused_at = p;
        k.paused_legacy = legacy;
        k.released = false;
        pthread_cond_broadcast(&k.cond);
        while (!k.released) {
                struct timespec ts;
                if (fuse_interrupted()) {
                        k.paused = false;
                        k.paused_at = PP_NONE;
                        return -EINTR;
                }
                deadline_in(&ts, 50);
                pthread_cond_timedwait(&k.cond, &k.lock, &ts);
        }
        k.paused = false;
        k.paused_at = PP_NONE;
        return 0;
}

/* --- file contents --- */

enum node {
        N_DIR, N_STATE, N_WAKEUP_COUNT, N_MEM_SLEEP, N_SLEEP_MODE,
        N_RTC_NAME, N_RTC_EPOCH, N_RTC_WAKEALARM, N_WAKEUP_NAME, N_WAKEUP_COUNT_SRC,
        N_DISK, N_RESUME, N_LOCKDOWN, N_SWAPS, N_MEMINFO,
        N_NONE,
};

static enum node lookup(const char *path, int *src)
{
        static const char *const dirs[] = {
                "/", "/sys", "/sys/power", "/sys/class", "/sys/class/wakeup", "/sys/kernel",
                "/sys/kernel/security", "/proc",
        };
        int n;
        char leaf[32];

        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
                if (strcmp(path, dirs[i]) == 0)
                        return N_DIR;
        if (strcmp(path, "/sys/power/state") == 0) return N_STATE;
        if (strcmp(path, "/sys/power/wakeup_count") == 0) return N_WAKEUP_COUNT;
        if (strcmp(path, "/sys/power/mem_sleep") == 0) return N_MEM_SLEEP;
        if (strcmp(path, "/sys/power/disk") == 0) return N_DISK;
        if (strcmp(path, "/sys/power/resume") == 0) return N_RESUME;
        if (strcmp(path, "/sys/kernel/security/lockdown") == 0) return N_LOCKDOWN;
        if (strcmp(path, "/proc/swaps") == 0) return N_SWAPS;
        if (strcmp(path, "/proc/meminfo") == 0) return N_MEMINFO;
        if (k.patched && strcmp(path, "/sys/power/sleep_mode") == 0) return N_SLEEP_MODE;
        if (k.has_rtc) {
                if (strcmp(path, "/sys/class/rtc") == 0 || strcmp(path, "/sys/class/rtc/rtc0") == 0)
                        return N_DIR;
                if (strcmp(path, "/sys/class/rtc/rtc0/name") == 0) return N_RTC_NAME;
                if (strcmp(path, "/sys/class/rtc/rtc0/since_epoch") == 0) return N_RTC_EPOCH;
                if (strcmp(path, "/sys/class/rtc/rtc0/wakealarm") == 0) return N_RTC_WAKEALARM;
        }
        if (sscanf(path, "/sys/class/wakeup/wakeup%d%31s", &n, leaf) >= 1 && n >= 0 && n < N_SOURCES) {
                char dir[64];
                snprintf(dir, sizeof dir, "/sys/class/wakeup/wakeup%d", n);
                *src = n;
                if (strcmp(path, dir) == 0) return N_DIR;
                if (strcmp(leaf, "/name") == 0) return N_WAKEUP_NAME;
                if (strcmp(leaf, "/event_count") == 0) return N_WAKEUP_COUNT_SRC;
        }
        return N_NONE;
}

static int fk_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
        int src = -1;
        enum node n = lookup(path, &src);
        memset(st, 0, sizeof *st);
        if (n == N_NONE)
                return -ENOENT;
        if (n == N_DIR) {
                st->st_mode = S_IFDIR | 0755;
                st->st_nlink = 2;
                return 0;
        }
        st->st_mode = S_IFREG | 0644;
        if (n == N_RTC_NAME || n == N_RTC_EPOCH || n == N_WAKEUP_NAME || n == N_WAKEUP_COUNT_SRC ||
            n == N_SWAPS || n == N_MEMINFO)
                st->st_mode = S_IFREG | 0444;
        st->st_nlink = 1;
        st->st_size = 4096;   /* like sysfs: a nominal size */
        return 0;
}

static int fk_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
        fill(buf, ".", NULL, 0, 0);
        fill(buf, "..", NULL, 0, 0);
        if (strcmp(path, "/") == 0) {
                fill(buf, "sys", NULL, 0, 0);
                fill(buf, "proc", NULL, 0, 0);
        } else if (strcmp(path, "/proc") == 0) {
                fill(buf, "swaps", NULL, 0, 0);
                fill(buf, "meminfo", NULL, 0, 0);
        } else if (strcmp(path, "/sys") == 0) {
                fill(buf, "power", NULL, 0, 0);
                fill(buf, "class", NULL, 0, 0);
                fill(buf, "kernel", NULL, 0, 0);
        } else if (strcmp(path, "/sys/kernel") == 0) {
                fill(buf, "security", NULL, 0, 0);
        } else if (strcmp(path, "/sys/kernel/security") == 0) {
                fill(buf, "lockdown", NULL, 0, 0);
        } else if (strcmp(path, "/sys/power") == 0) {
                fill(buf, "state", NULL, 0, 0);
                fill(buf, "wakeup_count", NULL, 0, 0);
                fill(buf, "mem_sleep", NULL, 0, 0);
                fill(buf, "disk", NULL, 0, 0);
                fill(buf, "resume", NULL, 0, 0);
                if (k.patched)
                        fill(buf, "sleep_mode", NULL, 0, 0);
        } else if (strcmp(path, "/sys/class") == 0) {
                if (k.has_rtc)
                        fill(buf, "rtc", NULL, 0, 0);
                fill(buf, "wakeup", NULL, 0, 0);
        } else if (strcmp(path, "/sys/class/rtc") == 0) {
                fill(buf, "rtc0", NULL, 0, 0);
        } else if (strcmp(path, "/sys/class/rtc/rtc0") == 0) {
                fill(buf, "name", NULL, 0, 0);
                fill(buf, "since_epoch", NULL, 0, 0);
                fill(buf, "wakealarm", NULL, 0, 0);
        } else if (strcmp(path, "/sys/class/wakeup") == 0) {
                for (int i = 0; i < N_SOURCES; i++) {
                        char name[32];
                        snprintf(name, sizeof name, "wakeup%d", i);
                        fill(buf, name, NULL, 0, 0);
                }
        } else if (strncmp(path, "/sys/class/wakeup/wakeup", 24) == 0) {
                fill(buf, "name", NULL, 0, 0);
                fill(buf, "event_count", NULL, 0, 0);
        }
        return 0;
}

static int fk_open(const char *path, struct fuse_file_info *fi)
{
        int src = -1;
        enum node n = lookup(path, &src);
        if (n == N_NONE)
                return -ENOENT;
        if (n == N_DIR)
                return -EISDIR;
        fi->direct_io = 1;   /* every read and write reaches us, byte-exact */
        fi->nonseekable = 0;
        return 0;
}

static int reply_text(char *buf, size_t size, off_t off, const char *text)
{
        size_t len = strlen(text);
        if ((size_t)off >= len)
                return 0;
        if (size > len - (size_t)off)
                size = len - (size_t)off;
        memcpy(buf, text + off, size);
        return (int)size;
}

static int fk_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
        int src = -1;
        char text[256] = "";
        enum node n = lookup(path, &src);

        pthread_mutex_lock(&k.lock);
        switch (n) {
        case N_STATE:
                snprintf(text, sizeof text, k.disk_state ? "freeze mem disk\n" : "freeze mem\n");
                break;
        case N_DISK:
                bracket_list(text, sizeof text, disk_modes, k.disk_mode);
                break;
        case N_RESUME:
                snprintf(text, sizeof text, "%s\n", k.resume);
                break;
        case N_LOCKDOWN:
                bracket_list(text, sizeof text, lockdown_levels, k.lockdown);
                break;
        case N_SWAPS:
                if (k.swap_kib)
                        snprintf(text, sizeof text, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                                 "/dev/vdb                                partition\t%llu\t\t%llu\t\t-2\n",
                                 k.swap_kib, k.swap_used_kib);
                else
                        snprintf(text, sizeof text, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
                break;
        case N_MEMINFO:
                snprintf(text, sizeof text, "MemTotal:        4026532 kB\nActive(anon):    %llu kB\n"
                         "Inactive(anon):  %llu kB\n", k.anon_kib / 2, k.anon_kib - k.anon_kib / 2);
                break;
        case N_WAKEUP_COUNT:
                if (pause_point(PP_COUNT_READ) < 0) {
                        pthread_mutex_unlock(&k.lock);
                        return -EINTR;
                }
                /* Like the kernel: block while wakeup events are being processed. */
                while (k.in_progress > 0) {
                        struct timespec ts;
                        if (fuse_interrupted()) {
                                pthread_mutex_unlock(&k.lock);
                                return -EINTR;
                        }
                        deadline_in(&ts, 50);
                        pthread_cond_timedwait(&k.cond, &k.lock, &ts);
                }
                snprintf(text, sizeof text, "%u\n", k.count);
                if (pause_point(PP_COUNT_READ_DONE) < 0) {   /* the value is taken: events now come after it */
                        pthread_mutex_unlock(&k.lock);
                        return -EINTR;
                }
                break;
        case N_MEM_SLEEP:
                snprintf(text, sizeof text, strcmp(k.mem_sleep, "s2idle") == 0 ? "[s2idle] deep\n"
                                                                               : "s2idle [deep]\n");
                break;
        case N_SLEEP_MODE:
                snprintf(text, sizeof text, "%s %s %s\n",
                         strcmp(k.sleep_mode, "direct") == 0 ? "[direct]" : "direct",
                         strcmp(k.sleep_mode, "disabled") == 0 ? "[disabled]" : "disabled",
                         strcmp(k.sleep_mode, "cooperative") == 0 ? "[cooperative]" : "cooperative");
                break;
        case N_RTC_NAME:
                snprintf(text, sizeof text, "rtc_cmos 00:01\n");
                break;
        case N_RTC_EPOCH:
                snprintf(text, sizeof text, "%lld\n", now_s());
                break;
        case N_RTC_WAKEALARM:
                if (k.rtc_alarm)
                        snprintf(text, sizeof text, "%lld\n", k.rtc_alarm);
                break;
        case N_WAKEUP_NAME:
                snprintf(text, sizeof text, "%s\n", source_names[src]);
                break;
        case N_WAKEUP_COUNT_SRC:
                snprintf(text, sizeof text, "%lu\n", k.event_counts[src]);
                break;
        default:
                pthread_mutex_unlock(&k.lock);
                return -EIO;
        }
        pthread_mutex_unlock(&k.lock);
        return reply_text(buf, size, off, text);
}

/* The sleep itself: called with the lock held; returns 0 or -errno like enter_state(). */
static int enter_sleep(const char *state)
{
        struct timespec until;
        bool timed = k.sleep_ms > 0;

        /* Let a test act between the daemon's count write and this state write. */
        if (pause_point(PP_STATE_WRITE) < 0)
                return -EINTR;
        snprintf(k.last_state, sizeof k.last_state, "%.15s", state);
        k.entered++;
        if (strcmp(k.sleep_mode, "disabled") == 0)
                return -EAGAIN;
        /* hibernate(): -EPERM when hibernation is not available (nohibernate, lockdown) */
        if (strcmp(state, "disk") == 0 && (!k.disk_state || strcmp(k.lockdown, "none") != 0))
                return -EPERM;
        if (strcmp(state, "disk") == 0)
                snprintf(k.last_disk_mode, sizeof k.last_disk_mode, "%s", k.disk_mode);
        if (k.fail_next > 0) {
                k.fail_next--;
                return -k.fail_errno;
        }
        /* pm_wakeup_pending(): an event since the saved count, or one in progress */
        if (k.check_enabled && (k.count != k.saved_count || k.in_progress > 0)) {
                k.check_enabled = false;
                return -EBUSY;
        }
        k.sleeping = true;
        k.wake_request = NULL;
        pthread_cond_broadcast(&k.cond);
        if (timed)
                deadline_in(&until, k.sleep_ms);
        for (;;) {
                struct timespec tick;
                if (k.wake_request)
                        break;
                if (k.rtc_alarm && now_s() >= k.rtc_alarm) {
                        k.rtc_alarm = 0;   /* a fired alarm disarms itself */
                        k.count++;
                        k.event_counts[0]++;
                        k.wake_request = "rtc0";
                        break;
                }
                deadline_in(&tick, 20);
                if (timed && (tick.tv_sec > until.tv_sec ||
                              (tick.tv_sec == until.tv_sec && tick.tv_nsec >= until.tv_nsec))) {
                        k.count++;
                        k.event_counts[2]++;
                        k.wake_request = "serio0";
                        break;
                }
                pthread_cond_timedwait(&k.cond, &k.lock, &tick);
        }
        snprintf(k.last_wake, sizeof k.last_wake, "%s", k.wake_request);
        if (strcmp(state, "disk") == 0)
                k.images++;   /* the image was written, the machine off, and it was resumed */
        k.sleeping = false;
        k.check_enabled = false;
        k.completed++;
        {
                /* the moment the "kernel" hands the resume back: what a resume latency counts from */
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                k.return_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
        }
        pthread_cond_broadcast(&k.cond);
        return 0;
}

static int fk_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
        int src = -1;
        char text[64];
        size_t len = size < sizeof text - 1 ? size : sizeof text - 1;
        enum node n = lookup(path, &src);
        int r = (int)size;

        memcpy(text, buf, len);
        text[len] = '\0';
        if (len > 0 && text[len - 1] == '\n')
                text[--len] = '\0';

        pthread_mutex_lock(&k.lock);
        switch (n) {
        case N_STATE:
                if (strcmp(text, "mem") != 0 && strcmp(text, "freeze") != 0 && strcmp(text, "disk") != 0) {
                        r = -EINVAL;
                        break;
                }
                r = enter_sleep(text);
                if (r < 0) {
                        k.aborted++;
                        k.last_errno = -r;
                } else {
                        r = (int)size;
                }
                break;
        case N_WAKEUP_COUNT: {
                char *end;
                unsigned long v = strtoul(text, &end, 10);
                if (pause_point(PP_COUNT_WRITE) < 0) {
                        r = -EINTR;
                        break;
                }
                if (*end || len == 0 || v != k.count || k.in_progress > 0) {
                        r = -EINVAL;   /* stale count: an event arrived since the read */
                        break;
                }
                k.saved_count = (unsigned)v;
                k.check_enabled = true;
                if (pause_point(PP_COUNT_WRITE_DONE) < 0)
                        r = -EINTR;
                break;
        }
        case N_MEM_SLEEP:
                if (strcmp(text, "s2idle") == 0 || strcmp(text, "deep") == 0)
                        snprintf(k.mem_sleep, sizeof k.mem_sleep, "%.15s", text);
                else
                        r = -EINVAL;
                break;
        case N_DISK:
                if (word_of(disk_modes, text))
                        snprintf(k.disk_mode, sizeof k.disk_mode, "%.15s", text);
                else
                        r = -EINVAL;
                break;
        case N_SLEEP_MODE:
                if (strcmp(text, "direct") == 0 || strcmp(text, "disabled") == 0 ||
                    strcmp(text, "cooperative") == 0)
                        snprintf(k.sleep_mode, sizeof k.sleep_mode, "%.15s", text);
                else
                        r = -EINVAL;
                break;
        case N_RTC_WAKEALARM: {
                char *end;
                bool rel = text[0] == '+';
                long long v = strtoll(text + rel, &end, 10);
                if (*end || len == 0 || v < 0) {
                        r = -EINVAL;
                        break;
                }
                if (rel)
                        v += now_s();
                if (v != 0 && k.rtc_alarm != 0 && !rel) {
                        r = -EBUSY;    /* like rtc-sysfs: clear before re-arming */
                        break;
                }
                k.rtc_alarm = v;
                pthread_cond_broadcast(&k.cond);
                break;
        }
        default:
                r = -EACCES;
        }
        pthread_mutex_unlock(&k.lock);
        return r;
}

static int fk_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
        return 0;   /* O_TRUNC opens of sysfs files are fine */
}

static void ctl_reply(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- the EPOLLWAKEUP model (README.md, "Client messages") --- */

/* Look up an AF_UNIX socket by inode with sock_diag (what `ss -x` uses): its peer's inode and
 * how many datagrams wait in its receive queue. Returns 0, -ENOENT, or -errno. */
static int unix_sock_info(unsigned long ino, unsigned long *peer, unsigned *rqueue)
{
        struct {
                struct nlmsghdr nlh;
                struct unix_diag_req req;
        } q = {
                .nlh = { .nlmsg_len = sizeof q, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                         .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
                .req = { .sdiag_family = AF_UNIX, .udiag_states = ~0U,
                         .udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN },
        };
        char buf[32768];
        int r = -ENOENT, fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

        if (fd < 0)
                return -errno;
        if (send(fd, &q, sizeof q, 0) < 0) {
                r = -errno;
                goto out;
        }
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);
                if (n <= 0) {
                        r = n < 0 ? -errno : -EIO;
                        goto out;
                }
                for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
                        struct unix_diag_msg *m = NLMSG_DATA(h);
                        struct rtattr *a;
                        int left;
                        if (h->nlmsg_type == NLMSG_DONE)
                                goto out;
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                r = -EIO;
                                goto out;
                        }
                        if (m->udiag_ino != ino)
                                continue;
                        *peer = 0;
                        *rqueue = 0;
                        left = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
                        for (a = (struct rtattr *)(m + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
                                if (a->rta_type == UNIX_DIAG_PEER)
                                        *peer = *(uint32_t *)RTA_DATA(a);
                                else if (a->rta_type == UNIX_DIAG_RQLEN)
                                        *rqueue = ((struct unix_diag_rqlen *)RTA_DATA(a))->udiag_rqueue;
                        }
                        r = 0;   /* read on to the end of the dump */
                }
        }
out:
        close(fd);
        return r;
}

static bool ews_has(unsigned long ino)
{
        for (size_t i = 0; i < n_ews; i++)
                if (ews_inodes[i] == ino)
                        return true;
        return false;
}

static void ews_set(unsigned long ino, bool on)
{
        for (size_t i = 0; i < n_ews; i++)
                if (ews_inodes[i] == ino) {
                        if (!on)
                                ews_inodes[i] = ews_inodes[--n_ews];
                        return;
                }
        if (on && n_ews < MAX_EWS)
                ews_inodes[n_ews++] = ino;
}

/* A client's datagram to a socket watched with EPOLLWAKEUP is a wakeup event: in the kernel it
 * is in progress from when it is queued until the reader's next epoll_wait, then counted (source
 * UNIX). The test brackets each datagram it sends (Env.ipc in harness.py):
 *   `ipc-begin INO` before sending on its socket INO: if the receiving end is watched with
 *      EPOLLWAKEUP the event is in progress from now (reads of wakeup_count wait, count writes
 *      fail, state writes see it pending);
 *   `ipc-end INO [MS]` after sending: wait (lock not held) until the receiving end has taken the
 *      datagram off its queue, then the event ends and is counted.
 * It never ends a sleep (the sender would be frozen). Answers "ok wakeup=0|1 count=N peer=P"
 * (wakeup=0: nobody asked for EPOLLWAKEUP on that socket, or the shim is not preloaded). */
#define MAX_IPC 64
static struct { unsigned long ino, peer; } ipc_open[MAX_IPC];
static size_t n_ipc_open;

static void ipc_begin(FILE *out, unsigned long ino)
{
        unsigned long peer = 0;
        unsigned rq = 0;
        int r = unix_sock_info(ino, &peer, &rq);
        bool wake;

        /* peer 0: not accepted yet (no inode), so in nobody's epoll set: no wakeup source */
        if (r < 0) {
                ctl_reply(out, "error socket %lu: %s", ino, strerror(-r));
                return;
        }
        pthread_mutex_lock(&k.lock);
        wake = peer && ews_has(peer) && n_ipc_open < MAX_IPC;
        if (wake) {
                ipc_open[n_ipc_open].ino = ino;
                ipc_open[n_ipc_open++].peer = peer;
                k.in_progress++;
        }
        ctl_reply(out, "ok wakeup=%d count=%u peer=%lu", wake, k.count, peer);
        pthread_mutex_unlock(&k.lock);
}

static void ipc_end(FILE *out, unsigned long ino, long timeout_ms)
{
        struct timespec until, now;
        unsigned long peer = 0, unused;
        unsigned rq = 0;
        size_t i;
        int r = 0;

        pthread_mutex_lock(&k.lock);
        for (i = 0; i < n_ipc_open && ipc_open[i].ino != ino; i++)
                ;
        if (i == n_ipc_open) {
                ctl_reply(out, "ok wakeup=0 count=%u", k.count);
                pthread_mutex_unlock(&k.lock);
                return;
        }
        peer = ipc_open[i].peer;
        pthread_mutex_unlock(&k.lock);
        deadline_in(&until, timeout_ms);
        while ((r = unix_sock_info(peer, &unused, &rq)) == 0 && rq > 0) {
                clock_gettime(CLOCK_REALTIME, &now);
                if (now.tv_sec > until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec))
                        break;
                usleep(500);
        }
        pthread_mutex_lock(&k.lock);
        for (i = 0; i < n_ipc_open && ipc_open[i].ino != ino; i++)
                ;
        if (i < n_ipc_open)
                ipc_open[i] = ipc_open[--n_ipc_open];
        /* ended either way (a vanished reader relaxes its sources too); said so if not drained */
        k.in_progress--;
        k.count++;
        k.event_counts[SRC_UNIX]++;
        k.ipc_events++;
        pthread_cond_broadcast(&k.cond);
        if (r == 0 && rq > 0)
                ctl_reply(out, "timeout queued=%u count=%u", rq, k.count);
        else
                ctl_reply(out, "ok wakeup=1 count=%u peer=%lu", k.count, peer);
        pthread_mutex_unlock(&k.lock);
}

/* --- control socket --- */

static void ctl_reply(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ctl_reply(FILE *f, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
        fflush(f);
}

static int errno_from_name(const char *s)
{
        if (strcmp(s, "EBUSY") == 0) return EBUSY;
        if (strcmp(s, "EAGAIN") == 0) return EAGAIN;
        if (strcmp(s, "EIO") == 0) return EIO;
        if (strcmp(s, "EINVAL") == 0) return EINVAL;
        if (strcmp(s, "ENOMEM") == 0) return ENOMEM;
        return atoi(s);
}

/* Wait (lock held) until cond() or the timeout; returns whether cond() holds. */
static bool wait_for(bool (*cond)(long), long arg, long timeout_ms)
{
        struct timespec until;
        deadline_in(&until, timeout_ms);
        while (!cond(arg))
                if (pthread_cond_timedwait(&k.cond, &k.lock, &until) == ETIMEDOUT)
                        return cond(arg);
        return true;
}
static bool is_sleeping(long arg) { return k.sleeping; }
static bool is_paused(long arg) { return k.paused; }
static bool completed_at_least(long n) { return (long)k.completed >= n; }
static bool entered_at_least(long n) { return (long)k.entered >= n; }

/* `hibernation KEY=VALUE...` (lock held): disk=0|1 (disk in state), resume=M:N, lockdown=LEVEL,
 * swap=KIB (0: none), swap_used=KIB, anon=KIB (the image estimate's input). */
static void hibernation_set(FILE *out, const char *args)
{
        char key[32], value[32];
        int used;

        while (sscanf(args, " %31[^= ]=%31s%n", key, value, &used) == 2) {
                args += used;
                if (strcmp(key, "disk") == 0)
                        k.disk_state = strcmp(value, "1") == 0;
                else if (strcmp(key, "resume") == 0)
                        snprintf(k.resume, sizeof k.resume, "%.15s", value);
                else if (strcmp(key, "lockdown") == 0 && word_of(lockdown_levels, value))
                        snprintf(k.lockdown, sizeof k.lockdown, "%.15s", value);
                else if (strcmp(key, "swap") == 0)
                        k.swap_kib = strtoull(value, NULL, 10);
                else if (strcmp(key, "swap_used") == 0)
                        k.swap_used_kib = strtoull(value, NULL, 10);
                else if (strcmp(key, "anon") == 0)
                        k.anon_kib = strtoull(value, NULL, 10);
                else {
                        ctl_reply(out, "error unknown hibernation setting %s=%s", key, value);
                        return;
                }
        }
        ctl_reply(out, "ok disk=%d resume=%s lockdown=%s swap=%llu swap_used=%llu anon=%llu", k.disk_state,
                  k.resume, k.lockdown, k.swap_kib, k.swap_used_kib, k.anon_kib);
}

static void handle_command(FILE *out, char *line)
{
        char cmd[32] = "", arg1[64] = "", arg2[64] = "";
        int src;

        sscanf(line, "%31s %63s %63s", cmd, arg1, arg2);
        if (strcmp(cmd, "ipc-begin") == 0) {
                ipc_begin(out, strtoul(arg1, NULL, 10));
                return;
        }
        if (strcmp(cmd, "ipc-end") == 0) {   /* waits without the lock */
                ipc_end(out, strtoul(arg1, NULL, 10), arg2[0] ? atol(arg2) : 10000);
                return;
        }
        pthread_mutex_lock(&k.lock);
        if (strcmp(cmd, "event") == 0 || strcmp(cmd, "wake") == 0) {
                src = source_index(arg1[0] ? arg1 : "serio0");
                if (src < 0) {
                        ctl_reply(out, "error unknown source %s", arg1);
                } else {
                        wakeup_event(src);
                        ctl_reply(out, "ok count=%u", k.count);
                }
        } else if (strcmp(cmd, "begin") == 0) {
                k.in_progress++;
                ctl_reply(out, "ok in_progress=%d", k.in_progress);
        } else if (strcmp(cmd, "end") == 0) {
                if (k.in_progress > 0) {
                        k.in_progress--;
                        wakeup_event(source_index(arg1[0] ? arg1 : "serio0"));
                }
                ctl_reply(out, "ok in_progress=%d", k.in_progress);
        } else if (strcmp(cmd, "fail") == 0) {
                k.fail_next = atoi(arg1);
                k.fail_errno = errno_from_name(arg2);
                ctl_reply(out, "ok");
        } else if (strcmp(cmd, "sleep-ms") == 0) {
                k.sleep_ms = atol(arg1);
                ctl_reply(out, "ok");
        } else if (strcmp(cmd, "pause") == 0) {
                k.pause_before_state = strcmp(arg1, "off") != 0;
                ctl_reply(out, "ok");
        } else if (strcmp(cmd, "pause-at") == 0) {
                enum point p = PP_NONE;
                for (int i = 0; i < PP_COUNT; i++)
                        if (strcmp(arg1, point_names[i]) == 0)
                                p = (enum point)i;
                if (p == PP_NONE && strcmp(arg1, "off") != 0) {
                        ctl_reply(out, "error unknown point %s", arg1);
                } else {
                        k.pause_at = p;
                        ctl_reply(out, "ok");
                }
        } else if (strcmp(cmd, "ews") == 0) {
                ews_set(strtoul(arg2, NULL, 10), strcmp(arg1, "add") == 0);
                ctl_reply(out, "ok");
        } else if (strcmp(cmd, "release") == 0) {
                k.released = true;
                pthread_cond_broadcast(&k.cond);
                ctl_reply(out, "ok");
        } else if (strcmp(cmd, "wait-sleeping") == 0) {
                ctl_reply(out, wait_for(is_sleeping, 0, arg1[0] ? atol(arg1) : 10000) ? "ok" : "timeout");
        } else if (strcmp(cmd, "wait-paused") == 0) {
                if (!wait_for(is_paused, 0, arg1[0] ? atol(arg1) : 10000))
                        ctl_reply(out, "timeout");
                else if (k.paused_legacy)
                        ctl_reply(out, "ok");
                else
                        ctl_reply(out, "ok at=%s", point_names[k.paused_at]);
        } else if (strcmp(cmd, "wait-completed") == 0) {
                ctl_reply(out, wait_for(completed_at_least, atol(arg1), arg2[0] ? atol(arg2) : 10000)
                                       ? "ok" : "timeout");
        } else if (strcmp(cmd, "wait-entered") == 0) {
                ctl_reply(out, wait_for(entered_at_least, atol(arg1), arg2[0] ? atol(arg2) : 10000)
                                       ? "ok" : "timeout");
        } else if (strcmp(cmd, "set-sleep-mode") == 0) {
                snprintf(k.sleep_mode, sizeof k.sleep_mode, "%.15s", arg1);
                ctl_reply(out, "ok");
        } else if (strcmp(cmd, "hibernation") == 0) {
                hibernation_set(out, line + strlen(cmd));
        } else if (strcmp(cmd, "stats") == 0) {
                ctl_reply(out, "ok entered=%u completed=%u aborted=%u last_errno=%d last_state=%s "
                               "count=%u in_progress=%d sleeping=%d paused=%d wakealarm=%lld "
                               "last_wake=%s sleep_mode=%s mem_sleep=%s paused_at=%s ipc_events=%u "
                               "disk_mode=%s last_disk_mode=%s images=%u return_ns=%lld",
                          k.entered, k.completed, k.aborted, k.last_errno, k.last_state, k.count,
                          k.in_progress, k.sleeping, k.paused, k.rtc_alarm, k.last_wake,
                          k.sleep_mode, k.mem_sleep, point_names[k.paused_at], k.ipc_events,
                          k.disk_mode, k.last_disk_mode, k.images, k.return_ns);
        } else {
                ctl_reply(out, "error unknown command");
        }
        pthread_mutex_unlock(&k.lock);
}

static void *control_client(void *arg)
{
        int fd = (int)(long)arg;
        FILE *f = fdopen(fd, "r+");
        char line[256];
        if (!f) {
                close(fd);
                return NULL;
        }
        while (fgets(line, sizeof line, f))
                handle_command(f, line);
        fclose(f);
        return NULL;
}

static void *control_thread(void *arg)
{
        int lfd = (int)(long)arg;
        for (;;) {
                pthread_t t;
                int fd = accept(lfd, NULL, NULL);
                if (fd < 0)
                        continue;
                if (pthread_create(&t, NULL, control_client, (void *)(long)fd) == 0)
                        pthread_detach(t);
                else
                        close(fd);
        }
        return NULL;
}

static void *fk_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        pthread_t t;
        int lfd;

        cfg->direct_io = 1;
        cfg->attr_timeout = 0;
        cfg->entry_timeout = 0;
        cfg->negative_timeout = 0;
        cfg->kernel_cache = 0;

        lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", control_path);
        unlink(control_path);
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 16) < 0) {
                perror("fake-kernel: control socket");
                exit(1);
        }
        pthread_create(&t, NULL, control_thread, (void *)(long)lfd);
        pthread_detach(t);
        return NULL;
}

static const struct fuse_operations ops = {
        .init = fk_init,
        .getattr = fk_getattr,
        .readdir = fk_readdir,
        .open = fk_open,
        .read = fk_read,
        .write = fk_write,
        .truncate = fk_truncate,
};

static void usage(FILE *f)
{
        fprintf(f, "Usage: fake-kernel --root DIR --control SOCKET [--patched] [--no-rtc] [--sleep-ms N]\n"
                   "Serves a fake sysfs (sys/power, sys/class/rtc, sys/class/wakeup) at DIR via FUSE.\n");
}

int main(int argc, char **argv)
{
        const char *root = NULL;
        char *fargv[8];
        int fargc = 0;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
                        root = argv[++i];
                else if (strcmp(argv[i], "--control") == 0 && i + 1 < argc)
                        control_path = argv[++i];
                else if (strcmp(argv[i], "--patched") == 0)
                        k.patched = true;
                else if (strcmp(argv[i], "--no-rtc") == 0)
                        k.has_rtc = false;
                else if (strcmp(argv[i], "--sleep-ms") == 0 && i + 1 < argc)
                        k.sleep_ms = atol(argv[++i]);
                else if (strcmp(argv[i], "--help") == 0) {
                        usage(stdout);
                        return 0;
                } else {
                        usage(stderr);
                        return 2;
                }
        }
        if (!root || !control_path) {
                usage(stderr);
                return 2;
        }
        signal(SIGPIPE, SIG_IGN);
        fargv[fargc++] = argv[0];
        fargv[fargc++] = "-f";
        fargv[fargc++] = "-o";
        fargv[fargc++] = "fsname=fake-kernel,subtype=fake-kernel";
        fargv[fargc++] = (char *)root;
        fargv[fargc] = NULL;
        return fuse_main(fargc, fargv, &ops, NULL);
}
