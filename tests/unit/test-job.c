/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of what an alarm's job is (daemon/core/job.h, account.h): the transient unit's name, the
 * choice between a systemd unit, a fork and no commands, and an owner without a passwd entry. */
#include <check.h>
#include "check-tap.h"
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "account.h"
#include "job.h"

START_TEST(unit_names)
{
        g_autofree char *plain = job_unit_name(7, "backup");
        g_autofree char *escaped = job_unit_name(12, "night-backup@home:v1.2_x");
        char long_name[65];
        g_autofree char *cut = NULL;

        ck_assert_str_eq(plain, "suspendd-alarm-7-backup.service");
        /* `-` and `@` (a template's instance) escaped as systemd-escape does; `:._` kept */
        ck_assert_str_eq(escaped, "suspendd-alarm-12-night\\x2dbackup\\x40home:v1.2_x.service");
        memset(long_name, '-', 64);
        long_name[64] = '\0';
        cut = job_unit_name(4294967295u, long_name);
        ck_assert_uint_le(strlen(cut), 255);
        ck_assert(g_str_has_prefix(cut, "suspendd-alarm-4294967295-\\x2d"));
        ck_assert(g_str_has_suffix(cut, "\\x2d.service"));   /* cut between escapes, never inside one */
}
END_TEST

START_TEST(runner_choice)
{
        ck_assert_int_eq(job_choose_runner("auto", true, true, true), JOB_RUNNER_SYSTEMD);
        ck_assert_int_eq(job_choose_runner("auto", false, true, true), JOB_RUNNER_DIRECT);
        ck_assert_int_eq(job_choose_runner("auto", true, false, true), JOB_RUNNER_DIRECT);   /* a fake kernel */
        /* systemd booted, no system bus: neither a unit (unreachable) nor a fork (the sandbox) */
        ck_assert_int_eq(job_choose_runner("auto", true, true, false), JOB_RUNNER_NONE);
        ck_assert_int_eq(job_choose_runner("auto", false, true, false), JOB_RUNNER_DIRECT);
        ck_assert_int_eq(job_choose_runner("systemd", false, false, false), JOB_RUNNER_SYSTEMD);
        ck_assert_int_eq(job_choose_runner("direct", true, true, true), JOB_RUNNER_DIRECT);
        ck_assert_int_eq(job_choose_runner("none", true, true, true), JOB_RUNNER_NONE);
}
END_TEST

START_TEST(creds_without_passwd_entry)
{
        JobCreds cr;
        char why[256] = "";

        /* a uid no database knows (the highest valid one, below (uid_t)-1): no job at all, where
         * the old code ran one with the gid the client had */
        ck_assert_int_eq(account_resolve(4294967294u, "gone", 0, &cr, why, sizeof why), -ENOENT);
        ck_assert_msg(strstr(why, "4294967294") && strstr(why, "gone"), "why: %s", why);
}
END_TEST

START_TEST(creds_of_root_now)
{
        JobCreds cr;
        char why[256] = "";

        ck_assert_int_eq(account_resolve(0, "root", 0, &cr, why, sizeof why), 0);
        ck_assert_str_eq(cr.user, "root");
        ck_assert_uint_eq(cr.gid, 0);   /* the passwd entry's group, not one given by a caller */
        ck_assert_int_ge(cr.n_groups, 1);
        /* the uid is root's, the name stored with the alarm is not: a reused uid */
        ck_assert_int_eq(account_resolve(0, "someone-else", 0, &cr, why, sizeof why), -ESTALE);
        ck_assert_msg(strstr(why, "root") && strstr(why, "someone-else"), "why: %s", why);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("job");
        TCase *tc = tcase_create("job");

        tcase_add_test(tc, unit_names);
        tcase_add_test(tc, runner_choice);
        tcase_add_test(tc, creds_without_passwd_entry);
        tcase_add_test(tc, creds_of_root_now);
        return run_tap(s, tc);
}
