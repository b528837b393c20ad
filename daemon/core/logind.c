/* SPDX-License-Identifier: GPL-2.0-or-later */
/* logind.c — the logind bridge: systemd-logind's sleep inhibitors take part in suspendd's decisions.
 *
 * A "sleep" inhibitor in block mode (systemd-inhibit --what=sleep, fwupd during an update) is a
 * blocker (source "logind", with logind's who, why, pid and uid), so it stops application
 * requests and immediate mode as any suspendd client's block does; user requests are forced, as
 * logind's own check has already run for `systemctl suspend`. A sleep inhibitor in delay mode is
 * waited for like a watcher: a non-user attempt does not commit until no delay inhibitor is left
 * or logind's InhibitDelayMaxUSec has passed. (logind tells delay holders to let go with
 * PrepareForSleep only for the sleeps it starts itself: with the drop-in installed, handoff.c
 * hands such an attempt to logind so that it does; otherwise the wait is the bound.)
 *
 * Only logind's public D-Bus interface is used, asynchronously (GDBus), so the main loop never
 * waits for logind: a proxy on org.freedesktop.login1's Manager loads its properties (GetAll,
 * for InhibitDelayMaxUSec) and follows PropertiesChanged. logind (systemd 252) emits
 * PropertiesChanged for BlockInhibited or DelayInhibited, with the new value, whenever an
 * inhibitor starts or stops — also when the value stays the same (a second "sleep" inhibitor) —
 * so every such signal makes us ask ListInhibitors again; only that list names who and why.
 * logind going away (its bus name loses its owner) or the bus closing does not drop its
 * inhibitors: logind keeps them across its own restart (their fds in systemd's fd store), so a
 * firmware update's block must not lapse while logind or the bus restarts; the last list stays
 * until logind is reachable and lists them again, and that list replaces it. logind is not started on our behalf: without it nobody holds an
 * inhibitor. Without a system bus the bridge retries, backing off to once a minute.
 * [Logind] Inhibitors=no turns it off; so does a sysfs root other than / (a fake kernel is not
 * this system's), unless SUSPENDD_LOGIND_BUS names a bus to use instead (tests: a fake logind). */
#include <errno.h>
#include <gio/gio.h>
#include <string.h>

#include "daemon.h"

#define LOGIND_NAME "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define LOGIND_IFACE "org.freedesktop.login1.Manager"
#define LIST_TIMEOUT_MS 10000
#define RETRY_MAX_S 60

typedef struct {
        uint32_t id;              /* of our blocker */
        uint32_t pid, uid;
        char who[sizeof(((Blocker *)0)->comm)];
        char why[sizeof(((Blocker *)0)->reason)];
} Inhibitor;

struct Logind {
        Daemon *d;
        GCancellable *cancel;      /* everything; cancelled when the bridge stops */
        GCancellable *list_cancel; /* the ListInhibitors in flight; cancelled when logind goes */
        GDBusConnection *conn;
        GDBusProxy *proxy;
        unsigned pending;          /* callbacks still to come: the last one frees a stopped bridge */
        bool dead;                 /* logind_free() ran */
        bool private_bus;          /* SUSPENDD_LOGIND_BUS, not the system bus */
        guint retry_timer;
        unsigned retry_s;
        bool retry_list;           /* the timer lists again (else it reconnects) */
        bool listing, list_again, said_absent;
        GHashTable *blocks;        /* "pid\x1fuid\x1fwho\x1fwhy" -> Inhibitor* */
        uint32_t next_id;
        unsigned n_delay;
        char delay_desc[256];
        uint64_t delay_max_ms;
};

/* logind's who and why are chosen by whichever process took the inhibitor: untrusted text, made
 * to fit the protocol as client text must (PROTOCOL.md §3) — but, as it cannot be refused,
 * mended instead: invalid UTF-8 becomes U+FFFD, a control character a space, and the text is
 * cut at a character boundary to fit `size` (with its NUL). Kept local: a shared cutting helper
 * in protocol/ may replace it. */
static void clean_text(const char *in, char *out, size_t size)
{
        g_autofree char *valid = g_utf8_make_valid(in, -1);
        size_t n = 0;

        for (const char *p = valid; *p; p = g_utf8_next_char(p)) {
                gunichar ch = g_utf8_get_char(p);
                size_t len = (size_t)(g_utf8_next_char(p) - p);
                bool control = ch < 0x20 || ch == 0x7f;
                if (n + (control ? 1 : len) >= size)
                        break;
                if (control)
                        out[n++] = ' ';
                else {
                        memcpy(out + n, p, len);
                        n += len;
                }
        }
        out[n] = '\0';
}

/* One call back per asynchronous operation: true when the bridge has stopped meanwhile (then
 * nothing may be touched; the last call back frees it). */
static bool op_finished(Logind *l)
{
        l->pending--;
        if (!l->dead)
                return false;
        if (l->pending == 0)
                g_free(l);
        return true;
}

static void sync_blocks(Logind *l, GHashTable *now)
{
        GHashTableIter it;
        gpointer k, v;
        GPtrArray *gone = g_ptr_array_new_with_free_func(g_free);

        g_hash_table_iter_init(&it, l->blocks);
        while (g_hash_table_iter_next(&it, &k, &v))
                if (!g_hash_table_contains(now, k))
                        g_ptr_array_add(gone, g_strdup(k));
        for (guint i = 0; i < gone->len; i++) {
                Inhibitor *inh = g_hash_table_lookup(l->blocks, g_ptr_array_index(gone, i));
                uint32_t id = inh->id;
                log_info("logind inhibitor released: %s (pid %u): %s", inh->who, inh->pid, inh->why);
                g_hash_table_remove(l->blocks, g_ptr_array_index(gone, i));
                blocker_remove(l->d, BLOCKER_LOGIND, 0, id);
        }
        g_ptr_array_unref(gone);

        g_hash_table_iter_init(&it, now);
        while (g_hash_table_iter_next(&it, &k, &v)) {
                Inhibitor *inh = v;
                if (g_hash_table_contains(l->blocks, k))
                        continue;
                inh->id = ++l->next_id;
                if (blocker_add(l->d, BLOCKER_LOGIND, NULL, inh->id, inh->why, (pid_t)inh->pid, (uid_t)inh->uid,
                                inh->who) == 0) {
                        g_hash_table_insert(l->blocks, g_strdup(k), g_memdup2(inh, sizeof *inh));
                        log_info("logind inhibitor blocks sleep: %s (pid %u): %s", inh->who, inh->pid, inh->why);
                }
        }
        l->d->unsettled = true;
}

/* logind went away (or the bus did): a list in flight is of no use, but the last list stays
 * (blocks and delays) until a new logind is listed. */
static void stop_listing(Logind *l)
{
        if (l->list_cancel) {
                g_cancellable_cancel(l->list_cancel);
                g_clear_object(&l->list_cancel);
        }
        l->listing = l->list_again = false;
}

static void connect_bus(Logind *l);
static void list(Logind *l);

static gboolean retry_now(gpointer data)
{
        Logind *l = data;
        l->retry_timer = 0;
        if (l->retry_list)
                list(l);
        else
                connect_bus(l);
        return G_SOURCE_REMOVE;
}

/* 1 s, doubling to a minute; a success resets it. */
static void schedule_retry(Logind *l, bool relist)
{
        if (l->retry_timer)
                g_source_remove(l->retry_timer);
        l->retry_s = l->retry_s ? MIN(l->retry_s * 2, RETRY_MAX_S) : 1;
        l->retry_list = relist;
        l->retry_timer = g_timeout_add_seconds(l->retry_s, retry_now, l);
}

static void absent(Logind *l, const char *what, const GError *err)
{
        if (!l->said_absent)
                log_info("logind bridge: %s (%s); logind inhibitors are not seen until it works", what,
                         err ? err->message : "no owner");
        l->said_absent = true;
}

static void read_delay_max(Logind *l)
{
        g_autoptr(GVariant) v = g_dbus_proxy_get_cached_property(l->proxy, "InhibitDelayMaxUSec");
        if (v && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT64) && g_variant_get_uint64(v) > 0)
                l->delay_max_ms = g_variant_get_uint64(v) / 1000;
}

/* Each (ssssuu) of ListInhibitors: what, who, why, mode, uid, pid. */
static void take_inhibitor(Logind *l, GHashTable *now, GString *delays, const char *what, const char *who,
                           const char *why, const char *mode, uint32_t uid, uint32_t pid)
{
        g_auto(GStrv) parts = g_strsplit(what, ":", -1);
        Inhibitor inh = { .pid = pid, .uid = uid };

        if (!g_strv_contains((const char *const *)parts, "sleep"))
                return;
        clean_text(who, inh.who, sizeof inh.who);
        clean_text(why, inh.why, sizeof inh.why);
        if (strcmp(mode, "block") == 0) {
                /* the cleaned texts have no control character left: \x1f separates safely */
                g_hash_table_replace(now, g_strdup_printf("%u\x1f%u\x1f%s\x1f%s", pid, uid, inh.who, inh.why),
                                     g_memdup2(&inh, sizeof inh));
        } else if (strcmp(mode, "delay") == 0) {
                l->n_delay++;
                if (delays->len < sizeof l->delay_desc)
                        g_string_append_printf(delays, "%s%s (pid %u): %s", delays->len ? "; " : "", inh.who,
                                               pid, inh.why);
        }
}

static void on_list(GObject *src, GAsyncResult *res, gpointer data)
{
        Logind *l = data;
        g_autoptr(GError) err = NULL;
        g_autoptr(GVariant) reply = g_dbus_proxy_call_finish(G_DBUS_PROXY(src), res, &err);
        g_autoptr(GHashTable) now = NULL;
        g_autoptr(GString) delays = NULL;
        g_autoptr(GVariantIter) iter = NULL;
        const char *what, *who, *why, *mode;
        uint32_t uid, pid;

        if (op_finished(l) || g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;   /* stopped, or logind went away (stop_listing reset the rest) */
        l->listing = false;
        g_clear_object(&l->list_cancel);
        if (reply && !g_variant_is_of_type(reply, G_VARIANT_TYPE("(a(ssssuu))"))) {
                log_warn("logind bridge: ListInhibitors replied %s, not (a(ssssuu))", g_variant_get_type_string(reply));
                g_clear_pointer(&reply, g_variant_unref);
        }
        if (!reply) {
                /* the last list stays: a firmware update's block must not lapse on a slow reply */
                absent(l, "ListInhibitors failed", err);
                schedule_retry(l, true);
                return;
        }
        l->said_absent = false;
        l->retry_s = 0;
        now = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        delays = g_string_new(NULL);
        l->n_delay = 0;
        g_variant_get(reply, "(a(ssssuu))", &iter);
        while (g_variant_iter_next(iter, "(&s&s&s&suu)", &what, &who, &why, &mode, &uid, &pid))
                take_inhibitor(l, now, delays, what, who, why, mode, uid, pid);
        clean_text(delays->str, l->delay_desc, sizeof l->delay_desc);
        sync_blocks(l, now);   /* the delays too: attempt_settle() looks at them */
        if (l->list_again) {
                l->list_again = false;
                list(l);
        }
}

static void list(Logind *l)
{
        g_autofree char *owner = NULL;

        if (l->listing) {
                l->list_again = true;   /* one more after the call in flight */
                return;
        }
        owner = l->proxy ? g_dbus_proxy_get_name_owner(l->proxy) : NULL;
        if (!owner)
                return;   /* it lists when logind appears */
        l->listing = true;
        l->list_cancel = g_cancellable_new();
        l->pending++;
        g_dbus_proxy_call(l->proxy, "ListInhibitors", NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, LIST_TIMEOUT_MS,
                          l->list_cancel, on_list, l);
}

static void on_properties(GDBusProxy *p, GVariant *changed, const char *const *invalidated, gpointer data)
{
        Logind *l = data;
        bool relist = false;
        GVariantIter it;
        const char *name;

        (void)p;
        g_variant_iter_init(&it, changed);
        while (g_variant_iter_next(&it, "{&sv}", &name, NULL))
                relist |= strcmp(name, "BlockInhibited") == 0 || strcmp(name, "DelayInhibited") == 0;
        for (; invalidated && *invalidated; invalidated++)
                relist |= strcmp(*invalidated, "BlockInhibited") == 0 || strcmp(*invalidated, "DelayInhibited") == 0;
        read_delay_max(l);
        if (relist)
                list(l);
}

/* logind appeared (at start, or restarted) or left the bus (stopped, crashed, restarting). */
static void owner_changed(Logind *l, bool initial)
{
        g_autofree char *owner = g_dbus_proxy_get_name_owner(l->proxy);

        if (!owner) {
                if (initial)
                        absent(l, "logind is not on the bus", NULL);
                else
                        log_info("logind bridge: logind left the bus; its %u inhibitor(s) are kept until it "
                                 "lists them again", g_hash_table_size(l->blocks) + l->n_delay);
                stop_listing(l);
                return;
        }
        log_info("logind bridge: logind is on the bus (%s); listing its inhibitors", owner);
        l->said_absent = false;
        read_delay_max(l);
        list(l);
}

static void on_owner(GObject *obj, GParamSpec *ps, gpointer data)
{
        (void)obj, (void)ps;
        owner_changed(data, false);
}

static void on_proxy(GObject *src, GAsyncResult *res, gpointer data)
{
        Logind *l = data;
        g_autoptr(GError) err = NULL;
        GDBusProxy *proxy = g_dbus_proxy_new_finish(res, &err);

        (void)src;
        if (op_finished(l)) {
                g_clear_object(&proxy);
                return;
        }
        if (!proxy) {
                if (!g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
                        absent(l, "no proxy for logind", err);
                        schedule_retry(l, false);
                }
                return;
        }
        l->proxy = proxy;
        g_signal_connect(proxy, "g-properties-changed", G_CALLBACK(on_properties), l);
        g_signal_connect(proxy, "notify::g-name-owner", G_CALLBACK(on_owner), l);
        owner_changed(l, true);
}

static void forget_bus(Logind *l)
{
        if (l->proxy) {
                g_signal_handlers_disconnect_by_data(l->proxy, l);
                g_clear_object(&l->proxy);
        }
        if (l->conn) {
                g_signal_handlers_disconnect_by_data(l->conn, l);
                g_clear_object(&l->conn);
        }
}

static void on_closed(GDBusConnection *c, gboolean vanished, GError *err, gpointer data)
{
        Logind *l = data;

        (void)c, (void)vanished;
        log_warn("logind bridge: the bus connection closed (%s); logind's %u inhibitor(s) are kept until it "
                 "lists them again", err ? err->message : "closed", g_hash_table_size(l->blocks) + l->n_delay);
        forget_bus(l);
        stop_listing(l);
        l->said_absent = false;
        schedule_retry(l, false);
}

static void on_connection(GObject *src, GAsyncResult *res, gpointer data)
{
        Logind *l = data;
        g_autoptr(GError) err = NULL;
        GDBusConnection *conn = l->private_bus ? g_dbus_connection_new_for_address_finish(res, &err)
                                               : g_bus_get_finish(res, &err);

        (void)src;
        if (op_finished(l)) {
                g_clear_object(&conn);
                return;
        }
        if (!conn) {
                if (!g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
                        absent(l, "no system bus", err);
                        schedule_retry(l, false);
                }
                return;
        }
        l->conn = conn;
        /* g_bus_get()'s shared connection would otherwise raise SIGTERM when the bus goes */
        g_dbus_connection_set_exit_on_close(conn, FALSE);
        g_signal_connect(conn, "closed", G_CALLBACK(on_closed), l);
        l->pending++;
        g_dbus_proxy_new(conn, G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS, NULL,
                         LOGIND_NAME, LOGIND_PATH, LOGIND_IFACE, l->cancel, on_proxy, l);
}

static void connect_bus(Logind *l)
{
        const char *address = getenv("SUSPENDD_LOGIND_BUS");

        l->pending++;
        l->private_bus = address != NULL;
        if (address)
                g_dbus_connection_new_for_address(address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                  G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                  NULL, l->cancel, on_connection, l);
        else
                g_bus_get(G_BUS_TYPE_SYSTEM, l->cancel, on_connection, l);
}

void logind_init(Daemon *d)
{
        Logind *l;
        const char *address = getenv("SUSPENDD_LOGIND_BUS");

        d->logind = NULL;
        if (!d->cfg.logind_inhibitors)
                return;
        /* logind's inhibitors are about this system's sleep, not a fake kernel's (tests, demo) */
        if (strcmp(sysfs_root(d->sysfs), "/") != 0 && !address) {
                log_info("logind bridge off: the kernel under %s is not this system's", sysfs_root(d->sysfs));
                return;
        }
        if (address)
                log_info("logind bridge: using the bus at %s (SUSPENDD_LOGIND_BUS)", address);
        l = g_new0(Logind, 1);
        l->d = d;
        l->cancel = g_cancellable_new();
        l->blocks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        l->delay_max_ms = 5000;   /* logind's default InhibitDelayMaxUSec, until its properties load */
        d->logind = l;
        connect_bus(l);
}

void logind_free(Daemon *d)
{
        Logind *l = d->logind;

        if (!l)
                return;
        d->logind = NULL;
        l->dead = true;
        g_cancellable_cancel(l->cancel);
        if (l->list_cancel)
                g_cancellable_cancel(l->list_cancel);
        g_clear_object(&l->list_cancel);
        g_clear_object(&l->cancel);
        if (l->retry_timer)
                g_source_remove(l->retry_timer);
        forget_bus(l);
        g_hash_table_destroy(l->blocks);   /* their blockers go with the daemon's table */
        if (l->pending == 0)
                g_free(l);
}

GDBusConnection *logind_connection(const Daemon *d)
{
        const Logind *l = d->logind;
        g_autofree char *owner = l && l->proxy ? g_dbus_proxy_get_name_owner(l->proxy) : NULL;
        return owner ? l->conn : NULL;
}

unsigned logind_delay_inhibitors(const Daemon *d, const char **desc, uint64_t *max_ms)
{
        const Logind *l = d->logind;
        if (!l)
                return 0;
        if (desc)
                *desc = l->delay_desc;
        if (max_ms)
                *max_ms = l->delay_max_ms;
        return l->n_delay;
}
