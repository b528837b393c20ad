/* store.c — persistence under the state directory. Files are replaced atomically (write a
 * temporary, fsync, rename, fsync the directory) so a crash leaves the old or the new file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

int store_write_atomic(const char *dir, const char *name, const char *data, size_t len)
{
        char tmp[4200], path[4200];
        int fd, dfd, r = 0;

        if (g_mkdir_with_parents(dir, 0700) < 0)
                return -errno;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        while (len > 0) {
                ssize_t n = write(fd, data, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        break;
                }
                data += n;
                len -= (size_t)n;
        }
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        close(fd);
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                unlink(tmp);
                return r;
        }
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
                fsync(dfd);
                close(dfd);
        }
        return 0;
}

char *store_read(const char *dir, const char *name)
{
        g_autofree char *path = g_build_filename(dir, name, NULL);
        char *data = NULL;
        if (!g_file_get_contents(path, &data, NULL, NULL))
                return NULL;
        return data;
}

/* The daemon's own state: mode, the last attempt id, and the disable hold (PROTOCOL.md §10). */
void state_save(Daemon *d)
{
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autofree char *data = NULL;
        gsize len;
        int r;

        g_key_file_set_integer(kf, "State", "Version", 1);
        g_key_file_set_string(kf, "State", "Mode", mode_name(d->mode));
        g_key_file_set_uint64(kf, "State", "LastAttempt", d->last_attempt_id);
        g_key_file_set_boolean(kf, "State", "Disabled", disable_active(d));
        g_key_file_set_string(kf, "State", "SavedSleepMode", d->saved_sleep_mode);
        data = g_key_file_to_data(kf, &len, NULL);
        r = store_write_atomic(d->state_dir, "state", data, len);
        if (r < 0)
                log_err("cannot save state in %s: %s", d->state_dir, g_strerror(-r));
}

void state_load(Daemon *d)
{
        g_autofree char *data = store_read(d->state_dir, "state");
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autofree char *mode = NULL, *saved = NULL;

        if (!data)
                return;
        if (!g_key_file_load_from_data(kf, data, (gsize)-1, G_KEY_FILE_NONE, NULL)) {
                log_err("%s/state is corrupt; starting from defaults", d->state_dir);
                return;
        }
        mode = g_key_file_get_string(kf, "State", "Mode", NULL);
        if (mode && strcmp(mode, "immediate") == 0)
                d->mode = MODE_IMMEDIATE;
        d->last_attempt_id = g_key_file_get_uint64(kf, "State", "LastAttempt", NULL);
        saved = g_key_file_get_string(kf, "State", "SavedSleepMode", NULL);
        if (saved)
                g_strlcpy(d->saved_sleep_mode, saved, sizeof d->saved_sleep_mode);
        d->disable_grace = g_key_file_get_boolean(kf, "State", "Disabled", NULL);
}
