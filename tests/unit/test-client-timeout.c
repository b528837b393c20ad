/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libsuspendctl against fake daemons that misbehave (issue 15.3: clients never wait forever).
 * Each fake is a thread on a real SOCK_SEQPACKET socket that plays one script: it stays silent
 * (at the hello, after the hello, after the suspend's `ok`), closes mid-call, stops reading, or
 * never accepts. Every call must end with the documented GError, in about the timeout it was
 * given; a call that hangs runs into Check's per-test timeout and fails. */
#include <check.h>
#include "check-tap.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "suspendctl.h"

#define TIMEOUT_MS 300

typedef enum {
        SILENT_AT_HELLO,       /* reads everything, answers nothing */
        CLOSE_AT_HELLO,        /* reads the hello, closes */
        SILENT_AFTER_HELLO,    /* answers the hello, then reads and answers nothing */
        CLOSE_AFTER_HELLO,     /* answers the hello, closes at the next request */
        DEAF_AFTER_HELLO,      /* answers the hello, then stops reading its socket */
        SILENT_AFTER_SUSPEND,  /* answers the hello and `suspend` (attempt 7), then nothing */
        CLOSE_AFTER_SUSPEND,   /* answers the hello and `suspend` (attempt 7), then closes */
        NEVER_ACCEPT,          /* a full backlog: connect() waits */
        LATE_ERROR,            /* answers the hello; request 1 only late: an error for it just
                                * before the answer to request 2, then a mode-changed event */
} Script;

typedef struct {
        char dir[64], path[108];
        int listen_fd, stop[2], filler;
        Script script;
        GThread *thread;
        char late[4097];       /* LATE_ERROR: the request answered late */
} Fake;

static void answer(int fd, const char *req, const char *extra)
{
        char out[256];
        const char *seq = strstr(req, "seq=");
        int n = snprintf(out, sizeof out, "ok seq=%lu%s", seq ? strtoul(seq + 4, NULL, 10) : 0UL, extra);
        ck_assert_int_eq(send(fd, out, (size_t)n, MSG_NOSIGNAL), n);
}

/* What the script does with request number n (0 = hello); FALSE: close the connection. */
static gboolean play(Fake *f, int fd, int n, const char *req)
{
        switch (f->script) {
        case SILENT_AT_HELLO:
                return TRUE;
        case CLOSE_AT_HELLO:
                return FALSE;
        case CLOSE_AFTER_HELLO:
                if (n > 0)
                        return FALSE;
                break;
        case SILENT_AFTER_HELLO:
        case DEAF_AFTER_HELLO:
                if (n > 0)
                        return TRUE;
                break;
        case SILENT_AFTER_SUSPEND:
        case CLOSE_AFTER_SUSPEND:
                if (n == 1 && g_str_has_prefix(req, "suspend")) {
                        /* this fake speaks version 1: a plain suspend must not carry state */
                        ck_assert_ptr_null(strstr(req, "state="));
                        answer(fd, req, " attempt=7");
                        return f->script == SILENT_AFTER_SUSPEND;
                }
                if (n > 1)
                        return TRUE;
                break;
        case NEVER_ACCEPT:
                break;
        case LATE_ERROR:
                if (n == 1) {
                        g_strlcpy(f->late, req, sizeof f->late);
                        return TRUE;
                }
                if (n == 2) {
                        char out[128];
                        const char *seq = strstr(f->late, "seq=");
                        int len = snprintf(out, sizeof out, "error seq=%lu code=internal message=late",
                                           seq ? strtoul(seq + 4, NULL, 10) : 0UL);
                        ck_assert_int_eq(send(fd, out, (size_t)len, MSG_NOSIGNAL), len);
                        answer(fd, req, "");
                        len = snprintf(out, sizeof out, "mode-changed mode=immediate");
                        ck_assert_int_eq(send(fd, out, (size_t)len, MSG_NOSIGNAL), len);
                        return TRUE;
                }
                break;
        }
        answer(fd, req, n == 0 ? " version=1 client=1" : "");
        return TRUE;
}

static gpointer fake_thread(gpointer data)
{
        Fake *f = data;
        int fd = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC), n = 0;
        char buf[4097];

        ck_assert_int_ge(fd, 0);
        for (;;) {
                struct pollfd p[2] = { { f->stop[0], POLLIN, 0 }, { fd, POLLIN, 0 } };
                ssize_t len;
                /* deaf: stop polling the connection once the hello is answered */
                if (poll(p, f->script == DEAF_AFTER_HELLO && n > 0 ? 1 : 2, 20000) <= 0 || p[0].revents)
                        break;
                len = recv(fd, buf, sizeof buf - 1, 0);
                if (len <= 0)
                        break;
                buf[len] = '\0';
                if (!play(f, fd, n++, buf))
                        break;
        }
        close(fd);
        return NULL;
}

static Fake *fake_start(Script script)
{
        Fake *f = g_new0(Fake, 1);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        f->script = script;
        g_strlcpy(f->dir, "/tmp/suspendctl-timeout-XXXXXX", sizeof f->dir);
        ck_assert_ptr_nonnull(g_mkdtemp(f->dir));
        snprintf(f->path, sizeof f->path, "%s/socket", f->dir);
        g_strlcpy(sa.sun_path, f->path, sizeof sa.sun_path);
        f->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(f->listen_fd, 0);
        ck_assert_int_eq(bind(f->listen_fd, (struct sockaddr *)&sa, sizeof sa), 0);
        ck_assert_int_eq(pipe(f->stop), 0);
        f->filler = -1;
        if (script == NEVER_ACCEPT) {
                /* backlog 0 holds one pending connection: take it, and the next connect() waits */
                ck_assert_int_eq(listen(f->listen_fd, 0), 0);
                f->filler = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
                ck_assert_int_eq(connect(f->filler, (struct sockaddr *)&sa, sizeof sa), 0);
                return f;
        }
        ck_assert_int_eq(listen(f->listen_fd, 8), 0);
        f->thread = g_thread_new("fake-daemon", fake_thread, f);
        return f;
}

static void fake_stop(Fake *f)
{
        close(f->stop[1]);
        if (f->thread)
                g_thread_join(f->thread);
        close(f->stop[0]);
        close(f->listen_fd);
        if (f->filler >= 0)
                close(f->filler);
        unlink(f->path);
        rmdir(f->dir);
        g_free(f);
}

/* The call took about its timeout: not at once (it did wait), not much longer. */
static void assert_waited(gint64 t0)
{
        double s = (double)(g_get_monotonic_time() - t0) / 1e6;
        ck_assert_msg(s >= TIMEOUT_MS / 1000.0 * 0.95 && s < 2.5, "waited %.3f s for a %d ms timeout", s, TIMEOUT_MS);
}

static SuspendctlClient *connected(Fake *f)
{
        GError *error = NULL;
        SuspendctlClient *c = suspendctl_client_new_with_timeout(f->path, "t", TIMEOUT_MS, &error);
        ck_assert_msg(c != NULL, "connect: %s", error ? error->message : "?");
        ck_assert_int_eq(suspendctl_client_get_timeout(c), TIMEOUT_MS);
        return c;
}

START_TEST(test_silent_at_hello)
{
        Fake *f = fake_start(SILENT_AT_HELLO);
        GError *error = NULL;
        gint64 t0 = g_get_monotonic_time();
        SuspendctlClient *c = suspendctl_client_new_with_timeout(f->path, "t", TIMEOUT_MS, &error);
        ck_assert_ptr_null(c);
        ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT), "%s", error->message);
        ck_assert_ptr_nonnull(strstr(error->message, "300 ms"));
        assert_waited(t0);
        g_error_free(error);
        fake_stop(f);
}
END_TEST

START_TEST(test_close_at_hello)
{
        Fake *f = fake_start(CLOSE_AT_HELLO);
        GError *error = NULL;
        SuspendctlClient *c = suspendctl_client_new_with_timeout(f->path, "t", 10000, &error);
        ck_assert_ptr_null(c);
        ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_DISCONNECTED), "%s", error->message);
        g_error_free(error);
        fake_stop(f);
}
END_TEST

START_TEST(test_silent_call)
{
        Fake *f = fake_start(SILENT_AFTER_HELLO);
        SuspendctlClient *c = connected(f);
        GError *error = NULL;
        GPtrArray *items;
        gint64 t0 = g_get_monotonic_time();

        ck_assert(!suspendctl_client_ping(c, &error));
        ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT), "%s", error->message);
        assert_waited(t0);
        g_clear_error(&error);
        /* the connection stays usable: the next call waits its own timeout again */
        t0 = g_get_monotonic_time();
        items = suspendctl_client_status(c, &error);
        ck_assert_ptr_null(items);
        ck_assert(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT));
        assert_waited(t0);
        g_clear_error(&error);
        ck_assert_ptr_null(suspendctl_client_block_acked(c, "x", &error));
        ck_assert(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT));
        g_clear_error(&error);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

START_TEST(test_set_timeout)
{
        Fake *f = fake_start(SILENT_AFTER_HELLO);
        GError *error = NULL;
        SuspendctlClient *c = suspendctl_client_new_with_timeout(f->path, "t", 10000, &error);
        gint64 t0;

        ck_assert_ptr_nonnull(c);
        suspendctl_client_set_timeout(c, TIMEOUT_MS);   /* the setter, not the constructor's value */
        t0 = g_get_monotonic_time();
        ck_assert_ptr_null(suspendctl_client_get_mode(c, &error));
        ck_assert(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT));
        assert_waited(t0);
        g_clear_error(&error);
        suspendctl_client_set_timeout(c, SUSPENDCTL_TIMEOUT_INFINITE);
        ck_assert_int_eq(suspendctl_client_get_timeout(c), SUSPENDCTL_TIMEOUT_INFINITE);
        suspendctl_client_set_timeout(c, SUSPENDCTL_TIMEOUT_DEFAULT);
        ck_assert_int_eq(suspendctl_client_get_timeout(c), SUSPENDCTL_TIMEOUT_DEFAULT);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

/* A reply that comes after its call timed out is dropped: it is not the error event of a
 * one-way request (the event that follows it in the stream proves it was read and passed). */
START_TEST(test_late_reply_dropped)
{
        Fake *f = fake_start(LATE_ERROR);
        SuspendctlClient *c = connected(f);
        SuspendctlRecord *ev;
        GError *error = NULL;

        ck_assert(!suspendctl_client_ping(c, &error));
        ck_assert(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT));
        g_clear_error(&error);
        ck_assert_msg(suspendctl_client_ping(c, &error), "%s", error ? error->message : "");
        ev = suspendctl_client_next_event(c, 5000, &error);
        ck_assert_ptr_nonnull(ev);
        ck_assert_str_eq(suspendctl_record_type(ev), "mode-changed");
        suspendctl_record_free(ev);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

/* A program linked against LIBSUSPENDCTL_0.1 gets 0.1's constructor: no limit on any wait, as
 * 0.1's calls had none; one built against 0.2 gets the timeouts (test_default_is_documented). */
SuspendctlClient *client_new_as_0_1(const char *socket_path, const char *name, GError **error);
__asm__(".symver client_new_as_0_1,suspendctl_client_new@LIBSUSPENDCTL_0.1");

START_TEST(test_0_1_constructor_waits_as_before)
{
        Fake *f = fake_start(SILENT_AFTER_HELLO);
        GError *error = NULL;
        SuspendctlClient *c = client_new_as_0_1(f->path, "t", &error);
        ck_assert_msg(c != NULL, "%s", error ? error->message : "");
        ck_assert_int_eq(suspendctl_client_get_timeout(c), SUSPENDCTL_TIMEOUT_INFINITE);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

START_TEST(test_default_is_documented)
{
        Fake *f = fake_start(SILENT_AFTER_HELLO);
        GError *error = NULL;
        SuspendctlClient *c = suspendctl_client_new(f->path, "t", &error);   /* the 0.1 constructor */
        ck_assert_ptr_nonnull(c);
        ck_assert_int_eq(suspendctl_client_get_timeout(c), SUSPENDCTL_TIMEOUT_DEFAULT);
        ck_assert_int_eq(SUSPENDCTL_TIMEOUT_REPLY_MS, 25000);       /* libsuspendctl(3) */
        ck_assert_int_eq(SUSPENDCTL_TIMEOUT_ATTEMPT_MS, 120000);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

START_TEST(test_close_mid_call)
{
        Fake *f = fake_start(CLOSE_AFTER_HELLO);
        SuspendctlClient *c = connected(f);
        GError *error = NULL;
        ck_assert(!suspendctl_client_ping(c, &error));
        ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_DISCONNECTED), "%s", error->message);
        g_clear_error(&error);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

START_TEST(test_suspend_no_outcome)
{
        Fake *f = fake_start(SILENT_AFTER_SUSPEND);
        SuspendctlClient *c = connected(f);
        SuspendctlRecord *outcome = NULL;
        GError *error = NULL;
        guint64 attempt = 0;
        gint64 t0 = g_get_monotonic_time();

        ck_assert(!suspendctl_client_suspend(c, FALSE, &attempt, &outcome, &error));
        ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT), "%s", error->message);
        ck_assert_ptr_nonnull(strstr(error->message, "outcome"));
        ck_assert_int_eq(attempt, 7);
        ck_assert_ptr_null(outcome);
        assert_waited(t0);
        g_clear_error(&error);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

START_TEST(test_suspend_close)
{
        Fake *f = fake_start(CLOSE_AFTER_SUSPEND);
        SuspendctlClient *c = connected(f);
        GError *error = NULL;
        guint64 attempt = 0;
        ck_assert(!suspendctl_client_suspend(c, TRUE, &attempt, NULL, &error));
        ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_DISCONNECTED), "%s", error->message);
        ck_assert_int_eq(attempt, 7);
        g_clear_error(&error);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

START_TEST(test_daemon_not_reading)
{
        Fake *f = fake_start(DEAF_AFTER_HELLO);
        SuspendctlClient *c = connected(f);
        GError *error = NULL;
        int sent = 0;
        /* one-way blocks need no reply, but the socket fills: the send must not wait forever */
        for (; sent < 1000000; sent++) {
                SuspendctlBlock *b = suspendctl_client_block(c, "fill", &error);
                if (!b)
                        break;
                g_free(b);   /* never released: each block is one more datagram */
        }
        ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT), "after %d sends: %s",
                      sent, error ? error->message : "no error");
        ck_assert_int_gt(sent, 0);
        g_clear_error(&error);
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

/* A version 1 daemon (these fakes answer hello version=1): a hibernation is refused by the
 * library at once (UNSUPPORTED, not the fake's silence running into TIMED_OUT), nothing sent. */
START_TEST(test_version_1_daemon_no_hibernation)
{
        Fake *f = fake_start(SILENT_AFTER_HELLO);
        SuspendctlClient *c = connected(f);
        GError *error = NULL;
        guint64 attempt = 99;

        ck_assert_uint_eq(suspendctl_client_get_version(c), 1);
        for (SuspendctlSleepState s = SUSPENDCTL_SLEEP_HIBERNATE; s <= SUSPENDCTL_SLEEP_SUSPEND_THEN_HIBERNATE; s++) {
                ck_assert(!suspendctl_client_sleep(c, s, FALSE, &attempt, NULL, &error));
                ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_UNSUPPORTED), "%s", error->message);
                ck_assert_ptr_nonnull(strstr(error->message, suspendctl_sleep_state_name(s)));
                g_clear_error(&error);
        }
        ck_assert_uint_eq(attempt, 99);
        ck_assert_str_eq(suspendctl_sleep_state_name(SUSPENDCTL_SLEEP_HYBRID), "hybrid");
        ck_assert_ptr_null(suspendctl_sleep_state_name((SuspendctlSleepState)42));
        suspendctl_client_free(c);
        fake_stop(f);
}
END_TEST

START_TEST(test_never_accepts)
{
        Fake *f = fake_start(NEVER_ACCEPT);
        GError *error = NULL;
        gint64 t0 = g_get_monotonic_time();
        SuspendctlClient *c = suspendctl_client_new_with_timeout(f->path, "t", TIMEOUT_MS, &error);
        ck_assert_ptr_null(c);
        ck_assert_msg(g_error_matches(error, SUSPENDCTL_ERROR, SUSPENDCTL_ERROR_TIMED_OUT), "%s", error->message);
        assert_waited(t0);
        g_error_free(error);
        fake_stop(f);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("client-timeout");
        TCase *tc = tcase_create("client-timeout");
        /* a call that hangs fails the test here instead of hanging the suite */
        tcase_set_timeout(tc, 5);
        tcase_add_test(tc, test_silent_at_hello);
        tcase_add_test(tc, test_close_at_hello);
        tcase_add_test(tc, test_silent_call);
        tcase_add_test(tc, test_set_timeout);
        tcase_add_test(tc, test_default_is_documented);
        tcase_add_test(tc, test_close_mid_call);
        tcase_add_test(tc, test_suspend_no_outcome);
        tcase_add_test(tc, test_suspend_close);
        tcase_add_test(tc, test_daemon_not_reading);
        tcase_add_test(tc, test_never_accepts);
        tcase_add_test(tc, test_version_1_daemon_no_hibernation);
        tcase_add_test(tc, test_late_reply_dropped);
        tcase_add_test(tc, test_0_1_constructor_waits_as_before);
        return run_tap(s, tc);
}
