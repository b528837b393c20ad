/* SPDX-License-Identifier: GPL-2.0-or-later */
/* account.c — who an alarm's job runs as, decided when it runs (account.h).
 *
 * cron reads the account when the job runs, not when the crontab was written: a user removed,
 * locked or expired since then gets no job, and a job gets the groups its user has now. An
 * alarm is the same: the daemon stored the uid and the user's name when the alarm was added; at
 * fire time the uid must still be that user (a uid freed by userdel and given to someone else
 * must not inherit the alarm), the account must be neither locked (a password locked by passwd -l
 * or usermod -L: '!' before it) nor expired (shadow's expire date), and the
 * groups are the user's current primary group and group list — never the gid or the groups the
 * client happened to have when it added the alarm. Then, as cron does, the PAM account stack of
 * the "suspendd" service (/etc/pam.d/suspendd: common-account on Debian, so pam_unix's expiry
 * checks and whatever pam_access or pam_time rules the administrator set) must accept the user.
 * It runs on the main loop: account modules are local lookups; a network directory that hangs
 * would hang the daemon's alarm firing, as it hangs cron. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <security/pam_appl.h>
#include <shadow.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "account.h"

/* 0: usable; -EACCES with why: locked or expired. A user without a shadow entry (NSS sources
 * without one, a test's nss_wrapper) is judged by its passwd entry's password field alone. */
static int check_locked_or_expired(const struct passwd *pw, time_t now, char *why, size_t len)
{
        struct spwd sp, *found = NULL;
        char buf[4096];
        const char *pass = pw->pw_passwd;

        if (getspnam_r(pw->pw_name, &sp, buf, sizeof buf, &found) == 0 && found) {
                pass = found->sp_pwdp;
                /* sp_expire: days since 1970-01-01; the account is expired from that day on */
                if (found->sp_expire >= 0 && (long long)now / 86400 >= (long long)found->sp_expire) {
                        snprintf(why, len, "the account of %s has expired", pw->pw_name);
                        return -EACCES;
                }
        }
        /* "!" + something: a password locked by passwd -l / usermod -L ("!" alone, or "*", is an
         * account that never had a password, e.g. one that logs in with a key: not locked) */
        if (pass && pass[0] == '!' && pass[1] != '\0') {
                snprintf(why, len, "the account of %s is locked", pw->pw_name);
                return -EACCES;
        }
        return 0;
}

/* Non-interactive: an account module that wants to ask something gets no answer. */
static int no_conversation(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
        (void)n, (void)msg, (void)resp, (void)data;
        return PAM_CONV_ERR;
}

static int check_pam_account(const char *user, char *why, size_t len)
{
        const struct pam_conv conv = { no_conversation, NULL };
        /* tests point it at their own stack (like SUSPENDD_LOGIND_BUS); unset: /etc/pam.d */
        const char *confdir = getenv("SUSPENDD_PAM_CONFDIR");
        pam_handle_t *pamh = NULL;
        int r = pam_start_confdir("suspendd", user, &conv, confdir && *confdir ? confdir : NULL, &pamh);

        if (r == PAM_SUCCESS)
                r = pam_acct_mgmt(pamh, PAM_SILENT);
        /* an expired password is no reason to refuse a job that needs none (as cron) */
        if (r == PAM_NEW_AUTHTOK_REQD)
                r = PAM_SUCCESS;
        if (r != PAM_SUCCESS)
                snprintf(why, len, "the PAM account check (service suspendd) refused %s: %s", user,
                         pam_strerror(pamh, r));
        if (pamh)
                pam_end(pamh, r);
        return r == PAM_SUCCESS ? 0 : -EACCES;
}

int account_resolve(uid_t uid, const char *expected_user, time_t now, JobCreds *out, char *why, size_t len)
{
        struct passwd pw, *found = NULL;
        char buf[4096], num[16];
        int r;

        memset(out, 0, sizeof *out);
        snprintf(num, sizeof num, "%u", (unsigned)uid);
        if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) != 0 || !found) {
                snprintf(why, len, "uid %s has no user any more (the alarm was set by %s)", num,
                         expected_user && *expected_user ? expected_user : "an unknown user");
                return -ENOENT;
        }
        if (expected_user && *expected_user && strcmp(expected_user, pw.pw_name) != 0) {
                snprintf(why, len, "uid %s now belongs to %s, not to %s who set the alarm", num, pw.pw_name,
                         expected_user);
                return -ESTALE;
        }
        r = check_locked_or_expired(&pw, now, why, len);
        if (r < 0)
                return r;
        r = check_pam_account(pw.pw_name, why, len);
        if (r < 0)
                return r;
        out->uid = uid;
        out->gid = pw.pw_gid;
        snprintf(out->user, sizeof out->user, "%s", pw.pw_name);
        snprintf(out->home, sizeof out->home, "%s", pw.pw_dir && *pw.pw_dir ? pw.pw_dir : "/");
        snprintf(out->shell, sizeof out->shell, "%s", pw.pw_shell && *pw.pw_shell ? pw.pw_shell : "/bin/sh");
        out->n_groups = JOB_MAX_GROUPS;
        if (getgrouplist(pw.pw_name, pw.pw_gid, out->groups, &out->n_groups) < 0)
                out->n_groups = JOB_MAX_GROUPS;   /* more than fit: the first ones */
        return 0;
}

int account_name_of(uid_t uid, char *name, size_t len)
{
        struct passwd pw, *found = NULL;
        char buf[4096];

        if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) != 0 || !found) {
                if (len)
                        name[0] = '\0';
                return -ENOENT;
        }
        snprintf(name, len, "%s", pw.pw_name);
        return 0;
}
