/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.c — see config.h. GKeyFile; every key has a default; bad values are errors. */
#include <errno.h>
#include <glib.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static const char *const rule_names[POLICY_RULE_COUNT] = {
        "block", "watch", "request", "force", "mode", "disable", "alarm", "alarm-command",
};
static const char *const rule_keys[POLICY_RULE_COUNT] = {
        "Block", "Watch", "Request", "Force", "Mode", "Disable", "Alarm", "AlarmCommand",
};

typedef struct {
        const char *group, *key;
        size_t offset;
        unsigned min, max;
} UIntKey;

#define U(g, k, field, lo, hi) { g, k, offsetof(SuspenddConfig, field), lo, hi }
static const UIntKey uint_keys[] = {
        U("Limits", "MaxClients", max_clients, 1, 1000000),
        U("Limits", "MaxClientsPerUser", max_clients_per_user, 1, 1000000),
        U("Limits", "MaxBlocksPerClient", max_blocks_per_client, 1, 100000),
        U("Limits", "MaxFdsPerClient", max_fds_per_client, 0, 1024),
        U("Limits", "MaxAlarmsPerUser", max_alarms_per_user, 0, 100000),
        U("Limits", "MaxAlarms", max_alarms, 0, 1000000),
        U("Limits", "MaxQueuedMessages", max_queued_messages, 8, 1000000),
        U("Attempt", "WatcherBudgetDefaultMs", watcher_budget_default_ms, 1, 60000),
        U("Attempt", "UserRequestBudgetMs", user_request_budget_ms, 0, 60000),
        U("Attempt", "BackoffInitialMs", backoff_initial_ms, 1, 3600000),
        U("Attempt", "BackoffMaxMs", backoff_max_ms, 1, 3600000),
        U("Attempt", "AlarmGuardSec", alarm_guard_s, 0, 3600),
        U("Attempt", "DisableGraceSec", disable_grace_s, 0, 3600),
        U("Attempt", "HibernateDelaySec", hibernate_delay_s, 1, 31536000),
        U("Alarms", "DefaultHoldSec", default_hold_s, 1, 86400),
        U("Alarms", "DefaultCommandHoldSec", default_command_hold_s, 1, 86400),
};

const char *policy_rule_name(PolicyRule r)
{
        return r < POLICY_RULE_COUNT ? rule_names[r] : "?";
}

static void set_list(PolicyList *l, const char *text, GString *warnings, const char *key)
{
        gchar **items = g_strsplit_set(text, " ,", -1);
        memset(l, 0, sizeof *l);
        g_strlcpy(l->text, text, sizeof l->text);
        for (gchar **i = items; *i; i++) {
                char *end;
                if (!**i)
                        continue;
                if (strcmp(*i, "*") == 0) {
                        l->everyone = true;
                } else if (**i == '@') {
                        struct group *g = getgrnam(*i + 1);
                        if (!g) {
                                unsigned long v = strtoul(*i + 1, &end, 10);
                                if (*end || !g_ascii_isdigit((*i)[1])) {
                                        if (warnings)
                                                g_string_append_printf(warnings, "[Policy] %s: unknown group %s\n", key, *i + 1);
                                        continue;
                                }
                                if (l->n_gids < POLICY_MAX_ENTRIES)
                                        l->gids[l->n_gids++] = (gid_t)v;
                        } else if (l->n_gids < POLICY_MAX_ENTRIES) {
                                l->gids[l->n_gids++] = g->gr_gid;
                        }
                } else {
                        struct passwd *p = getpwnam(*i);
                        if (!p) {
                                unsigned long v = strtoul(*i, &end, 10);
                                if (*end || !g_ascii_isdigit(**i)) {
                                        if (warnings)
                                                g_string_append_printf(warnings, "[Policy] %s: unknown user %s\n", key, *i);
                                        continue;
                                }
                                if (l->n_uids < POLICY_MAX_ENTRIES)
                                        l->uids[l->n_uids++] = (uid_t)v;
                        } else if (l->n_uids < POLICY_MAX_ENTRIES) {
                                l->uids[l->n_uids++] = p->pw_uid;
                        }
                }
        }
        g_strfreev(items);
}

void config_init_defaults(SuspenddConfig *c)
{
        memset(c, 0, sizeof *c);
        for (int r = 0; r < POLICY_RULE_COUNT; r++) {
                /* a command is a job run as its owner with the owner's whole account, outside
                 * the caller's own sandbox: like cron.allow, not for every service account */
                bool privileged = r == POLICY_FORCE || r == POLICY_MODE || r == POLICY_DISABLE ||
                                  r == POLICY_ALARM_COMMAND;
                set_list(&c->rules[r], privileged ? "@suspend" : "*", NULL, rule_keys[r]);
        }
        c->max_clients = 4096;
        c->max_clients_per_user = 256;
        c->max_blocks_per_client = 64;
        c->max_fds_per_client = 16;
        c->max_alarms_per_user = 32;
        c->max_alarms = 1024;
        c->max_queued_messages = 256;
        c->watcher_budget_default_ms = 2000;
        c->watcher_budget_max_ms = 5000;
        c->attempt_budget_max_ms = 10000;
        c->user_request_budget_ms = 1000;
        c->backoff_initial_ms = 100;
        c->backoff_max_ms = 60000;
        c->alarm_guard_s = 5;
        c->disable_grace_s = 30;
        c->watcher_timeout_is_veto = false;
        g_strlcpy(c->sleep_state, "mem", sizeof c->sleep_state);
        g_strlcpy(c->hibernate_mode, "auto", sizeof c->hibernate_mode);
        c->hibernate_delay_s = 7200;   /* systemd's default when it cannot estimate the battery */
        g_strlcpy(c->sleep_mode, "auto", sizeof c->sleep_mode);
        c->logind_inhibitors = true;
        c->default_hold_s = 60;
        c->default_command_hold_s = 3600;
        g_strlcpy(c->run_commands, "auto", sizeof c->run_commands);
}

static bool known_key(const char *group, const char *key)
{
        if (strcmp(group, "Policy") == 0) {
                for (int r = 0; r < POLICY_RULE_COUNT; r++)
                        if (strcmp(key, rule_keys[r]) == 0)
                                return true;
                return false;
        }
        if (strcmp(group, "Attempt") == 0 &&
            (strcmp(key, "WatcherBudgetMaxSec") == 0 || strcmp(key, "AttemptBudgetMaxSec") == 0 ||
             strcmp(key, "WatcherTimeout") == 0 || strcmp(key, "SleepState") == 0 ||
             strcmp(key, "HibernateMode") == 0))
                return true;
        if (strcmp(group, "Kernel") == 0 && strcmp(key, "SleepMode") == 0)
                return true;
        if (strcmp(group, "Logind") == 0 && strcmp(key, "Inhibitors") == 0)
                return true;
        if (strcmp(group, "Alarms") == 0 && strcmp(key, "RunCommands") == 0)
                return true;
        for (size_t i = 0; i < G_N_ELEMENTS(uint_keys); i++)
                if (strcmp(group, uint_keys[i].group) == 0 && strcmp(key, uint_keys[i].key) == 0)
                        return true;
        return false;
}

/* A key whose value is one of choices (NULL-terminated): copied to out, which is left alone
 * when the key is absent; anything else is -EINVAL with *error naming the choices. */
static int get_choice(GKeyFile *kf, const char *group, const char *key, const char *const *choices,
                      char *out, size_t size, char **error)
{
        g_autofree char *v = g_key_file_get_value(kf, group, key, NULL);
        g_autoptr(GString) expected = NULL;

        if (!v)
                return 0;
        g_strstrip(v);
        for (size_t i = 0; choices[i]; i++)
                if (strcmp(v, choices[i]) == 0) {
                        g_strlcpy(out, v, size);
                        return 0;
                }
        expected = g_string_new(choices[0]);
        for (size_t i = 1; choices[i]; i++)
                g_string_append_printf(expected, "%s%s", choices[i + 1] ? ", " : " or ", choices[i]);
        *error = g_strdup_printf("[%s] %s=%s: expected %s", group, key, v, expected->str);
        return -EINVAL;
}

static int get_uint(GKeyFile *kf, const char *group, const char *key, unsigned lo, unsigned hi,
                    unsigned *out, char **error)
{
        g_autofree char *v = g_key_file_get_value(kf, group, key, NULL);
        char *end;
        unsigned long n;
        if (!v)
                return 0;
        g_strstrip(v);
        errno = 0;
        n = strtoul(v, &end, 10);
        /* strtoul takes a sign and wraps "-1" around: only plain digits are an integer here */
        if (!g_ascii_isdigit(*v) || *end || errno || n < lo || n > hi) {
                *error = g_strdup_printf("[%s] %s=%s: expected an integer from %u to %u", group, key, v, lo, hi);
                return -EINVAL;
        }
        *out = (unsigned)n;
        return 0;
}

int config_load(SuspenddConfig *c, const char *path, char **warnings, char **error)
{
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autoptr(GError) err = NULL;
        GString *warn = g_string_new(NULL);
        gchar **groups;
        unsigned sec;
        int r = 0;

        config_init_defaults(c);
        *error = NULL;
        if (warnings)
                *warnings = NULL;
        if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &err)) {
                g_string_free(warn, TRUE);
                if (g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT))
                        return 0;
                *error = g_strdup_printf("%s: %s", path, err->message);
                return -EINVAL;
        }
        groups = g_key_file_get_groups(kf, NULL);
        for (gchar **g = groups; *g; g++) {
                gchar **keys = g_key_file_get_keys(kf, *g, NULL, NULL);
                for (gchar **k = keys; k && *k; k++)
                        if (!known_key(*g, *k))
                                g_string_append_printf(warn, "unknown key [%s] %s (ignored)\n", *g, *k);
                g_strfreev(keys);
        }
        g_strfreev(groups);

        for (int i = 0; i < POLICY_RULE_COUNT; i++) {
                g_autofree char *v = g_key_file_get_value(kf, "Policy", rule_keys[i], NULL);
                if (v)
                        set_list(&c->rules[i], g_strstrip(v), warn, rule_keys[i]);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(uint_keys) && r == 0; i++)
                r = get_uint(kf, uint_keys[i].group, uint_keys[i].key, uint_keys[i].min, uint_keys[i].max,
                             (unsigned *)((char *)c + uint_keys[i].offset), error);
        if (r == 0) {
                sec = c->watcher_budget_max_ms / 1000;
                r = get_uint(kf, "Attempt", "WatcherBudgetMaxSec", 1, 60, &sec, error);
                c->watcher_budget_max_ms = sec * 1000;
        }
        if (r == 0) {
                sec = c->attempt_budget_max_ms / 1000;
                r = get_uint(kf, "Attempt", "AttemptBudgetMaxSec", 1, 600, &sec, error);
                c->attempt_budget_max_ms = sec * 1000;
        }
        if (r == 0) {
                static const char *const timeouts[] = { "ready", "veto", NULL };
                char v[8] = "";
                r = get_choice(kf, "Attempt", "WatcherTimeout", timeouts, v, sizeof v, error);
                if (r == 0 && v[0])
                        c->watcher_timeout_is_veto = strcmp(v, "veto") == 0;
        }
        if (r == 0) {
                static const char *const states[] = { "mem", "freeze", "disk", NULL };
                r = get_choice(kf, "Attempt", "SleepState", states, c->sleep_state, sizeof c->sleep_state, error);
        }
        if (r == 0) {
                static const char *const disk_modes[] = { "auto", "platform", "shutdown", "reboot", NULL };
                r = get_choice(kf, "Attempt", "HibernateMode", disk_modes, c->hibernate_mode,
                               sizeof c->hibernate_mode, error);
        }
        if (r == 0) {
                static const char *const modes[] = { "auto", "direct", "cooperative", NULL };
                r = get_choice(kf, "Kernel", "SleepMode", modes, c->sleep_mode, sizeof c->sleep_mode, error);
        }
        if (r == 0) {
                static const char *const yes_no[] = { "yes", "no", NULL };
                char v[4] = "";
                r = get_choice(kf, "Logind", "Inhibitors", yes_no, v, sizeof v, error);
                if (r == 0 && v[0])
                        c->logind_inhibitors = strcmp(v, "yes") == 0;
        }
        if (r == 0) {
                static const char *const runners[] = { "auto", "systemd", "direct", "none", NULL };
                r = get_choice(kf, "Alarms", "RunCommands", runners, c->run_commands, sizeof c->run_commands, error);
        }
        if (warnings && warn->len)
                *warnings = g_string_free(warn, FALSE);
        else
                g_string_free(warn, TRUE);
        return r;
}

bool policy_allows(const SuspenddConfig *c, PolicyRule r, uid_t uid, gid_t gid,
                   const gid_t *groups, size_t n_groups)
{
        const PolicyList *l = &c->rules[r];
        if (uid == 0 || l->everyone)
                return true;
        for (size_t i = 0; i < l->n_uids; i++)
                if (l->uids[i] == uid)
                        return true;
        for (size_t i = 0; i < l->n_gids; i++) {
                if (l->gids[i] == gid)
                        return true;
                for (size_t j = 0; j < n_groups; j++)
                        if (groups[j] == l->gids[i])
                                return true;
        }
        return false;
}
