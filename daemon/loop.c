/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop.c — the daemon's life around its main loop: the set-up main.c's options ask for, the
 * modules' start in the order their state depends on, the settle source, the signals, and the
 * clean stop (ARCHITECTURE.md, "one way").
 *
 * The settle source is how changes reach the one place that decides. A module below attempt.c
 * that changes what the decision reads (a timer fired, logind's list changed, a job ended, a
 * connection closed) only sets d->unsettled; in the next loop iteration the source reaps closed
 * connections, runs attempt_settle() once, and has the server watch for output it queued. A request whose change must be decided before its reply calls
 * attempt_settle() itself (request.c). */
#include <errno.h>
#include <glib-unix.h>
#include <string.h>
#include <sys/resource.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon.h"

typedef struct {
        GSource base;
        Daemon *d;
} SettleSource;

static gboolean settle_prepare(GSource *s, gint *timeout)
{
        *timeout = -1;
        return ((SettleSource *)s)->d->unsettled;
}

static gboolean settle_check(GSource *s)
{
        return ((SettleSource *)s)->d->unsettled;
}

static gboolean settle_dispatch(GSource *s, GSourceFunc cb, gpointer data)
{
        Daemon *d = ((SettleSource *)s)->d;

        (void)cb, (void)data;
        d->unsettled = false;   /* first: what follows may unsettle it again */
        server_reap(d);
        attempt_settle(d);
        server_sync(d);
        return G_SOURCE_CONTINUE;
}

static GSourceFuncs settle_funcs = {
        .prepare = settle_prepare,
        .check = settle_check,
        .dispatch = settle_dispatch,
};

/* After the configuration, the kernel features, the persisted state and the listening socket. */
void loop_start(Daemon *d)
{
        d->send_event = client_send;   /* events leave the core through the transport */
        d->send_encoded = client_send_encoded;
        attempt_init(d);
        cooperate_init(d);   /* before disable: a disable left by a crash keeps the kernel disabled */
        disable_init(d);
        handoff_init(d);
        logind_init(d);
        alarm_init(d);
        state_reserve_attempt_ids(d);
        state_save(d);
        d->settle = g_source_new(&settle_funcs, sizeof(SettleSource));
        ((SettleSource *)d->settle)->d = d;
        g_source_set_name(d->settle, "suspendd settle");
        /* before other sources, as a closed connection's end always was */
        g_source_set_priority(d->settle, G_PRIORITY_HIGH);
        g_source_attach(d->settle, NULL);
        d->unsettled = true;   /* the first decision: immediate mode, a dark resume left pending */
}

/* Each client costs one fd (plus its passed fds): raise the soft limit towards the hard one so
 * MaxClients, not a default of 1024, is what bounds connections. */
static void raise_fd_limit(unsigned max_clients)
{
        struct rlimit rl;
        rlim_t want = (rlim_t)max_clients + 64;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
                return;
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                log_warn("cannot raise the open-file limit to %llu: %s", (unsigned long long)want, g_strerror(errno));
}

/* The configuration and the kernel under o->root; false (logged) when the daemon cannot run. */
static bool set_up(Daemon *d, const DaemonOptions *o, char *missing, size_t size)
{
        g_autofree char *warnings = NULL, *error = NULL;
        int r;

        if (config_load(&d->cfg, o->config, &warnings, &error) < 0) {
                log_err("configuration: %s", error);
                return false;
        }
        if (warnings)
                log_warn("configuration %s: %s", o->config, warnings);
        raise_fd_limit(d->cfg.max_clients);
        r = sysfs_open(o->root, &d->sysfs);
        if (r < 0 || (r = sysfs_detect(d->sysfs, &d->features)) < 0) {
                log_err("cannot use the kernel interfaces under %s: %s", o->root, g_strerror(-r));
                return false;
        }
        if (!sysfs_state_supported(&d->features, d->cfg.sleep_state)) {
                log_err("the kernel does not offer '%s' in %s/sys/power/state (it offers '%s')",
                        d->cfg.sleep_state, o->root, d->features.states);
                return false;
        }
        sysfs_describe_missing(&d->features, missing, size);
        log_info("kernel under %s: states '%s', mem_sleep '%s', sleep_mode %s, sleepctl %s, rtc %s",
                 o->root, d->features.states, d->features.mem_sleep,
                 d->features.has_sleep_mode ? d->features.sleep_modes : "absent",
                 d->features.has_sleepctl ? "present" : "absent", d->features.rtc[0] ? d->features.rtc : "absent");
        if (missing[0])
                log_warn("missing: %s", missing);
        state_load(d);
        if (o->mode)
                d->mode = strcmp(o->mode, "immediate") == 0 ? MODE_IMMEDIATE : MODE_ON_DEMAND;
        return true;
}

static gboolean on_signal(gpointer data)
{
        Daemon *d = data;
        log_info("stopping");
        d->shutting_down = true;
        g_main_loop_quit(d->loop);
        return G_SOURCE_CONTINUE;
}

int loop_main(const DaemonOptions *o)
{
        bool batch = sched_prefer_batch();   /* before any thread: they inherit it */
        Daemon *d = daemon_new(o->state_dir, o->socket_path);
        char missing[512] = "";
        int r, passed = -1;

        d->batch_scheduling = batch;

        if (!set_up(d, o, missing, sizeof missing)) {
                daemon_free(d);
                return 1;
        }
        if (sd_listen_fds(1) == 1)
                passed = SD_LISTEN_FDS_START;
        r = server_start(d, passed);
        if (r < 0) {
                log_err("cannot listen on %s: %s", o->socket_path,
                        r == -EEXIST ? "the path exists and is not a socket" :
                        r == -EADDRINUSE ? "another suspendd is listening there" : g_strerror(-r));
                daemon_free(d);
                return 1;
        }
        loop_start(d);
        d->loop = g_main_loop_new(NULL, FALSE);
        g_unix_signal_add(SIGTERM, on_signal, d);
        g_unix_signal_add(SIGINT, on_signal, d);
        /* No reload: the configuration is read at start. A hang-up stops cleanly rather than
         * dying like a crash (which would leave a disable in its grace period). */
        g_unix_signal_add(SIGHUP, on_signal, d);
        log_info("suspendd %s ready on %s in %s mode", PACKAGE_VERSION,
                 passed >= 0 ? "the socket systemd passed" : o->socket_path, mode_name(d->mode));
        sd_notifyf(0, "READY=1\nSTATUS=%s mode, %s", mode_name(d->mode),
                   missing[0] ? "kernel lacks sleep_mode/sleepctl" : "all kernel features present");
        g_main_loop_run(d->loop);

        sd_notify(0, "STOPPING=1");
        loop_stop(d);
        if (passed < 0)   /* only a socket we created ourselves; systemd owns a passed one */
                unlink(o->socket_path);
        daemon_free(d);
        return 0;
}

/* Disable holders are deliberately not dropped by a crash: the persisted state keeps the kernel
 * disabled across a restart (PROTOCOL.md §10). A clean stop ends them. */
static void end_connections(Daemon *d)
{
        GHashTableIter it;
        gpointer v;
        GList *all = NULL;

        g_hash_table_iter_init(&it, d->clients);
        while (g_hash_table_iter_next(&it, NULL, &v))
                all = g_list_prepend(all, v);
        for (GList *l = all; l; l = l->next) {
                Client *c = l->data;
                if (c->disabling) {
                        c->disabling = false;
                        d->disable_holders--;
                }
        }
        state_save(d);
        g_queue_clear(&d->closing);
        g_queue_clear(&d->out_dirty);
        for (GList *l = all; l; l = l->next)
                client_free(l->data);
        g_list_free(all);
}

void loop_stop(Daemon *d)
{
        /* Let a committed suspend finish: the worker is inside the kernel's state write. A
         * wakeup_count read may block for as long as a wakeup event is in progress (another
         * process's /dev/sleepctl holder): that one is left behind. */
        while (d->state == ATTEMPT_SUSPENDED ||
               ((d->state == ATTEMPT_COMMIT || d->state == ATTEMPT_PREPARE) && !d->reading_count))
                g_main_context_iteration(NULL, TRUE);
        if (d->reading_count)
                log_warn("stopping while the wakeup_count read waits for wakeup events in progress");
        if (d->state == ATTEMPT_NOTIFY)
                attempt_abort(d, "shutdown", "the daemon is stopping");
        end_connections(d);
        handoff_free(d);
        logind_free(d);
        cooperate_stop(d);
        /* the mode disable.c replaced, unless a disable outlives us (another run's grace) */
        if (d->kernel_disabled && !disable_active(d))
                sysfs_write_sleep_mode(d->sysfs, d->saved_sleep_mode[0] ? d->saved_sleep_mode : "direct");
        alarm_free_all(d);
        server_stop(d);
        if (d->settle) {
                g_source_destroy(d->settle);
                g_source_unref(d->settle);
                d->settle = NULL;
        }
}
