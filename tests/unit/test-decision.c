/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the pure policy (daemon/core/decision.h): every branch of decide_next() and
 * decide_commit(), and the back-off's growth and cap. No sockets, no sysfs. */
#include <check.h>
#include "check-tap.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "decision.h"

/* An idle daemon in on-demand mode with nothing asked: no attempt. */
static DecisionInput idle(void)
{
        return (DecisionInput){ 0 };
}

static Decision run(DecisionInput in)
{
        Decision d = decide_next(&in);
        ck_assert_ptr_nonnull(d.why);
        return d;
}

START_TEST(test_kind_names)
{
        ck_assert_str_eq(attempt_kind_name(ATTEMPT_KIND_APPLICATION), "application");
        ck_assert_str_eq(attempt_kind_name(ATTEMPT_KIND_USER), "user");
        ck_assert_str_eq(attempt_kind_name(ATTEMPT_KIND_IMMEDIATE), "immediate");
        ck_assert_str_eq(attempt_kind_name(ATTEMPT_KIND_DARK), "dark");
        ck_assert_str_eq(attempt_kind_name((AttemptKind)42), "?");
}
END_TEST

START_TEST(test_on_demand_nothing_requested)
{
        Decision d = run(idle());
        ck_assert(!d.start);
        ck_assert_str_eq(d.why, "on-demand mode and nothing requested");
}
END_TEST

/* The checks that stop everything, user requests included, in their order. */
START_TEST(test_hard_stops)
{
        DecisionInput in = idle();

        in.user_request = in.app_request = in.immediate_mode = in.dark_pending = true;
        in.shutting_down = in.attempt_active = in.disabled = true;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "shutting down");

        in.shutting_down = false;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "an attempt is in progress");

        in.attempt_active = false;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "suspend is disabled");
}
END_TEST

/* PROTOCOL.md §6.7: a user request suspends regardless of blockers, alarms and back-off. */
START_TEST(test_user_request_is_forced)
{
        DecisionInput in = idle();
        Decision d;

        in.user_request = true;
        in.blockers = 5;
        in.alarm_due_soon = true;
        in.backing_off = true;
        in.app_request = true;
        in.dark_pending = true;
        in.immediate_mode = true;
        d = run(in);
        ck_assert(d.start);
        ck_assert_int_eq(d.kind, ATTEMPT_KIND_USER);
        ck_assert_str_eq(d.why, "user request");
}
END_TEST

START_TEST(test_application_request)
{
        DecisionInput in = idle();
        Decision d;

        in.app_request = true;
        d = run(in);
        ck_assert(d.start);
        ck_assert_int_eq(d.kind, ATTEMPT_KIND_APPLICATION);
        ck_assert_str_eq(d.why, "application request");

        /* the back-off is for the daemon's own attempts, not for an explicit request */
        in.backing_off = true;
        d = run(in);
        ck_assert(d.start);
        ck_assert_int_eq(d.kind, ATTEMPT_KIND_APPLICATION);

        /* an application request wins over a pending dark resume and immediate mode */
        in.backing_off = false;
        in.dark_pending = in.immediate_mode = true;
        ck_assert_int_eq(run(in).kind, ATTEMPT_KIND_APPLICATION);
}
END_TEST

START_TEST(test_blockers_stop_non_forced)
{
        DecisionInput in = idle();

        in.blockers = 1;
        in.app_request = true;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "blocked");

        in.app_request = false;
        in.immediate_mode = true;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "blocked");

        in.immediate_mode = false;
        in.dark_pending = true;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "blocked");
}
END_TEST

START_TEST(test_alarm_due_soon)
{
        DecisionInput in = idle();

        in.alarm_due_soon = true;
        in.app_request = true;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "an alarm is due within the guard interval");
        in.app_request = false;
        in.immediate_mode = true;
        ck_assert(!run(in).start);
        /* blockers are reported first */
        in.blockers = 2;
        ck_assert_str_eq(run(in).why, "blocked");
}
END_TEST

START_TEST(test_backoff_delays_automatic_attempts)
{
        DecisionInput in = idle();

        in.backing_off = true;
        in.immediate_mode = true;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "backing off after a failed attempt");
        in.immediate_mode = false;
        in.dark_pending = true;
        ck_assert(!run(in).start);
        ck_assert_str_eq(run(in).why, "backing off after a failed attempt");
}
END_TEST

/* Dark resume: also in on-demand mode; preferred over the immediate kind. */
START_TEST(test_dark_and_immediate)
{
        DecisionInput in = idle();
        Decision d;

        in.dark_pending = true;
        d = run(in);
        ck_assert(d.start);
        ck_assert_int_eq(d.kind, ATTEMPT_KIND_DARK);
        in.immediate_mode = true;
        ck_assert_int_eq(run(in).kind, ATTEMPT_KIND_DARK);

        in.dark_pending = false;
        d = run(in);
        ck_assert(d.start);
        ck_assert_int_eq(d.kind, ATTEMPT_KIND_IMMEDIATE);
        ck_assert_str_eq(d.why, "immediate mode and nothing blocks");
}
END_TEST

/* The abort reason word of the verdict, "" to go ahead (ck_assert_str_eq wants a string). */
static const char *verdict_of(const CommitInput *in)
{
        const char *r = commit_verdict_reason(decide_commit(in));
        return r ? r : "";
}

static CommitInput commit_in(AttemptKind kind)
{
        return (CommitInput){ .kind = kind };
}

START_TEST(test_commit_goes_ahead)
{
        for (int k = ATTEMPT_KIND_APPLICATION; k <= ATTEMPT_KIND_DARK; k++) {
                CommitInput in = commit_in((AttemptKind)k);
                ck_assert_int_eq(decide_commit(&in), COMMIT_GO);
                /* a late watcher is "ready" unless WatcherTimeout=veto */
                in.late_watchers = 3;
                ck_assert_int_eq(decide_commit(&in), COMMIT_GO);
        }
}
END_TEST

START_TEST(test_commit_abort_reasons)
{
        CommitInput all = commit_in(ATTEMPT_KIND_APPLICATION), in;

        all.disabled = all.vetoed = all.fd_unanswered = all.late_is_veto = all.alarm_due_soon = true;
        all.blockers = 1;
        all.late_watchers = 1;
        /* each reason in its order of precedence, removing the one before */
        in = all;
        ck_assert_str_eq(verdict_of(&in), "disabled");
        in.disabled = false;
        ck_assert_str_eq(verdict_of(&in), "blocked");
        in.blockers = 0;
        ck_assert_str_eq(verdict_of(&in), "vetoed");
        in.vetoed = false;
        ck_assert_str_eq(verdict_of(&in), "fd-readable");
        in.fd_unanswered = false;
        ck_assert_str_eq(verdict_of(&in), "watcher-timeout");
        in.late_watchers = 0;
        ck_assert_str_eq(verdict_of(&in), "alarm-due");
        in.late_watchers = 1;
        in.late_is_veto = false;
        ck_assert_str_eq(verdict_of(&in), "alarm-due");
        in.alarm_due_soon = false;
        ck_assert_int_eq(decide_commit(&in), COMMIT_GO);

        /* immediate and dark attempts obey the same rules */
        in = all;
        in.kind = ATTEMPT_KIND_IMMEDIATE;
        in.disabled = false;
        ck_assert_str_eq(verdict_of(&in), "blocked");
        in.kind = ATTEMPT_KIND_DARK;
        ck_assert_str_eq(verdict_of(&in), "blocked");
}
END_TEST

/* A user request is stopped only by disable: not by blockers, vetoes, fds, timeouts, alarms. */
START_TEST(test_commit_user)
{
        CommitInput in = commit_in(ATTEMPT_KIND_USER);

        in.vetoed = in.fd_unanswered = in.late_is_veto = in.alarm_due_soon = true;
        in.blockers = 7;
        in.late_watchers = 2;
        ck_assert_int_eq(decide_commit(&in), COMMIT_GO);
        in.disabled = true;
        ck_assert_str_eq(verdict_of(&in), "disabled");
}
END_TEST

START_TEST(test_backoff)
{
        /* 100 ms doubling to the cap */
        ck_assert_uint_eq(decide_backoff(0, 100, 60000), 100);
        ck_assert_uint_eq(decide_backoff(100, 100, 60000), 200);
        ck_assert_uint_eq(decide_backoff(200, 100, 60000), 400);
        ck_assert_uint_eq(decide_backoff(51200, 100, 60000), 60000);
        ck_assert_uint_eq(decide_backoff(60000, 100, 60000), 60000);
        /* an initial above the cap is capped */
        ck_assert_uint_eq(decide_backoff(0, 5000, 1000), 1000);
        /* doubling that overflows gives the cap, never a small value */
        ck_assert_uint_eq(decide_backoff(UINT_MAX / 2 + 1, 1, UINT_MAX), UINT_MAX);
        ck_assert_uint_eq(decide_backoff(UINT_MAX, 1, UINT_MAX), UINT_MAX);

        /* the whole series grows monotonically and reaches the cap */
        {
                unsigned b = 0, steps = 0;
                while (b < 60000) {
                        unsigned next = decide_backoff(b, 100, 60000);
                        ck_assert_uint_gt(next, b);
                        b = next;
                        steps++;
                }
                ck_assert_uint_eq(b, 60000);
                ck_assert_uint_eq(steps, 11);   /* 100 … 51200, then 60000 */
        }
}
END_TEST

/* Why a state cannot be used: each reason alone, then the order when several hold. */
START_TEST(test_sleep_unsupported)
{
        const HibernateFacts ok = {
                .disk_state = true, .suspend_state = true, .disk_mode_suspend = true, .resume_device = true,
                .rtc = true, .swap = true, .swap_free_kib = 2000, .image_kib = 1000,
        };
        HibernateFacts f = ok;
        const char *why = NULL;

        for (SleepState s = SLEEP_SUSPEND; s <= SLEEP_SUSPEND_THEN_HIBERNATE; s++) {
                SleepState back;
                ck_assert_ptr_null(decide_sleep_unsupported(&ok, s, NULL));
                ck_assert_int_eq(sleep_state_from_name(sleep_state_name(s), &back), 0);
                ck_assert_int_eq(back, s);
        }
        ck_assert_int_eq(sleep_state_from_name("disk", &(SleepState){ 0 }), -EINVAL);
        /* a suspend needs nothing of hibernation */
        memset(&f, 0, sizeof f);
        ck_assert_ptr_null(decide_sleep_unsupported(&f, SLEEP_SUSPEND, NULL));
        ck_assert_str_eq(decide_sleep_unsupported(&f, SLEEP_HIBERNATE, &why), "no-disk-state");
        ck_assert_ptr_nonnull(why);
        f = ok, f.locked_down = true, f.swap = false;
        ck_assert_str_eq(decide_sleep_unsupported(&f, SLEEP_HIBERNATE, NULL), "lockdown");
        f = ok, f.disk_mode_suspend = false;
        ck_assert_ptr_null(decide_sleep_unsupported(&f, SLEEP_HIBERNATE, NULL));
        ck_assert_str_eq(decide_sleep_unsupported(&f, SLEEP_HYBRID, NULL), "no-hybrid");
        f = ok, f.suspend_state = false;
        ck_assert_ptr_null(decide_sleep_unsupported(&f, SLEEP_HIBERNATE, NULL));
        ck_assert_str_eq(decide_sleep_unsupported(&f, SLEEP_SUSPEND_THEN_HIBERNATE, NULL), "no-suspend-state");
        f = ok, f.rtc = false;
        ck_assert_ptr_null(decide_sleep_unsupported(&f, SLEEP_HYBRID, NULL));
        ck_assert_str_eq(decide_sleep_unsupported(&f, SLEEP_SUSPEND_THEN_HIBERNATE, NULL), "no-rtc");
        f = ok, f.swap = false, f.resume_device = false;
        ck_assert_str_eq(decide_sleep_unsupported(&f, SLEEP_HIBERNATE, NULL), "no-swap");
        f = ok, f.swap_free_kib = 999, f.resume_device = false;
        ck_assert_str_eq(decide_sleep_unsupported(&f, SLEEP_HIBERNATE, NULL), "swap-too-small");
        f = ok, f.swap_free_kib = 1000;
        ck_assert_ptr_null(decide_sleep_unsupported(&f, SLEEP_HIBERNATE, NULL));
        f = ok, f.resume_device = false;
        ck_assert_str_eq(decide_sleep_unsupported(&f, SLEEP_HIBERNATE, NULL), "no-resume-device");
}
END_TEST

int main(void)
{
        Suite *s = suite_create("decision");
        TCase *tc = tcase_create("policy");

        tcase_add_test(tc, test_kind_names);
        tcase_add_test(tc, test_sleep_unsupported);
        tcase_add_test(tc, test_on_demand_nothing_requested);
        tcase_add_test(tc, test_hard_stops);
        tcase_add_test(tc, test_user_request_is_forced);
        tcase_add_test(tc, test_application_request);
        tcase_add_test(tc, test_blockers_stop_non_forced);
        tcase_add_test(tc, test_alarm_due_soon);
        tcase_add_test(tc, test_backoff_delays_automatic_attempts);
        tcase_add_test(tc, test_dark_and_immediate);
        tcase_add_test(tc, test_commit_goes_ahead);
        tcase_add_test(tc, test_commit_abort_reasons);
        tcase_add_test(tc, test_commit_user);
        tcase_add_test(tc, test_backoff);
        return run_tap(s, tc);
}
