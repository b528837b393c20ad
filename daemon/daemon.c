/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon.c — the records every module uses (daemon.h), made and freed. The modules' start and
 * stop are loop.c's; main.c and the request fuzz harness (tests/fuzz) share both. */
#include <stdio.h>
#include <string.h>

#include "daemon.h"

const char *mode_name(Mode m)
{
        return m == MODE_IMMEDIATE ? "immediate" : "on-demand";
}

Daemon *daemon_new(const char *state_dir, const char *socket_path)
{
        Daemon *d = g_new0(Daemon, 1);

        d->listen_fd = d->epoll_fd = d->alarm_timerfd = d->sleepctl_fd = d->delegate_epfd = d->liveness_fd = -1;
        d->started = g_get_real_time();
        g_strlcpy(d->state_dir, state_dir, sizeof d->state_dir);
        g_strlcpy(d->socket_path, socket_path, sizeof d->socket_path);
        d->clients = g_hash_table_new(g_direct_hash, g_direct_equal);
        d->clients_by_fd = g_hash_table_new(g_direct_hash, g_direct_equal);
        d->blockers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        d->monitors = g_hash_table_new(g_direct_hash, g_direct_equal);
        d->command_shell = "/bin/sh";
        config_init_defaults(&d->cfg);
        return d;
}

void daemon_free(Daemon *d)
{
        g_hash_table_destroy(d->blockers);
        g_hash_table_destroy(d->monitors);
        g_hash_table_destroy(d->clients);
        g_hash_table_destroy(d->clients_by_fd);
        if (d->loop)
                g_main_loop_unref(d->loop);
        if (d->sysfs && !d->reading_count)   /* else the worker still uses it until exit */
                sysfs_free(d->sysfs);
        g_free(d);
}

const char *client_describe(const Client *c, char *buf, size_t size)
{
        snprintf(buf, size, "client %u (%s%s%s, pid %d, uid %u)", c->id, c->comm,
                 c->name[0] ? "/" : "", c->name, (int)c->pid, (unsigned)c->uid);
        return buf;
}
