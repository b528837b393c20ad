/* Unit tests of what an alarm's job is (daemon/job.h): the transient unit's name, the choice
 * between a systemd unit and a fork, and the credentials of an owner without a passwd entry. */
#include <check.h>
#include "check-tap.h"
#include <glib.h>
#include <string.h>

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
        ck_assert_int_eq(job_choose_runner("auto", true, true), JOB_RUNNER_SYSTEMD);
        ck_assert_int_eq(job_choose_runner("auto", false, true), JOB_RUNNER_DIRECT);
        ck_assert_int_eq(job_choose_runner("auto", true, false), JOB_RUNNER_DIRECT);   /* a fake kernel */
        ck_assert_int_eq(job_choose_runner("systemd", false, false), JOB_RUNNER_SYSTEMD);
        ck_assert_int_eq(job_choose_runner("direct", true, true), JOB_RUNNER_DIRECT);
}
END_TEST

START_TEST(creds_without_passwd_entry)
{
        JobCreds cr;

        /* a uid no database knows (the highest valid one, below (uid_t)-1) */
        job_resolve_creds(4294967294u, 4294967293u, &cr);
        ck_assert_uint_eq(cr.uid, 4294967294u);
        ck_assert_uint_eq(cr.gid, 4294967293u);
        ck_assert_int_eq(cr.n_groups, 1);   /* its group alone: none of the daemon's */
        ck_assert_uint_eq(cr.groups[0], 4294967293u);
        ck_assert_str_eq(cr.user, "4294967294");
        ck_assert_str_eq(cr.home, "/");
        ck_assert_str_eq(cr.shell, "/bin/sh");
}
END_TEST

int main(void)
{
        Suite *s = suite_create("job");
        TCase *tc = tcase_create("job");

        tcase_add_test(tc, unit_names);
        tcase_add_test(tc, runner_choice);
        tcase_add_test(tc, creds_without_passwd_entry);
        return run_tap(s, tc);
}
