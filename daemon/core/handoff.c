/* SPDX-License-Identifier: GPL-2.0-or-later */
/* handoff.c — an application attempt handed to logind, so that logind's delay inhibitors let go.
 *
 * Desktop daemons (screen lockers, network managers) hold a "sleep" inhibitor in delay mode all
 * the time and release it only when logind emits PrepareForSleep(true) — which logind does only
 * for the sleeps it starts itself. Waiting for them from suspendd (logind.c, attempt.c) would
 * cost every application attempt the whole InhibitDelayMaxUSec. So an application attempt that
 * finds delay inhibitors asks logind to suspend (Manager.Suspend): logind tells the holders,
 * waits for them (up to its own bound) and starts systemd-suspend.service, which with the
 * drop-in (systemd/systemd-suspend.conf.in) runs `suspendctl suspend --user`. That request is the
 * continuation of this very attempt: it joins it without making it a user attempt (blocks and
 * vetoes still count, as for the application that asked), and its end is the end of the wait.
 *
 * Without the drop-in logind would write /sys/power/state itself, behind suspendd's back (and
 * the attempt, its wait over, would then suspend a second time), so the unit systemd would run is
 * read first (LoadUnit, Service.ExecStart): the handoff happens only when every ExecStart of
 * systemd-suspend.service is `suspendctl suspend --user`. Anything that fails on the way leaves
 * the plain wait in charge.
 *
 * The handoff lasts from the Suspend call until logind's continuation arrives, logind ends its
 * sleep (PrepareForSleep(false)) or the call fails. A continuation that comes after the attempt
 * ended gets that attempt's outcome again and starts nothing: logind's one sleep is one attempt.
 * (Any user request during the handoff is taken for the continuation: logind runs one sleep at a
 * time, so only a `suspendctl suspend --user` typed in those seconds could be mistaken for it, and
 * it then suspends as asked.) */
#include <gio/gio.h>
#include <string.h>

#include "daemon.h"

#define SYSTEMD_NAME "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define LOGIND_NAME "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define SLEEP_UNIT "systemd-suspend.service"
#define CALL_TIMEOUT_MS 10000

typedef enum {
        HANDOFF_NONE,
        HANDOFF_CHECKING,   /* reading systemd-suspend.service's ExecStart */
        HANDOFF_SENT,       /* Suspend called: logind's continuation is this attempt's */
} HandoffState;

struct Handoff {
        Daemon *d;
        HandoffState state;
        uint64_t attempt;
        GDBusConnection *conn;
        GCancellable *cancel;
        guint prepare_sub;
        SdpMessage *outcome;   /* the attempt's resumed/aborted event, once it ended */
};

static void handoff_clear(Handoff *h, const char *why)
{
        if (h->state != HANDOFF_NONE && why)
                log_msg(6, h->attempt, "attempt %llu: logind handoff over: %s", (unsigned long long)h->attempt, why);
        if (h->cancel) {
                g_cancellable_cancel(h->cancel);
                g_clear_object(&h->cancel);
        }
        if (h->prepare_sub && h->conn)
                g_dbus_connection_signal_unsubscribe(h->conn, h->prepare_sub);
        h->prepare_sub = 0;
        g_clear_object(&h->conn);
        g_clear_pointer(&h->outcome, g_free);
        h->state = HANDOFF_NONE;
        h->attempt = 0;
}

/* Each step's call back: the handoff still wants this answer (not cancelled, not replaced). */
static Handoff *step_finished(GObject *src, GAsyncResult *res, gpointer data, GVariant **reply, GError **err)
{
        *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, err);
        if (g_error_matches(*err, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return NULL;   /* data may be gone: cancelled only by handoff_clear/handoff_free */
        return data;
}

static void give_up(Handoff *h, const char *what, const GError *err)
{
        Daemon *d = h->d;
        log_msg(5, h->attempt, "attempt %llu not handed to logind (%s%s%s): waiting for its delay inhibitors "
                "instead", (unsigned long long)h->attempt, what, err ? ": " : "", err ? err->message : "");
        handoff_clear(h, NULL);
        d->unsettled = true;   /* the plain wait again: attempt_settle() looks at the delays */
}

static void on_prepare_for_sleep(GDBusConnection *c, const char *sender, const char *path, const char *iface,
                                 const char *signal, GVariant *params, gpointer data)
{
        Handoff *h = data;
        gboolean start;

        (void)c, (void)sender, (void)path, (void)iface, (void)signal;
        if (!g_variant_is_of_type(params, G_VARIANT_TYPE("(b)")))
                return;
        g_variant_get(params, "(b)", &start);
        if (start || h->state != HANDOFF_SENT)
                return;
        /* logind's sleep is over and its systemd-suspend.service never asked us */
        bool waiting = h->outcome == NULL;
        handoff_clear(h, "logind ended its sleep without running suspendctl (PrepareForSleep false)");
        if (waiting)
                h->d->unsettled = true;
}

static void on_suspend(GObject *src, GAsyncResult *res, gpointer data)
{
        g_autoptr(GError) err = NULL;
        g_autoptr(GVariant) reply = NULL;
        Handoff *h = step_finished(src, res, data, &reply, &err);

        if (!h || reply)
                return;
        if (h->outcome) {   /* the attempt is over; so is the handoff */
                handoff_clear(h, "logind refused the sleep");
                return;
        }
        give_up(h, "logind refused Suspend", err);
}

static void send_suspend(Handoff *h)
{
        h->state = HANDOFF_SENT;
        h->prepare_sub = g_dbus_connection_signal_subscribe(h->conn, LOGIND_NAME, LOGIND_NAME ".Manager",
                                                           "PrepareForSleep", LOGIND_PATH, NULL,
                                                           G_DBUS_SIGNAL_FLAGS_NONE, on_prepare_for_sleep, h, NULL);
        log_msg(5, h->attempt, "attempt %llu handed to logind: it tells its delay inhibitors (PrepareForSleep) "
                "and continues through " SLEEP_UNIT, (unsigned long long)h->attempt);
        h->d->unsettled = true;   /* attempt_settle() gives logind's continuation its time */
        /* interactive=false: no polkit dialogue; logind checks its block inhibitors again, which
         * an application attempt has no reason to override */
        g_dbus_connection_call(h->conn, LOGIND_NAME, LOGIND_PATH, LOGIND_NAME ".Manager", "Suspend",
                               g_variant_new("(b)", FALSE), NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START,
                               CALL_TIMEOUT_MS, h->cancel, on_suspend, h);
}

/* Every ExecStart= of the unit is `…/suspendctl … suspend … --user`: logind's sleep is ours. */
static bool runs_suspendctl(GVariant *exec)
{
        GVariantIter it;
        const char *path;
        g_autoptr(GVariant) argv = NULL;
        unsigned n = 0, ours = 0;

        g_variant_iter_init(&it, exec);
        while (g_variant_iter_next(&it, "(&s@asbttttuii)", &path, &argv, NULL, NULL, NULL, NULL, NULL, NULL,
                                   NULL, NULL)) {
                g_autofree const char **args = g_variant_get_strv(argv, NULL);
                const char *base = strrchr(path, '/');
                bool suspend = false, user = false;

                for (size_t i = 1; args[0] && args[i]; i++) {
                        suspend |= strcmp(args[i], "suspend") == 0;
                        user |= strcmp(args[i], "--user") == 0;
                }
                n++;
                ours += strcmp(base ? base + 1 : path, "suspendctl") == 0 && suspend && user;
                g_clear_pointer(&argv, g_variant_unref);
        }
        return n > 0 && ours == n;
}

static void on_exec_start(GObject *src, GAsyncResult *res, gpointer data)
{
        g_autoptr(GError) err = NULL;
        g_autoptr(GVariant) reply = NULL, exec = NULL;
        Handoff *h = step_finished(src, res, data, &reply, &err);

        if (!h)
                return;
        if (!reply) {
                give_up(h, "cannot read " SLEEP_UNIT "'s ExecStart", err);
                return;
        }
        g_variant_get(reply, "(v)", &exec);
        if (!g_variant_is_of_type(exec, G_VARIANT_TYPE("a(sasbttttuii)")) || !runs_suspendctl(exec)) {
                give_up(h, SLEEP_UNIT " does not run suspendctl suspend --user (the drop-in is not installed)", NULL);
                return;
        }
        send_suspend(h);
}

static void on_unit(GObject *src, GAsyncResult *res, gpointer data)
{
        g_autoptr(GError) err = NULL;
        g_autoptr(GVariant) reply = NULL;
        Handoff *h = step_finished(src, res, data, &reply, &err);
        const char *unit;

        if (!h)
                return;
        if (!reply) {
                give_up(h, "systemd does not load " SLEEP_UNIT, err);
                return;
        }
        g_variant_get(reply, "(&o)", &unit);
        g_dbus_connection_call(h->conn, SYSTEMD_NAME, unit, "org.freedesktop.DBus.Properties", "Get",
                               g_variant_new("(ss)", SYSTEMD_NAME ".Service", "ExecStart"), G_VARIANT_TYPE("(v)"),
                               G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, h->cancel, on_exec_start, h);
}

/* attempt.c: an application attempt found logind delay inhibitors. */
void handoff_begin(Daemon *d, uint64_t attempt)
{
        Handoff *h = d->handoff;
        GDBusConnection *conn = logind_connection(d);

        if (!h || !conn || h->state != HANDOFF_NONE)
                return;   /* no logind on the bus, or logind's sleep of an earlier attempt is not over */
        h->state = HANDOFF_CHECKING;
        h->attempt = attempt;
        h->conn = g_object_ref(conn);
        h->cancel = g_cancellable_new();
        g_dbus_connection_call(conn, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_NAME ".Manager", "LoadUnit",
                               g_variant_new("(s)", SLEEP_UNIT), G_VARIANT_TYPE("(o)"),
                               G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, h->cancel, on_unit, h);
}

/* attempt.c: the attempt is past its wait for logind (committed, aborted): a check still in
 * flight is dropped; a Suspend already sent still has its continuation to come. */
void handoff_attempt_waits_no_more(Daemon *d)
{
        Handoff *h = d->handoff;
        if (h && h->state == HANDOFF_CHECKING)
                handoff_clear(h, "the attempt went on before systemd answered");
}

bool handoff_sent(const Daemon *d)
{
        return d->handoff && d->handoff->state == HANDOFF_SENT;
}

/* events.c: a handed attempt ended; its outcome is kept for logind's continuation. */
void handoff_attempt_ended(Daemon *d, uint64_t attempt, const SdpMessage *outcome)
{
        Handoff *h = d->handoff;
        if (!h || h->attempt != attempt)
                return;
        if (h->state == HANDOFF_CHECKING) {
                handoff_clear(h, NULL);
                return;
        }
        /* its fields point into its own storage: built again, not copied */
        g_free(h->outcome);
        h->outcome = g_new(SdpMessage, 1);
        sdp_message_init(h->outcome, outcome->type);
        for (unsigned i = 0; i < outcome->n_fields; i++)
                sdp_add(h->outcome, outcome->fields[i].key, outcome->fields[i].value);
}

/* request.c: a user request while logind's sleep is ours is its continuation. Returns the
 * attempt it continues (0: not a continuation); *outcome is set when that attempt has ended
 * (g_free). */
uint64_t handoff_take_continuation(Daemon *d, SdpMessage **outcome)
{
        Handoff *h = d->handoff;
        uint64_t attempt;

        *outcome = NULL;
        if (!h || h->state != HANDOFF_SENT)
                return 0;
        attempt = h->attempt;
        *outcome = g_steal_pointer(&h->outcome);
        handoff_clear(h, "systemd-suspend.service's suspendctl continues it");
        return attempt;
}

void handoff_init(Daemon *d)
{
        d->handoff = g_new0(Handoff, 1);
        d->handoff->d = d;
}

void handoff_free(Daemon *d)
{
        if (!d->handoff)
                return;
        handoff_clear(d->handoff, NULL);
        g_clear_pointer(&d->handoff, g_free);
}
