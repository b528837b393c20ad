/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job.c — an alarm's command, run where a job belongs (job.h).
 *
 * The daemon's own unit is a sandbox (PrivateNetwork=, RestrictAddressFamilies=AF_UNIX,
 * MemoryDenyWriteExecute=, a syscall filter): a backup forked from it could not reach its
 * server. So where systemd runs, the command is a transient service unit, as `systemd-run
 * --uid=` makes one: StartTransientUnit with User=, Group=, SupplementaryGroups= and an
 * Environment= naming the alarm, Type=exec, AddRef= (the unit stays loaded until we Unref it,
 * so its end cannot slip past us) and CollectMode=inactive-or-failed (a failed run is collected,
 * the name is free for the next). Everything on the bus is asynchronous: the main loop never
 * waits for systemd. The unit's end is its ActiveState turning inactive or failed
 * (PropertiesChanged, after Manager.Subscribe), or its start job failing (JobRemoved).
 *
 * Without systemd the daemon forks the command itself. Credentials are resolved before the
 * fork; the child, a copy of a multithreaded process, only calls async-signal-safe functions
 * (setgroups, setgid, setuid) before exec, with a clean environment. */
#include <errno.h>
#include <gio/gio.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon.h"
#include "job.h"

#define UNIT_PREFIX "suspendd-alarm-"
#define UNIT_NAME_MAX 255
#define SYSTEMD_NAME "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define MANAGER_IFACE "org.freedesktop.systemd1.Manager"
#define UNIT_IFACE "org.freedesktop.systemd1.Unit"
#define JOB_PATH_ENV "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

struct AlarmJob {
        Daemon *d;
        uint32_t alarm_id;       /* 0 once the alarm no longer follows it */
        char alarm_name[65];
        JobRunner runner;
        /* direct */
        GPid pid;
        guint child_watch;
        /* unit */
        char *unit, *path;
        GVariant *props;         /* StartTransientUnit's properties until sent */
        guint props_sub;
        bool start_done;         /* its start job finished: "inactive" now means it ended */
        bool ended;
};

struct Jobs {
        JobRunner runner;
        GDBusConnection *bus;
        GCancellable *cancel;    /* every call in flight: cancelled at jobs_free */
        bool connecting;
        GList *waiting;          /* unit jobs waiting for the bus */
        GList *all;              /* every unit job still allocated */
        GHashTable *running;     /* unit name -> AlarmJob*, until its end */
        guint job_removed_sub;
        gulong closed_handler;
        JobEndedFn ended;        /* the alarm module hears of each end */
};

/* --- what a job is: name, runner --- */

char *job_unit_name(uint32_t alarm_id, const char *alarm_name)
{
        GString *s = g_string_new(NULL);
        const char *suffix = ".service";

        g_string_printf(s, UNIT_PREFIX "%u-", alarm_id);
        for (const char *p = alarm_name; *p; p++) {
                char esc[5];
                bool plain = g_ascii_isalnum(*p) || *p == '_' || *p == '.' || *p == ':';
                if (plain)
                        snprintf(esc, sizeof esc, "%c", *p);
                else
                        snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)*p);
                /* the id alone makes the name unique: a long name is cut, never an escape */
                if (s->len + strlen(esc) + strlen(suffix) > UNIT_NAME_MAX)
                        break;
                g_string_append(s, esc);
        }
        g_string_append(s, suffix);
        return g_string_free(s, FALSE);
}

JobRunner job_choose_runner(const char *setting, bool systemd_booted, bool real_kernel, bool system_bus)
{
        if (strcmp(setting, "systemd") == 0)
                return JOB_RUNNER_SYSTEMD;
        if (strcmp(setting, "direct") == 0)
                return JOB_RUNNER_DIRECT;
        if (strcmp(setting, "none") == 0)
                return JOB_RUNNER_NONE;
        if (!systemd_booted || !real_kernel)
                return JOB_RUNNER_DIRECT;
        /* Under systemd the daemon's unit is a sandbox without CAP_SETUID: a command forked
         * there could not become its owner, and would run inside the sandbox if it could. With
         * no system bus to reach systemd, commands are off rather than run in the wrong place. */
        return system_bus ? JOB_RUNNER_SYSTEMD : JOB_RUNNER_NONE;
}

/* The end of a job, either way: the alarm hears of it, then the job is forgotten. */
static void job_ended(AlarmJob *job, const char *why)
{
        if (job->alarm_id)
                job->d->jobs->ended(job->d, job->alarm_id, why);
        job->alarm_id = 0;
}

void job_detach(AlarmJob *job)
{
        if (job)
                job->alarm_id = 0;
}

/* --- direct: fork and exec as the owner --- */

typedef struct {
        const JobCreds *creds;
        bool switch_user;
        bool reset_scheduling;
} ChildSetup;

/* Between fork and exec in a copy of a multithreaded process: async-signal-safe calls only
 * (plain system calls). The command runs as cron would run it: SCHED_OTHER, not the batch policy
 * the daemon took for itself (sched.c). */
static void child_become_owner(gpointer data)
{
        const ChildSetup *cs = data;
        struct sched_param p = { .sched_priority = 0 };

        if (cs->reset_scheduling && sched_setscheduler(0, SCHED_OTHER, &p) < 0)
                _exit(126);
        if (!cs->switch_user)
                return;
        if (setgroups((size_t)cs->creds->n_groups, cs->creds->groups) < 0 || setgid(cs->creds->gid) < 0 ||
            setuid(cs->creds->uid) < 0)
                _exit(126);
}

static void on_child_exit(GPid pid, gint status, gpointer data)
{
        AlarmJob *job = data;
        g_autoptr(GError) err = NULL;
        bool ok = g_spawn_check_wait_status(status, &err);

        log_info("alarm %s: its command (pid %d) %s%s", job->alarm_name, (int)pid,
                 ok ? "exited successfully" : "failed: ", ok ? "" : err->message);
        g_spawn_close_pid(pid);
        job->child_watch = 0;
        job_ended(job, ok ? "the command exited" : "the command failed");
}

static void direct_job_free(gpointer data)
{
        AlarmJob *job = data;
        /* the watch's destroy notify: after the exit, or at jobs_free (the child goes on) */
        job->d->jobs->all = g_list_remove(job->d->jobs->all, job);
        g_free(job);
}

static int start_direct(AlarmJob *job, const JobCreds *cr, const char *command)
{
        Daemon *d = job->d;
        ChildSetup cs = { cr, getuid() != cr->uid, d->batch_scheduling };
        g_autofree char *home = g_strdup_printf("HOME=%s", cr->home);
        g_autofree char *user = g_strdup_printf("USER=%s", cr->user);
        g_autofree char *logname = g_strdup_printf("LOGNAME=%s", cr->user);
        g_autofree char *shell = g_strdup_printf("SHELL=%s", cr->shell);
        g_autofree char *alarm_name = g_strdup_printf("SUSPENDD_ALARM=%s", job->alarm_name);
        g_autofree char *alarm_id = g_strdup_printf("SUSPENDD_ALARM_ID=%u", job->alarm_id);
        char *argv[] = { (char *)d->command_shell, "-c", (char *)command, NULL };
        char *envp[] = { JOB_PATH_ENV, home, user, logname, shell, alarm_name, alarm_id, NULL };
        g_autoptr(GError) err = NULL;

        if (!g_spawn_async("/", argv, envp, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDIN_FROM_DEV_NULL,
                           child_become_owner, &cs, &job->pid, &err)) {
                log_err("alarm %s: cannot run its command: %s", job->alarm_name, err->message);
                return -EIO;
        }
        log_info("alarm %s: running its command as uid %u (pid %d)", job->alarm_name, (unsigned)cr->uid,
                 (int)job->pid);
        d->jobs->all = g_list_prepend(d->jobs->all, job);
        job->child_watch = g_child_watch_add_full(G_PRIORITY_DEFAULT, job->pid, on_child_exit, job,
                                                  direct_job_free);
        return 0;
}

/* --- systemd: a transient unit --- */

static void unit_job_free(AlarmJob *job)
{
        Jobs *js = job->d->jobs;
        if (job->props_sub && js->bus)
                g_dbus_connection_signal_unsubscribe(js->bus, job->props_sub);
        js->all = g_list_remove(js->all, job);
        js->waiting = g_list_remove(js->waiting, job);
        if (g_hash_table_lookup(js->running, job->unit) == job)
                g_hash_table_remove(js->running, job->unit);
        if (job->props)
                g_variant_unref(job->props);
        g_free(job->unit);
        g_free(job->path);
        g_free(job);
}

/* systemd's object path of a unit: every byte outside [A-Za-z0-9] as _xx. */
static char *unit_object_path(const char *unit)
{
        GString *s = g_string_new(SYSTEMD_PATH "/unit/");
        for (const char *p = unit; *p; p++) {
                if (g_ascii_isalnum(*p))
                        g_string_append_c(s, *p);
                else
                        g_string_append_printf(s, "_%02x", (unsigned char)*p);
        }
        return g_string_free(s, FALSE);
}

static void on_result(GObject *src, GAsyncResult *res, gpointer data)
{
        AlarmJob *job = data;
        g_autoptr(GError) err = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, &err);
        g_autoptr(GVariant) v = NULL;

        if (g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;   /* jobs_free has freed it */
        if (reply) {
                g_variant_get(reply, "(v)", &v);
                if (g_variant_is_of_type(v, G_VARIANT_TYPE_STRING))
                        log_info("alarm %s: unit %s ended (result: %s)", job->alarm_name, job->unit,
                                 g_variant_get_string(v, NULL));
        }
        /* our AddRef lets go: systemd collects the unit (CollectMode=inactive-or-failed) */
        if (job->d->jobs->bus)
                g_dbus_connection_call(job->d->jobs->bus, SYSTEMD_NAME, job->path, UNIT_IFACE, "Unref", NULL, NULL,
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
        unit_job_free(job);
}

/* The unit ended (or never started): tell the alarm at once, then log systemd's verdict. */
static void unit_ended(AlarmJob *job, const char *why)
{
        Jobs *js = job->d->jobs;
        if (job->ended)
                return;
        job->ended = true;
        g_hash_table_remove(js->running, job->unit);
        job_ended(job, why);
        g_dbus_connection_call(js->bus, SYSTEMD_NAME, job->path, "org.freedesktop.DBus.Properties", "Get",
                               g_variant_new("(ss)", "org.freedesktop.systemd1.Service", "Result"),
                               G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, -1, js->cancel, on_result, job);
}

static void active_state_is(AlarmJob *job, const char *state)
{
        /* a new transient unit may first be announced inactive: it has not run yet */
        if (strcmp(state, "activating") == 0 || strcmp(state, "active") == 0 ||
            strcmp(state, "deactivating") == 0 || strcmp(state, "reloading") == 0)
                job->start_done = true;
        if (strcmp(state, "failed") == 0)
                unit_ended(job, "its unit failed");
        else if (strcmp(state, "inactive") == 0 && job->start_done)
                unit_ended(job, "its unit ended");
}

static void on_unit_properties(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
                               const char *signal, GVariant *params, gpointer data)
{
        AlarmJob *job = data;
        g_autoptr(GVariant) changed = NULL;
        const char *iface_name, *state;

        if (job->ended || !g_variant_is_of_type(params, G_VARIANT_TYPE("(sa{sv}as)")))
                return;
        g_variant_get(params, "(&s@a{sv}@as)", &iface_name, &changed, NULL);
        if (strcmp(iface_name, UNIT_IFACE) == 0 && g_variant_lookup(changed, "ActiveState", "&s", &state))
                active_state_is(job, state);
}

static void on_active_state(GObject *src, GAsyncResult *res, gpointer data)
{
        AlarmJob *job = data;
        g_autoptr(GError) err = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, &err);
        g_autoptr(GVariant) v = NULL;

        if (g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED) || job->ended)
                return;
        if (!reply) {
                log_warn("alarm %s: cannot read the state of unit %s: %s", job->alarm_name, job->unit, err->message);
                return;   /* PropertiesChanged still tells */
        }
        g_variant_get(reply, "(v)", &v);
        if (g_variant_is_of_type(v, G_VARIANT_TYPE_STRING))
                active_state_is(job, g_variant_get_string(v, NULL));
}

/* The start job of a unit finished. "done": it runs (or already ran: ask); else it never ran. */
static void on_job_removed(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
                           const char *signal, GVariant *params, gpointer data)
{
        Jobs *js = data;
        const char *unit, *result;
        AlarmJob *job;
        char why[128];

        if (!g_variant_is_of_type(params, G_VARIANT_TYPE("(uoss)")))
                return;
        g_variant_get(params, "(u&o&s&s)", NULL, NULL, &unit, &result);
        job = g_hash_table_lookup(js->running, unit);
        if (!job || job->ended)
                return;
        job->start_done = true;
        if (strcmp(result, "done") != 0) {
                log_err("alarm %s: unit %s did not start (%s)", job->alarm_name, unit, result);
                snprintf(why, sizeof why, "its unit did not start (%s)", result);
                unit_ended(job, why);
                return;
        }
        g_dbus_connection_call(bus, SYSTEMD_NAME, job->path, "org.freedesktop.DBus.Properties", "Get",
                               g_variant_new("(ss)", UNIT_IFACE, "ActiveState"), G_VARIANT_TYPE("(v)"),
                               G_DBUS_CALL_FLAGS_NONE, -1, js->cancel, on_active_state, job);
}

static void on_started(GObject *src, GAsyncResult *res, gpointer data)
{
        AlarmJob *job = data;
        g_autoptr(GError) err = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, &err);
        g_autofree char *remote = NULL;

        if (g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        if (reply) {
                log_info("alarm %s: its command runs as unit %s", job->alarm_name, job->unit);
                return;
        }
        if (job->ended)
                return;   /* its signals told first; on_result frees it */
        remote = g_dbus_error_get_remote_error(err);
        g_dbus_error_strip_remote_error(err);
        log_err("alarm %s: systemd cannot start unit %s: %s%s%s%s", job->alarm_name, job->unit, err->message,
                remote ? " (" : "", remote ? remote : "", remote ? ")" : "");
        job->ended = true;
        g_hash_table_remove(job->d->jobs->running, job->unit);
        job_ended(job, "its unit could not be started");
        unit_job_free(job);
}

static void send_start(Jobs *js, AlarmJob *job)
{
        /* before the start, so that no change of the unit can come unseen */
        job->props_sub = g_dbus_connection_signal_subscribe(js->bus, SYSTEMD_NAME, "org.freedesktop.DBus.Properties",
                                                            "PropertiesChanged", job->path, UNIT_IFACE,
                                                            G_DBUS_SIGNAL_FLAGS_NONE, on_unit_properties, job, NULL);
        g_dbus_connection_call(js->bus, SYSTEMD_NAME, SYSTEMD_PATH, MANAGER_IFACE, "StartTransientUnit",
                               g_variant_new("(ss@a(sv)@a(sa(sv)))", job->unit, "fail", job->props,
                                             g_variant_new_array(G_VARIANT_TYPE("(sa(sv))"), NULL, 0)),
                               G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE, -1, js->cancel, on_started, job);
        g_variant_unref(job->props);
        job->props = NULL;
}

static void fail_unit_job(AlarmJob *job, const char *why)
{
        job->ended = true;
        job_ended(job, why);
        unit_job_free(job);
}

static void on_bus_closed(GDBusConnection *bus, gboolean remote_peer_vanished, GError *error, gpointer data)
{
        Jobs *js = data;
        GList *all = g_list_copy(js->all);

        log_warn("lost the system bus%s%s: the alarms' units are no longer followed", error ? ": " : "",
                 error ? error->message : "");
        for (GList *l = all; l; l = l->next) {
                AlarmJob *job = l->data;
                job->props_sub = 0;
                fail_unit_job(job, "the connection to systemd was lost");
        }
        g_list_free(all);
        /* calls still in flight on the dead connection must not find their freed jobs */
        g_cancellable_cancel(js->cancel);
        g_object_unref(js->cancel);
        js->cancel = g_cancellable_new();
        g_signal_handler_disconnect(js->bus, js->closed_handler);
        g_clear_object(&js->bus);
        js->job_removed_sub = 0;
}

static void on_bus(GObject *src, GAsyncResult *res, gpointer data)
{
        Jobs *js = data;
        g_autoptr(GError) err = NULL;
        GDBusConnection *bus = g_dbus_connection_new_for_address_finish(res, &err);
        GList *waiting;

        if (g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        js->connecting = false;
        waiting = js->waiting;
        js->waiting = NULL;
        if (!bus) {
                log_err("cannot reach systemd on the system bus to run alarm commands: %s", err->message);
                for (GList *l = waiting; l; l = l->next)
                        fail_unit_job(l->data, "systemd cannot be reached");
                g_list_free(waiting);
                return;
        }
        js->bus = bus;
        g_dbus_connection_set_exit_on_close(bus, FALSE);
        js->closed_handler = g_signal_connect(bus, "closed", G_CALLBACK(on_bus_closed), js);
        js->job_removed_sub = g_dbus_connection_signal_subscribe(bus, SYSTEMD_NAME, MANAGER_IFACE, "JobRemoved",
                                                                 SYSTEMD_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                                 on_job_removed, js, NULL);
        /* systemd sends units' PropertiesChanged on the bus only to subscribers */
        g_dbus_connection_call(bus, SYSTEMD_NAME, SYSTEMD_PATH, MANAGER_IFACE, "Subscribe", NULL, NULL,
                               G_DBUS_CALL_FLAGS_NONE, -1, js->cancel, NULL, NULL);
        for (GList *l = waiting; l; l = l->next)
                send_start(js, l->data);
        g_list_free(waiting);
}

/* Asynchronous only: a failure reaches the jobs from the main loop (on_bus), never from inside
 * job_start, whose caller still holds the alarm the job would end. */
static void connect_bus(Jobs *js, const char *address)
{
        /* our own connection: its exit-on-close and signal matches are nobody else's business */
        js->connecting = true;
        g_dbus_connection_new_for_address(address,
                                          G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                          G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                          NULL, js->cancel, on_bus, js);
}

static GVariant *unit_properties(const AlarmJob *job, const JobCreds *cr, const char *shell, const char *command)
{
        GVariantBuilder props, groups, env, exec, argv;
        g_autofree char *desc = g_strdup_printf("suspendd alarm %s of uid %u", job->alarm_name, (unsigned)cr->uid);
        char num[32];

        g_variant_builder_init(&props, G_VARIANT_TYPE("a(sv)"));
        g_variant_builder_add(&props, "(sv)", "Description", g_variant_new_string(desc));
        g_variant_builder_add(&props, "(sv)", "Type", g_variant_new_string("exec"));
        snprintf(num, sizeof num, "%u", (unsigned)cr->uid);
        g_variant_builder_add(&props, "(sv)", "User", g_variant_new_string(num));
        snprintf(num, sizeof num, "%u", (unsigned)cr->gid);
        g_variant_builder_add(&props, "(sv)", "Group", g_variant_new_string(num));
        g_variant_builder_init(&groups, G_VARIANT_TYPE("as"));
        for (int i = 0; i < cr->n_groups; i++) {
                snprintf(num, sizeof num, "%u", (unsigned)cr->groups[i]);
                g_variant_builder_add(&groups, "s", num);
        }
        g_variant_builder_add(&props, "(sv)", "SupplementaryGroups", g_variant_builder_end(&groups));
        g_variant_builder_init(&env, G_VARIANT_TYPE("as"));
        g_variant_builder_add_value(&env, g_variant_new_take_string(g_strdup_printf("SUSPENDD_ALARM=%s", job->alarm_name)));
        g_variant_builder_add_value(&env, g_variant_new_take_string(g_strdup_printf("SUSPENDD_ALARM_ID=%u", job->alarm_id)));
        g_variant_builder_add(&props, "(sv)", "Environment", g_variant_builder_end(&env));
        g_variant_builder_init(&argv, G_VARIANT_TYPE("as"));
        g_variant_builder_add(&argv, "s", shell);
        g_variant_builder_add(&argv, "s", "-c");
        g_variant_builder_add(&argv, "s", command);
        g_variant_builder_init(&exec, G_VARIANT_TYPE("a(sasb)"));
        g_variant_builder_add(&exec, "(s@asb)", shell, g_variant_builder_end(&argv), FALSE);
        g_variant_builder_add(&props, "(sv)", "ExecStart", g_variant_builder_end(&exec));
        /* a user's job belongs with the user's other processes: under the user's slice and its
         * limits (user-.slice.d), not in system.slice beside the system's services */
        if (cr->uid != 0) {
                g_autofree char *slice = g_strdup_printf("user-%u.slice", (unsigned)cr->uid);
                g_variant_builder_add(&props, "(sv)", "Slice", g_variant_new_string(slice));
        }
        g_variant_builder_add(&props, "(sv)", "CollectMode", g_variant_new_string("inactive-or-failed"));
        g_variant_builder_add(&props, "(sv)", "AddRef", g_variant_new_boolean(TRUE));
        return g_variant_ref_sink(g_variant_builder_end(&props));
}

static int start_unit(AlarmJob *job, const JobCreds *cr, const char *command)
{
        Jobs *js = job->d->jobs;
        g_autoptr(GError) err = NULL;
        g_autofree char *address = NULL;

        if (!js->bus && !js->connecting) {
                /* resolved here, so that "no bus" is this call's error, not a callback into the
                 * alarm while it is still starting the job */
                address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, NULL, &err);
                if (!address) {
                        log_err("alarm %s: no system bus to reach systemd: %s", job->alarm_name, err->message);
                        return -ENOTCONN;
                }
        }
        if (!g_utf8_validate(command, -1, NULL)) {
                log_err("alarm %s: its command is not UTF-8: systemd cannot take it", job->alarm_name);
                return -EINVAL;
        }
        job->unit = job_unit_name(job->alarm_id, job->alarm_name);
        if (g_hash_table_contains(js->running, job->unit)) {
                /* not twice at once, as a timer would not start a service that still runs */
                log_warn("alarm %s: unit %s from an earlier run still runs; not starting another",
                         job->alarm_name, job->unit);
                g_free(job->unit);
                return -EBUSY;
        }
        job->path = unit_object_path(job->unit);
        job->props = unit_properties(job, cr, job->d->command_shell, command);
        g_hash_table_insert(js->running, job->unit, job);
        js->all = g_list_prepend(js->all, job);
        if (js->bus) {
                send_start(js, job);
                return 0;
        }
        js->waiting = g_list_append(js->waiting, job);
        if (!js->connecting)
                connect_bus(js, address);
        return 0;
}

int job_start(Daemon *d, uint32_t alarm_id, const char *alarm_name, const JobCreds *cr, const char *command,
              AlarmJob **out)
{
        AlarmJob *job;
        int r;

        if (d->jobs->runner == JOB_RUNNER_NONE) {
                log_warn("alarm %s: not running its command: commands are switched off (RunCommands=%s)",
                         alarm_name, d->cfg.run_commands);
                return -EPERM;
        }
        job = g_new0(AlarmJob, 1);
        job->d = d;
        job->alarm_id = alarm_id;
        g_strlcpy(job->alarm_name, alarm_name, sizeof job->alarm_name);
        job->runner = d->jobs->runner;
        r = job->runner == JOB_RUNNER_SYSTEMD ? start_unit(job, cr, command) : start_direct(job, cr, command);
        if (r < 0) {
                g_free(job);
                return r;
        }
        *out = job;
        return 0;
}

JobRunner jobs_runner(const Daemon *d)
{
        return d->jobs->runner;
}

/* Is there a system bus to reach systemd on? Its socket, or an address given explicitly. */
static bool system_bus_present(void)
{
        const char *env = g_getenv("DBUS_SYSTEM_BUS_ADDRESS");
        return (env && *env) || g_file_test("/run/dbus/system_bus_socket", G_FILE_TEST_EXISTS);
}

void jobs_init(Daemon *d, JobEndedFn ended)
{
        Jobs *js = g_new0(Jobs, 1);
        bool real_kernel = strcmp(sysfs_root(d->sysfs), "/") == 0;

        js->runner = job_choose_runner(d->cfg.run_commands, sd_booted() > 0, real_kernel, system_bus_present());
        js->cancel = g_cancellable_new();
        js->running = g_hash_table_new(g_str_hash, g_str_equal);
        js->ended = ended;
        d->jobs = js;
        if (js->runner == JOB_RUNNER_NONE && strcmp(d->cfg.run_commands, "none") != 0)
                log_err("alarm commands are off: systemd runs this machine but there is no system bus to "
                        "reach it (RunCommands=auto needs a D-Bus system bus, e.g. the dbus package); "
                        "alarms with a command are refused");
        else
                log_info("alarm commands %s (RunCommands=%s)",
                         js->runner == JOB_RUNNER_SYSTEMD ? "run as transient systemd units"
                         : js->runner == JOB_RUNNER_DIRECT ? "run forked by the daemon" : "are switched off",
                         d->cfg.run_commands);
}

void jobs_free(Daemon *d)
{
        Jobs *js = d->jobs;
        GList *all;

        if (!js)
                return;
        g_cancellable_cancel(js->cancel);
        all = g_list_copy(js->all);
        for (GList *l = all; l; l = l->next) {
                AlarmJob *job = l->data;
                if (job->runner == JOB_RUNNER_DIRECT)
                        g_source_remove(job->child_watch);   /* frees it; the child goes on */
                else
                        unit_job_free(job);
        }
        g_list_free(all);
        if (js->bus) {
                if (js->job_removed_sub)
                        g_dbus_connection_signal_unsubscribe(js->bus, js->job_removed_sub);
                g_signal_handler_disconnect(js->bus, js->closed_handler);
                g_object_unref(js->bus);
        }
        g_hash_table_destroy(js->running);
        g_object_unref(js->cancel);
        g_free(js);
        d->jobs = NULL;
}
