/* SPDX-License-Identifier: GPL-2.0-or-later */
/* delay-holder — a desktop daemon's logind delay inhibitor, for tests/guest/logind.test.
 *
 *   delay-holder WHO WHY TIMEOUT_S
 *
 * Takes a "sleep" inhibitor in delay mode (Manager.Inhibit), as a screen locker or network
 * manager does, and listens for PrepareForSleep. It prints "ready" once both are in place (a
 * round trip to logind after the match is added, so a signal emitted later is seen), "released"
 * when PrepareForSleep(true) came and it closed the inhibitor, and exits 0 at PrepareForSleep(false).
 * Without those signals it exits 1 after TIMEOUT_S seconds (no wait without a bound). */
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LOGIND "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define MANAGER LOGIND ".Manager"

static int inhibitor = -1;
static int rc = 1;

static void on_prepare(GDBusConnection *c, const char *sender, const char *path, const char *iface,
                       const char *signal, GVariant *params, gpointer loop)
{
        gboolean start;

        (void)c, (void)sender, (void)path, (void)iface, (void)signal;
        g_variant_get(params, "(b)", &start);
        if (start && inhibitor >= 0) {
                close(inhibitor);   /* what a desktop daemon does once it is ready to sleep */
                inhibitor = -1;
                printf("released\n");
                fflush(stdout);
        } else if (!start) {
                rc = inhibitor < 0 ? 0 : 1;
                g_main_loop_quit(loop);
        }
}

static gboolean timed_out(gpointer loop)
{
        fprintf(stderr, "delay-holder: no PrepareForSleep in time\n");
        g_main_loop_quit(loop);
        return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
        g_autoptr(GError) err = NULL;
        g_autoptr(GDBusConnection) bus = NULL;
        g_autoptr(GUnixFDList) fds = NULL;
        g_autoptr(GVariant) reply = NULL, list = NULL;
        g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);

        if (argc != 4) {
                fprintf(stderr, "usage: delay-holder WHO WHY TIMEOUT_S\n");
                return 2;
        }
        bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &err);
        if (!bus)
                goto fail;
        g_dbus_connection_signal_subscribe(bus, LOGIND, MANAGER, "PrepareForSleep", LOGIND_PATH, NULL,
                                           G_DBUS_SIGNAL_FLAGS_NONE, on_prepare, loop, NULL);
        reply = g_dbus_connection_call_with_unix_fd_list_sync(bus, LOGIND, LOGIND_PATH, MANAGER, "Inhibit",
                                                              g_variant_new("(ssss)", "sleep", argv[1], argv[2], "delay"),
                                                              G_VARIANT_TYPE("(h)"), G_DBUS_CALL_FLAGS_NONE, 10000,
                                                              NULL, &fds, NULL, &err);
        if (!reply)
                goto fail;
        {
                /* stolen, not g_unix_fd_list_get()'s duplicate: the list's own copy would keep
                 * the inhibitor alive after ours is closed */
                gint n = 0;
                g_autofree gint *taken = fds ? g_unix_fd_list_steal_fds(fds, &n) : NULL;
                if (n != 1) {
                        fprintf(stderr, "delay-holder: Inhibit returned %d descriptors\n", n);
                        return 1;
                }
                inhibitor = taken[0];
        }
        /* the bus handles our AddMatch before this call: from now on no PrepareForSleep is missed */
        list = g_dbus_connection_call_sync(bus, LOGIND, LOGIND_PATH, MANAGER, "ListInhibitors", NULL, NULL,
                                           G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &err);
        if (!list)
                goto fail;
        printf("ready\n");
        fflush(stdout);
        g_timeout_add_seconds((guint)atoi(argv[3]), timed_out, loop);
        g_main_loop_run(loop);
        return rc;
fail:
        fprintf(stderr, "delay-holder: %s\n", err->message);
        return 1;
}
