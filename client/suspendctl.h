/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* suspendctl.h — libsuspendctl, the client library of suspendd.
 *
 * One SuspendctlClient is one connection to the daemon. Calls are synchronous unless named
 * _async; errors are GErrors in SUSPENDCTL_ERROR whose codes mirror the protocol's stable error
 * codes (protocol/PROTOCOL.md §5). Events (attempts, alarms, monitor stream) reach a callback
 * once the client is attached to a GMainContext. See libsuspendctl(3).
 */
#ifndef SUSPENDCTL_H
#define SUSPENDCTL_H

#include <gio/gio.h>
#include <glib.h>

G_BEGIN_DECLS

#define SUSPENDCTL_ERROR (suspendctl_error_quark())
GQuark suspendctl_error_quark(void);

/* The first values equal the protocol's error codes (sdp.h SdpError); the last are local. */
typedef enum {
        SUSPENDCTL_ERROR_BAD_MESSAGE = 1,
        SUSPENDCTL_ERROR_TOO_LARGE,
        SUSPENDCTL_ERROR_UNKNOWN_REQUEST,
        SUSPENDCTL_ERROR_UNKNOWN_FIELD,
        SUSPENDCTL_ERROR_MISSING_FIELD,
        SUSPENDCTL_ERROR_DUPLICATE_FIELD,
        SUSPENDCTL_ERROR_BAD_FIELD,
        SUSPENDCTL_ERROR_CONFLICTING_FIELDS,
        SUSPENDCTL_ERROR_NO_HELLO,
        SUSPENDCTL_ERROR_BAD_VERSION,
        SUSPENDCTL_ERROR_PERMISSION_DENIED,
        SUSPENDCTL_ERROR_LIMIT_EXCEEDED,
        SUSPENDCTL_ERROR_NOT_FOUND,
        SUSPENDCTL_ERROR_EXISTS,
        SUSPENDCTL_ERROR_BLOCKED,
        SUSPENDCTL_ERROR_DISABLED,
        SUSPENDCTL_ERROR_ALARM_DUE,
        SUSPENDCTL_ERROR_WRONG_ATTEMPT,
        SUSPENDCTL_ERROR_BAD_FD,
        SUSPENDCTL_ERROR_UNSUPPORTED,
        SUSPENDCTL_ERROR_BUSY,
        SUSPENDCTL_ERROR_INTERNAL,
        SUSPENDCTL_ERROR_NOT_RUNNING = 100,  /* no daemon listens on the socket */
        SUSPENDCTL_ERROR_DISCONNECTED,       /* the daemon closed the connection */
        SUSPENDCTL_ERROR_PROTOCOL,           /* the daemon sent something we cannot read */
        SUSPENDCTL_ERROR_ABORTED,            /* a suspend attempt was aborted (its reason in the message) */
        SUSPENDCTL_ERROR_TIMED_OUT,          /* the daemon did not answer within the client's timeout */
} SuspendctlError;

/* A message from the daemon: an event, or one item of a list reply (status, alarm list). */
typedef struct _SuspendctlRecord SuspendctlRecord;
const char *suspendctl_record_type(const SuspendctlRecord *r);   /* "resumed", "alarm", … */
const char *suspendctl_record_get(const SuspendctlRecord *r, const char *key);   /* NULL if absent */
guint64 suspendctl_record_get_u64(const SuspendctlRecord *r, const char *key, guint64 fallback);
guint suspendctl_record_n_fields(const SuspendctlRecord *r);
void suspendctl_record_field(const SuspendctlRecord *r, guint i, const char **key, const char **value);
void suspendctl_record_free(SuspendctlRecord *r);

typedef struct _SuspendctlClient SuspendctlClient;

/* socket_path NULL: $SUSPENDD_SOCKET, else /run/suspendd/socket. name: shown in status. */
SuspendctlClient *suspendctl_client_new(const char *socket_path, const char *name, GError **error);
void suspendctl_client_free(SuspendctlClient *c);   /* closes: releases everything it held */
const char *suspendctl_client_get_socket_path(const SuspendctlClient *c);
guint suspendctl_client_get_id(const SuspendctlClient *c);
int suspendctl_client_get_fd(const SuspendctlClient *c);

/* Timeouts: no call waits for the daemon forever. timeout_ms is a number of milliseconds > 0,
 * SUSPENDCTL_TIMEOUT_DEFAULT for each call's own default (SUSPENDCTL_TIMEOUT_REPLY_MS for a
 * reply, SUSPENDCTL_TIMEOUT_ATTEMPT_MS for the outcome of suspend), or SUSPENDCTL_TIMEOUT_INFINITE.
 * A daemon that stays silent that long is SUSPENDCTL_ERROR_TIMED_OUT. See libsuspendctl(3). */
#define SUSPENDCTL_TIMEOUT_DEFAULT (-1)
#define SUSPENDCTL_TIMEOUT_INFINITE G_MAXINT
#define SUSPENDCTL_TIMEOUT_REPLY_MS 25000
#define SUSPENDCTL_TIMEOUT_ATTEMPT_MS 120000
/* suspendctl_client_new, with the timeout of the hello (and of every later call) set. */
SuspendctlClient *suspendctl_client_new_with_timeout(const char *socket_path, const char *name, int timeout_ms,
                                                     GError **error);
void suspendctl_client_set_timeout(SuspendctlClient *c, int timeout_ms);
int suspendctl_client_get_timeout(const SuspendctlClient *c);   /* as set: DEFAULT unless changed */

/* Events: attach to a main context (NULL = default) and they are delivered to `func`. The
 * event's type is the protocol verb: suspending, resumed, aborted, alarm-fired, blocked, … and
 * "error" for the asynchronous error of a one-way request, "disconnected" when the daemon
 * goes away. */
typedef void (*SuspendctlEventFunc)(SuspendctlClient *c, const SuspendctlRecord *event, gpointer user_data);
void suspendctl_client_set_event_handler(SuspendctlClient *c, SuspendctlEventFunc func, gpointer user_data,
                                         GDestroyNotify destroy);
void suspendctl_client_attach(SuspendctlClient *c, GMainContext *context);
/* Without a main loop: wait up to timeout_ms (-1 forever) for one event and return it. */
SuspendctlRecord *suspendctl_client_next_event(SuspendctlClient *c, int timeout_ms, GError **error);

/* Blocks. The default is the one-way fast path (PROTOCOL.md §6.3): it returns at once; an error
 * arrives later as an "error" event. suspendctl_client_block_acked waits for the daemon. */
typedef struct _SuspendctlBlock SuspendctlBlock;
SuspendctlBlock *suspendctl_client_block(SuspendctlClient *c, const char *reason, GError **error);
SuspendctlBlock *suspendctl_client_block_acked(SuspendctlClient *c, const char *reason, GError **error);
gboolean suspendctl_block_release(SuspendctlBlock *b, GError **error);   /* frees b */
/* Frees b without ending the block: it ends when the connection closes. For a process about to
 * close the connection anyway: one event for the daemon instead of two (PROTOCOL.md §10.1). */
void suspendctl_block_forget(SuspendctlBlock *b);
guint32 suspendctl_block_get_id(const SuspendctlBlock *b);

/* Holds: a block taken and given back often (since 0.3; PROTOCOL.md §6.3, delegated form). The
 * first acquire asks the daemon (one round trip: policy, limits); it answers with an eventfd, and
 * from then on acquire and release are one system call each on it, no message — as cheap as a
 * kernel wake lock, with the daemon still naming the hold in status and ending it when the
 * connection closes. Acquires nest: the hold is held until as many releases. Before version 2,
 * or where the daemon cannot delegate (`unsupported`: it lacks CAP_BLOCK_SUSPEND), the hold uses
 * one-way block/unblock messages instead; suspendctl_hold_is_delegated() tells which.
 * Acquire fails with SUSPENDCTL_ERROR_DISCONNECTED once the daemon has gone (it was restarted:
 * the daemon's liveness page says so, PROTOCOL.md §6.16; no system call) or closed the
 * connection: its holds went with it; make a new client and new holds. It fails with
 * SUSPENDCTL_ERROR_NOT_FOUND if the daemon ended the delegated block while the connection lives
 * (an unblock of its id sent around the library). Not thread-safe, as the client. */
typedef struct _SuspendctlHold SuspendctlHold;
SuspendctlHold *suspendctl_client_hold_new(SuspendctlClient *c, const char *reason);   /* not held */
gboolean suspendctl_hold_acquire(SuspendctlHold *h, GError **error);
gboolean suspendctl_hold_release(SuspendctlHold *h, GError **error);   /* NOT_FOUND if not held */
gboolean suspendctl_hold_is_delegated(const SuspendctlHold *h);
guint32 suspendctl_hold_get_id(const SuspendctlHold *h);   /* its block id, as status shows it */
void suspendctl_hold_free(SuspendctlHold *h);   /* ends it (held or not); before its client */

/* Watching attempts: answer each "suspending" event with ready or veto before its deadline. */
gboolean suspendctl_client_watch(SuspendctlClient *c, const char *name, guint budget_ms, GError **error);
gboolean suspendctl_client_unwatch(SuspendctlClient *c, GError **error);
gboolean suspendctl_client_ready(SuspendctlClient *c, guint64 attempt, GError **error);
gboolean suspendctl_client_veto(SuspendctlClient *c, guint64 attempt, const char *reason, GError **error);
/* "Ready once my work is flushed": take a deferral for the attempt, complete it when done. */
typedef struct _SuspendctlDeferral SuspendctlDeferral;
SuspendctlDeferral *suspendctl_client_defer(SuspendctlClient *c, guint64 attempt);
gboolean suspendctl_deferral_complete(SuspendctlDeferral *d, GError **error);   /* sends ready, frees */

/* Registered fds: asked about attempts only while one of them is readable. */
gboolean suspendctl_client_add_fd(SuspendctlClient *c, int fd, const char *label, guint32 *id, GError **error);
gboolean suspendctl_client_remove_fd(SuspendctlClient *c, guint32 id, GError **error);

/* Suspend requests. Waits for the attempt's outcome: returns TRUE once resumed (outcome is the
 * "resumed" record), FALSE with SUSPENDCTL_ERROR_ABORTED (outcome the "aborted" record) or the
 * daemon's refusal. *attempt is 0 if the daemon is in immediate mode (a no-op). The outcome is
 * waited for up to the client's timeout (default SUSPENDCTL_TIMEOUT_ATTEMPT_MS; time asleep does
 * not count). */
gboolean suspendctl_client_suspend(SuspendctlClient *c, gboolean user, guint64 *attempt,
                                   SuspendctlRecord **outcome, GError **error);
void suspendctl_client_suspend_async(SuspendctlClient *c, gboolean user, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data);
/* Returns the outcome record (caller frees) or NULL with error. */
SuspendctlRecord *suspendctl_client_suspend_finish(SuspendctlClient *c, GAsyncResult *result, GError **error);

/* What a request puts the machine into (since 0.3; protocol version 2, PROTOCOL.md §6.7). */
typedef enum {
        SUSPENDCTL_SLEEP_SUSPEND,
        SUSPENDCTL_SLEEP_HIBERNATE,
        SUSPENDCTL_SLEEP_HYBRID,
        SUSPENDCTL_SLEEP_SUSPEND_THEN_HIBERNATE,
} SuspendctlSleepState;
/* "suspend", "hibernate", "hybrid", "suspend-then-hibernate": the protocol's words; NULL if none. */
const char *suspendctl_sleep_state_name(SuspendctlSleepState state);
/* As suspendctl_client_suspend, into `state`. A state other than SUSPENDCTL_SLEEP_SUSPEND needs a
 * daemon of protocol version 2 (else SUSPENDCTL_ERROR_UNSUPPORTED, nothing sent); the daemon
 * refuses a state the system cannot use with SUSPENDCTL_ERROR_UNSUPPORTED naming why. The
 * outcome record carries sleep_state. Finish the async form with suspendctl_client_suspend_finish. */
gboolean suspendctl_client_sleep(SuspendctlClient *c, SuspendctlSleepState state, gboolean user,
                                 guint64 *attempt, SuspendctlRecord **outcome, GError **error);
void suspendctl_client_sleep_async(SuspendctlClient *c, SuspendctlSleepState state, gboolean user,
                                   GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
/* The protocol version the connection speaks (1 with a daemon older than hibernation). */
guint suspendctl_client_get_version(const SuspendctlClient *c);

char *suspendctl_client_get_mode(SuspendctlClient *c, GError **error);   /* g_free */
gboolean suspendctl_client_set_mode(SuspendctlClient *c, const char *mode, GError **error);

gboolean suspendctl_client_disable(SuspendctlClient *c, const char *reason, GError **error);
gboolean suspendctl_client_enable(SuspendctlClient *c, GError **error);

/* Alarms. Exactly one of at (Unix seconds, > 0), in_seconds (> 0) or cron (non-NULL).
 * hold_s 0 = the daemon's default; command NULL = none. Returns the alarm id, 0 on error. */
guint32 suspendctl_client_alarm_add(SuspendctlClient *c, const char *name, gint64 at, guint64 in_seconds,
                                    const char *cron, guint hold_s, const char *command,
                                    gint64 *next, GError **error);
GPtrArray *suspendctl_client_alarm_list(SuspendctlClient *c, GError **error);   /* of SuspendctlRecord */
gboolean suspendctl_client_alarm_cancel(SuspendctlClient *c, guint32 id, const char *name, GError **error);
gboolean suspendctl_client_alarm_release(SuspendctlClient *c, guint32 id, GError **error);

GPtrArray *suspendctl_client_status(SuspendctlClient *c, GError **error);       /* of SuspendctlRecord */
gboolean suspendctl_client_monitor(SuspendctlClient *c, GError **error);
gboolean suspendctl_client_ping(SuspendctlClient *c, GError **error);

G_END_DECLS
#endif
