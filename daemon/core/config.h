/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.h — /etc/suspendd/suspendd.conf: policy rules, limits, attempt tuning (suspendd.conf(5)). */
#ifndef SUSPENDD_CONFIG_H
#define SUSPENDD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum {
        POLICY_BLOCK, POLICY_WATCH, POLICY_REQUEST, POLICY_FORCE, POLICY_MODE, POLICY_DISABLE,
        POLICY_ALARM, POLICY_ALARM_COMMAND, POLICY_RULE_COUNT,
} PolicyRule;

#define POLICY_MAX_ENTRIES 32

typedef struct {
        bool everyone;
        size_t n_uids, n_gids;
        uid_t uids[POLICY_MAX_ENTRIES];
        gid_t gids[POLICY_MAX_ENTRIES];
        char text[256];          /* as written, for error messages */
} PolicyList;

typedef struct {
        PolicyList rules[POLICY_RULE_COUNT];
        /* [Limits] */
        unsigned max_clients, max_clients_per_user, max_blocks_per_client, max_fds_per_client;
        unsigned max_alarms_per_user, max_alarms, max_queued_messages;
        /* [Attempt] */
        unsigned watcher_budget_default_ms, watcher_budget_max_ms, attempt_budget_max_ms;
        unsigned user_request_budget_ms, backoff_initial_ms, backoff_max_ms;
        unsigned alarm_guard_s, disable_grace_s;
        bool watcher_timeout_is_veto;
        char sleep_state[8];     /* mem | freeze | disk: what `suspend` writes */
        char hibernate_mode[16]; /* auto | platform | shutdown | reboot: /sys/power/disk */
        unsigned hibernate_delay_s;   /* suspend-then-hibernate: the suspend's length */
        /* [Alarms] */
        unsigned default_hold_s, default_command_hold_s;
        char run_commands[8];    /* auto | systemd | direct | none */
        /* [Kernel] */
        char sleep_mode[16];     /* auto | direct | cooperative */
        /* [Logind] */
        bool logind_inhibitors;
} SuspenddConfig;

const char *policy_rule_name(PolicyRule r);
void config_init_defaults(SuspenddConfig *c);
/* 0 (a missing file is fine: defaults), or -EINVAL with *error (g_free) naming group, key and
 * value. *warnings (g_free, may be NULL) lists unknown keys and unknown user/group names. */
int config_load(SuspenddConfig *c, const char *path, char **warnings, char **error);
bool policy_allows(const SuspenddConfig *c, PolicyRule r, uid_t uid, gid_t gid,
                   const gid_t *groups, size_t n_groups);

#endif
