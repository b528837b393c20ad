/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job.h — running an alarm's command where a job belongs (job.c).
 *
 * Where systemd runs, the command becomes a transient service unit, started through systemd's
 * D-Bus API as the alarm's owner: its own cgroup, the owner's normal context (not the daemon's
 * sandbox), `systemctl status` and the journal. Elsewhere (the fake-kernel host tier, a system
 * without systemd) the daemon forks it itself as the owner. Either way the alarm hears of the
 * job's end through the callback it gave jobs_init(). */
#ifndef SUSPENDD_JOB_H
#define SUSPENDD_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct Daemon Daemon;
typedef struct AlarmJob AlarmJob;
typedef struct Jobs Jobs;

typedef enum { JOB_RUNNER_SYSTEMD, JOB_RUNNER_DIRECT, JOB_RUNNER_NONE } JobRunner;

#define JOB_MAX_GROUPS 256

/* Who the job runs as, resolved in the daemon (never between fork and exec). */
typedef struct {
        uid_t uid;
        gid_t gid;
        gid_t groups[JOB_MAX_GROUPS];   /* supplementary groups, the primary one included */
        int n_groups;
        char user[64];                  /* the passwd name, or the uid in decimal without one */
        char home[256];
        char shell[256];
} JobCreds;

/* suspendd-alarm-ID-NAME.service, NAME escaped as systemd escapes unit names (`-` is \x2d) and
 * cut so the whole name stays within systemd's 255 characters. g_free. */
char *job_unit_name(uint32_t alarm_id, const char *alarm_name);

/* `RunCommands=` of suspendd.conf: auto is systemd where systemd is the init system, the daemon
 * manages this machine's own kernel (not a fake kernel under --sysfs-root) and a system bus
 * exists; under systemd without a bus it is none (commands off: the daemon's sandbox is no
 * place for them); elsewhere direct. */
JobRunner job_choose_runner(const char *setting, bool systemd_booted, bool real_kernel, bool system_bus);
JobRunner jobs_runner(const Daemon *d);

/* A job's end, told to the alarm module (its command exited, failed or could not be followed):
 * job.c knows nothing of alarms but their ids. */
typedef void (*JobEndedFn)(Daemon *d, uint32_t alarm_id, const char *why);

void jobs_init(Daemon *d, JobEndedFn ended);
void jobs_free(Daemon *d);   /* jobs go on running; the daemon stops following them */

/* Start the command of alarm ID as cr (account_resolve()). 0: under way, *out follows it until
 * the JobEndedFn or job_detach(), which is never called from inside job_start; < 0: it could
 * not start (logged): -EPERM commands are off, -ENOTCONN no system bus, -EBUSY its unit still
 * runs, -EINVAL, -EIO. */
int job_start(Daemon *d, uint32_t alarm_id, const char *alarm_name, const JobCreds *cr, const char *command,
              AlarmJob **out);
/* The alarm stops following its job (its hold ended first): the job goes on. */
void job_detach(AlarmJob *job);

#endif
