/* logind.c — the logind bridge: systemd-logind's sleep inhibitors take part in suspendd's decisions.
 *
 * A "sleep" inhibitor in block mode (systemd-inhibit --what=sleep, fwupd during an update) is a
 * blocker (source "logind", with logind's who, why, pid and uid), so it stops application
 * requests and immediate mode as any suspendd client's block does; user requests are forced, as
 * logind's own check has already run for `systemctl suspend`. A sleep inhibitor in delay mode is
 * waited for like a watcher: a non-user attempt does not commit until no delay inhibitor is left
 * or logind's InhibitDelayMaxUSec has passed. (logind tells delay holders to let go with
 * PrepareForSleep only for the sleeps it starts itself; for suspendd's own attempts the wait is
 * the bound.)
 *
 * logind keeps one state file per inhibitor in /run/systemd/inhibit: a change there makes us ask
 * ListInhibitors again (sd-bus, asynchronously, on the GLib loop). Without a system bus or logind
 * the bridge stays idle and tries again when that directory changes. [Logind] Inhibitors=no turns
 * it off; so does a sysfs root other than / (a fake kernel is not this system's). */
#include <errno.h>
#include <gio/gio.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "daemon.h"

#define INHIBIT_DIR "/run/systemd/inhibit"

typedef struct {
        GSource source;
        sd_bus *bus;
        gpointer tag;
} BusSource;

struct Logind {
        Daemon *d;
        sd_bus *bus;
        GSource *bus_source;
        GFileMonitor *monitor;
        guint refresh_timer;
        bool refreshing, refresh_again, said_absent;
        GHashTable *blocks;        /* "pid\x1fwho\x1fwhy" -> id (GUINT) of our blocker */
        uint32_t next_id;
        unsigned n_delay;
        char delay_desc[256];
        uint64_t delay_max_ms;
};

static gboolean bus_prepare(GSource *s, gint *timeout)
{
        BusSource *b = (BusSource *)s;
        int events = sd_bus_get_events(b->bus);
        uint64_t until;

        g_source_modify_unix_fd(s, b->tag, events > 0 ? (GIOCondition)events : 0);
        *timeout = -1;
        if (sd_bus_get_timeout(b->bus, &until) >= 0 && until != UINT64_MAX) {
                gint64 now = g_get_monotonic_time();
                *timeout = (gint64)until <= now ? 0 : (gint)MIN(((gint64)until - now + 999) / 1000, G_MAXINT);
        }
        return *timeout == 0;
}

static gboolean bus_check(GSource *s)
{
        BusSource *b = (BusSource *)s;
        return g_source_query_unix_fd(s, b->tag) != 0;
}

static void logind_disconnect(Logind *l);

static gboolean bus_dispatch(GSource *s, GSourceFunc cb, gpointer data)
{
        BusSource *b = (BusSource *)s;
        Logind *l = data;
        int r;

        (void)cb;
        while ((r = sd_bus_process(b->bus, NULL)) > 0)
                ;
        if (r < 0) {
                log_warn("logind bridge: the system bus connection failed: %s; logind inhibitors are dropped",
                         g_strerror(-r));
                logind_disconnect(l);   /* destroys this source */
                return G_SOURCE_REMOVE;
        }
        return G_SOURCE_CONTINUE;
}

static GSourceFuncs bus_funcs = { bus_prepare, bus_check, bus_dispatch, NULL, NULL, NULL };

static void sync_blocks(Logind *l, GHashTable *now);

static void logind_disconnect(Logind *l)
{
        GHashTable *none = g_hash_table_new(g_str_hash, g_str_equal);
        if (l->bus_source) {
                g_source_destroy(l->bus_source);
                g_source_unref(l->bus_source);
                l->bus_source = NULL;
        }
        if (l->bus) {
                sd_bus_flush_close_unref(l->bus);
                l->bus = NULL;
        }
        l->refreshing = false;
        sync_blocks(l, none);
        g_hash_table_destroy(none);
        l->n_delay = 0;
        l->delay_desc[0] = '\0';
        attempt_logind_delays_changed(l->d);
}

static int logind_connect(Logind *l)
{
        BusSource *b;
        uint64_t usec = 0;
        int r;

        if (l->bus)
                return 0;
        r = sd_bus_open_system(&l->bus);
        if (r < 0) {
                l->bus = NULL;
                return r;
        }
        sd_bus_set_method_call_timeout(l->bus, 2 * G_USEC_PER_SEC);
        /* InhibitDelayMaxUSec bounds the wait for delay inhibitors (logind's default: 5 s) */
        if (sd_bus_get_property_trivial(l->bus, "org.freedesktop.login1", "/org/freedesktop/login1",
                                        "org.freedesktop.login1.Manager", "InhibitDelayMaxUSec", NULL, 't',
                                        &usec) >= 0 && usec > 0)
                l->delay_max_ms = usec / 1000;
        b = (BusSource *)g_source_new(&bus_funcs, sizeof(BusSource));
        b->bus = l->bus;
        b->tag = g_source_add_unix_fd(&b->source, sd_bus_get_fd(l->bus), G_IO_IN);
        g_source_set_callback(&b->source, NULL, l, NULL);
        g_source_attach(&b->source, NULL);
        l->bus_source = &b->source;
        return 0;
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
                const char *key = g_ptr_array_index(gone, i);
                uint32_t id = GPOINTER_TO_UINT(g_hash_table_lookup(l->blocks, key));
                g_hash_table_remove(l->blocks, key);
                log_info("logind inhibitor released: %s", key);
                blocker_remove(l->d, BLOCKER_LOGIND, 0, id);
        }
        g_ptr_array_unref(gone);

        g_hash_table_iter_init(&it, now);
        while (g_hash_table_iter_next(&it, &k, &v)) {
                char **f;
                uint32_t id;
                if (g_hash_table_contains(l->blocks, k))
                        continue;
                f = g_strsplit(k, "\x1f", 4);   /* pid, uid, who, why */
                id = ++l->next_id;
                if (g_strv_length(f) == 4 &&
                    blocker_add(l->d, BLOCKER_LOGIND, NULL, id, f[3], (pid_t)g_ascii_strtoll(f[0], NULL, 10),
                                (uid_t)g_ascii_strtoll(f[1], NULL, 10), f[2]) == 0) {
                        g_hash_table_insert(l->blocks, g_strdup(k), GUINT_TO_POINTER(id));
                        log_info("logind inhibitor blocks sleep: %s (pid %s): %s", f[2], f[0], f[3]);
                }
                g_strfreev(f);
        }
        attempt_reevaluate(l->d);
}

static void refresh(Logind *l);

static int on_inhibitors(sd_bus_message *reply, void *data, sd_bus_error *ret_error)
{
        Logind *l = data;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        GHashTable *now = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        const char *what, *who, *why, *mode;
        uint32_t uid, pid;
        unsigned n_delay = 0;
        size_t dn = 0;
        int r;

        (void)ret_error;
        l->refreshing = false;
        l->delay_desc[0] = '\0';
        if (e) {
                if (!l->said_absent)
                        log_info("logind bridge: ListInhibitors failed (%s); no logind inhibitors seen",
                                 e->message ? e->message : e->name);
                l->said_absent = true;
                goto done;
        }
        l->said_absent = false;
        r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_ARRAY, "(ssssuu)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ssssuu)", &what, &who, &why, &mode, &uid, &pid)) > 0) {
                g_auto(GStrv) parts = g_strsplit(what, ":", -1);
                if (!g_strv_contains((const char *const *)parts, "sleep"))
                        continue;
                if (strcmp(mode, "block") == 0) {
                        g_hash_table_add(now, g_strdup_printf("%u\x1f%u\x1f%s\x1f%s", pid, uid, who, why));
                } else if (strcmp(mode, "delay") == 0) {
                        n_delay++;
                        if (dn < sizeof l->delay_desc)
                                dn += (size_t)snprintf(l->delay_desc + dn, sizeof l->delay_desc - dn, "%s%s (pid %u): %s",
                                                       dn ? "; " : "", who, pid, why);
                }
        }
        if (r < 0)
                log_warn("logind bridge: cannot parse ListInhibitors: %s", g_strerror(-r));
done:
        sync_blocks(l, now);
        g_hash_table_destroy(now);
        l->n_delay = n_delay;
        attempt_logind_delays_changed(l->d);
        if (l->refresh_again) {
                l->refresh_again = false;
                refresh(l);
        }
        return 0;
}

static void refresh(Logind *l)
{
        int r;

        if (l->refreshing) {
                l->refresh_again = true;   /* one more after the call in flight */
                return;
        }
        r = logind_connect(l);
        if (r < 0) {
                if (!l->said_absent)
                        log_info("logind bridge: no system bus (%s); logind inhibitors are not seen", g_strerror(-r));
                l->said_absent = true;
                return;
        }
        r = sd_bus_call_method_async(l->bus, NULL, "org.freedesktop.login1", "/org/freedesktop/login1",
                                     "org.freedesktop.login1.Manager", "ListInhibitors", on_inhibitors, l, NULL);
        if (r < 0) {
                log_warn("logind bridge: ListInhibitors: %s", g_strerror(-r));
                logind_disconnect(l);
                return;
        }
        l->refreshing = true;
}

static gboolean refresh_now(gpointer data)
{
        Logind *l = data;
        l->refresh_timer = 0;
        refresh(l);
        return G_SOURCE_REMOVE;
}

/* logind writes and removes one file per inhibitor: a burst of changes makes one call. */
static void on_inhibit_dir(GFileMonitor *m, GFile *f, GFile *other, GFileMonitorEvent ev, gpointer data)
{
        Logind *l = data;
        (void)m, (void)f, (void)other, (void)ev;
        if (!l->refresh_timer)
                l->refresh_timer = g_timeout_add(20, refresh_now, l);
}

void logind_init(Daemon *d)
{
        Logind *l;
        g_autoptr(GFile) dir = NULL;
        g_autoptr(GError) err = NULL;

        d->logind = NULL;
        if (!d->cfg.logind_inhibitors)
                return;
        /* logind's inhibitors are about this system's sleep, not a fake kernel's (tests, demo) */
        if (strcmp(sysfs_root(d->sysfs), "/") != 0) {
                log_info("logind bridge off: the kernel under %s is not this system's", sysfs_root(d->sysfs));
                return;
        }
        l = g_new0(Logind, 1);
        l->d = d;
        l->blocks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        l->delay_max_ms = 5000;
        d->logind = l;
        dir = g_file_new_for_path(INHIBIT_DIR);
        l->monitor = g_file_monitor_directory(dir, G_FILE_MONITOR_NONE, NULL, &err);
        if (l->monitor)
                g_signal_connect(l->monitor, "changed", G_CALLBACK(on_inhibit_dir), l);
        else
                log_warn("logind bridge: cannot watch %s: %s", INHIBIT_DIR, err->message);
        refresh(l);
}

void logind_free(Daemon *d)
{
        Logind *l = d->logind;
        if (!l)
                return;
        if (l->refresh_timer)
                g_source_remove(l->refresh_timer);
        if (l->monitor) {
                g_signal_handlers_disconnect_by_data(l->monitor, l);
                g_object_unref(l->monitor);
        }
        if (l->bus_source) {
                g_source_destroy(l->bus_source);
                g_source_unref(l->bus_source);
        }
        if (l->bus)
                sd_bus_flush_close_unref(l->bus);
        g_hash_table_destroy(l->blocks);
        g_free(l);
        d->logind = NULL;
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
