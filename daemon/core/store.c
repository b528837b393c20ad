/* SPDX-License-Identifier: GPL-2.0-or-later */
/* store.c — persistence under the state directory. Files are replaced atomically (write a
 * temporary, fsync, rename, fsync the directory) so a crash leaves the old or the new file.
 * Each write costs two fsyncs on the main loop (tests/guest/bench.sh measures it), so what did
 * not change is not written again, and attempts do not write at all but once in
 * ATTEMPT_ID_BLOCK (state_next_attempt_id). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

/* Attempt ids reserved per state write: a crash skips at most this many ids, a clean stop none. */
#define ATTEMPT_ID_BLOCK 64

typedef struct {
        GBytes *data;
        dev_t dev;
        ino_t ino;
} Written;

/* path -> Written: what this process last put there, to skip rewriting the same bytes. */
static GHashTable *written;

static void written_free(gpointer p)
{
        Written *w = p;
        g_bytes_unref(w->data);
        g_free(w);
}

/* The file still is the one we wrote with these very bytes (not removed or replaced since). */
static bool unchanged(const char *path, const char *data, size_t len)
{
        Written *w = written ? g_hash_table_lookup(written, path) : NULL;
        struct stat st;
        gsize n;
        const void *old;

        if (!w || stat(path, &st) < 0 || st.st_dev != w->dev || st.st_ino != w->ino || (size_t)st.st_size != len)
                return false;
        old = g_bytes_get_data(w->data, &n);
        return n == len && memcmp(old, data, len) == 0;
}

static void remember(const char *path, const char *data, size_t len)
{
        Written *w = g_new0(Written, 1);
        struct stat st;

        if (stat(path, &st) < 0) {
                g_free(w);
                return;
        }
        if (!written)
                written = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, written_free);
        w->data = g_bytes_new(data, len);
        w->dev = st.st_dev;
        w->ino = st.st_ino;
        g_hash_table_replace(written, g_strdup(path), w);
}

int store_write_atomic(const char *dir, const char *name, const char *data, size_t len)
{
        char tmp[4200], path[4200];
        const char *all = data;
        size_t all_len = len;
        int fd, dfd, r = 0;

        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (unchanged(path, data, len))
                return 0;
        if (g_mkdir_with_parents(dir, 0700) < 0)
                return -errno;
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
        remember(path, all, all_len);
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

/* The daemon's own state: mode, the attempt ids used, and the disable hold (PROTOCOL.md §10).
 * LastAttempt is a bound no attempt id of this run exceeds: ids reserved ahead while running,
 * exactly the last one used after a clean stop. */
int state_save(Daemon *d)
{
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autofree char *data = NULL;
        gsize len;
        uint64_t bound;
        int r;

        if (d->shutting_down)   /* no attempt starts any more: give back the ids not used */
                d->attempt_id_reserved = d->last_attempt_id;
        g_key_file_set_integer(kf, "State", "Version", 1);
        g_key_file_set_string(kf, "State", "Mode", mode_name(d->mode));
        bound = MAX(d->attempt_id_reserved, d->last_attempt_id);
        g_key_file_set_uint64(kf, "State", "LastAttempt", bound);
        g_key_file_set_boolean(kf, "State", "Disabled", disable_active(d));
        g_key_file_set_string(kf, "State", "SavedSleepMode", d->saved_sleep_mode);
        data = g_key_file_to_data(kf, &len, NULL);
        r = store_write_atomic(d->state_dir, "state", data, len);
        if (r < 0) {
                log_err("cannot save state in %s: %s", d->state_dir, g_strerror(-r));
                return r;
        }
        d->attempt_id_on_disk = bound;
        return 0;
}

/* Attempt ids never repeat, also across a crash (PROTOCOL.md §7): an id is handed out only once
 * the state file on disk holds a bound at least as high (attempt_id_on_disk, set by a state_save
 * that succeeded). Bounds are written a block ahead (at start and when a block is used up), so an
 * attempt does not wait for the disk but once in 64. If the bound cannot be written, no id:
 * -EIO-like errors from the write, and no attempt starts (attempt.c backs off). */
int state_next_attempt_id(Daemon *d, uint64_t *id)
{
        if (d->last_attempt_id >= d->attempt_id_on_disk) {
                int r;
                d->attempt_id_reserved = d->last_attempt_id + ATTEMPT_ID_BLOCK;
                r = state_save(d);
                if (r < 0)
                        return r;
        }
        *id = ++d->last_attempt_id;
        return 0;
}

void state_reserve_attempt_ids(Daemon *d)
{
        d->attempt_id_reserved = d->last_attempt_id + ATTEMPT_ID_BLOCK;
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
