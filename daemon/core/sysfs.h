/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs.h — the one seam between suspendd and the kernel.
 *
 * Every access to /sys/power, /sys/class/rtc, /sys/class/wakeup and /dev/sleepctl goes through
 * here, relative to a root directory ("/" in production, a fake-kernel mount in tests). The calls
 * are plain blocking syscalls returning 0 or a negative errno; callers run the blocking ones
 * (wakeup_count read, state write) off the main loop. */
#ifndef SUSPENDD_SYSFS_H
#define SUSPENDD_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef struct {
        char states[64];          /* /sys/power/state, e.g. "freeze mem disk" */
        char mem_sleep[64];       /* /sys/power/mem_sleep as read, "" if absent */
        bool has_sleep_mode;      /* patched kernel: /sys/power/sleep_mode */
        char sleep_modes[64];     /* its contents, e.g. "[direct] disabled cooperative" */
        bool has_sleepctl;        /* patched kernel: /dev/sleepctl */
        char rtc[16];             /* "rtc0", or "" if no RTC with a wakealarm */
        char rtc_device[64];      /* its parent device ("00:06"): the wakeup source its wakes count on */
        bool has_wakeup_sources;  /* /sys/class/wakeup */
} SysfsFeatures;

typedef struct Sysfs Sysfs;

#define SYSFS_MAX_SOURCES 128

typedef struct {
        char name[48];
        uint64_t events;
} WakeupSourceCount;

typedef struct {
        size_t n;
        WakeupSourceCount src[SYSFS_MAX_SOURCES];
} WakeupSnapshot;

/* root must be an absolute directory; "/" for the real kernel. */
int sysfs_open(const char *root, Sysfs **out);
void sysfs_free(Sysfs *s);
const char *sysfs_root(const Sysfs *s);

/* Feature detection (re-reads the files). */
int sysfs_detect(Sysfs *s, SysfsFeatures *f);
/* What an unpatched or limited kernel lacks, in words; "" if nothing. */
void sysfs_describe_missing(const SysfsFeatures *f, char *buf, size_t size);
bool sysfs_state_supported(const SysfsFeatures *f, const char *state);

/* The wakeup_count handshake. read blocks while wakeup events are in progress. */
int sysfs_read_wakeup_count(Sysfs *s, unsigned *count);
int sysfs_write_wakeup_count(Sysfs *s, unsigned count);   /* -EINVAL: an event arrived */
/* Blocks for the whole sleep. -EBUSY: wakeup pending; -EAGAIN: sleep_mode disabled. */
int sysfs_write_state(Sysfs *s, const char *state);

/* Hibernation (PROTOCOL.md §6.7): what decide_sleep_unsupported() needs, read now from
 * /sys/power/{state,disk,resume}, /sys/kernel/security/lockdown, /proc/swaps and /proc/meminfo
 * (all under the root). suspend_state: the SleepState a suspend writes. */
struct HibernateFacts;
void sysfs_hibernate_facts(Sysfs *s, const char *suspend_state, bool rtc, struct HibernateFacts *f);
/* /sys/power/disk: what a `disk` state write does after the image is written (platform, shutdown,
 * reboot, suspend). The selected one, and whether a mode is offered. */
int sysfs_read_disk_mode(Sysfs *s, char *mode, size_t size);
bool sysfs_disk_mode_offered(Sysfs *s, const char *mode);
int sysfs_write_disk_mode(Sysfs *s, const char *mode);

/* sleep_mode (patched kernel): "direct", "disabled", "cooperative". */
int sysfs_read_sleep_mode(Sysfs *s, char *mode, size_t size);   /* the bracketed one */
int sysfs_write_sleep_mode(Sysfs *s, const char *mode);
int sysfs_read_sleep_modes(Sysfs *s, char *modes, size_t size);   /* all, e.g. "[direct] disabled" */

/* RTC wake alarm at system time `when` (written relative to the RTC's clock); 0 clears. Arming
 * clears first (the kernel refuses to re-arm an armed RTC). */
int sysfs_rtc_set_wakealarm(Sysfs *s, const char *rtc, time_t when);
int sysfs_rtc_get_wakealarm(Sysfs *s, const char *rtc, time_t *when);   /* 0 if unarmed */

/* Wakeup sources: event counts now, and which rose between two snapshots. */
int sysfs_wakeup_snapshot(Sysfs *s, WakeupSnapshot *snap);
bool sysfs_wakeup_source_is_ipc(const char *name);
/* Sources whose event count grew, comma-separated into out, IPC sources excepted (their growth
 * is added up in *ipc_events if not NULL); returns how many. Same-named sources are summed. */
size_t sysfs_wakeup_diff(const WakeupSnapshot *before, const WakeupSnapshot *after, char *out,
                         size_t size, uint64_t *ipc_events);

/* /dev/sleepctl (patched kernel): an fd that the daemon holds to mirror its block set. */
int sysfs_sleepctl_open(Sysfs *s);                 /* returns fd or -errno */
int sysfs_sleepctl_stay_awake(int fd);
int sysfs_sleepctl_relax(int fd);
int sysfs_sleepctl_set_timeout(int fd, unsigned ms);
const char *sysfs_sleepctl_own_holder(void);      /* our holder's wakeup source name, or "" */
/* Other processes' active holders, as "comm (pid N), …" into out; returns how many. */
size_t sysfs_sleepctl_holders(Sysfs *s, char *out, size_t size);

#endif
