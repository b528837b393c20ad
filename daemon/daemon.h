/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon.h — the records every module shares. Each concept lives in its own file; calls run
 * downwards only, main -> loop -> api/ -> core/ (ARCHITECTURE.md, "One way"):
 *   main.c          the options;  loop.c  start, the settle source, signals, stop
 *   daemon.c        these records, made and freed
 *   api/server.c    listening socket, epoll set (EPOLLWAKEUP), reading, flushing, reaping
 *   api/client.c    one connection: credentials, receiving a datagram, the bounded output queue
 *   api/request.c   dispatch of decoded requests: policy, action, reply; a closed connection's end
 *   api/status.c    the status snapshot
 *   core/attempt.c  the attempt state machine, its kernel calls, and attempt_settle(): the one
 *                   place that decides;  core/decision.c  the pure decision functions
 *   core/alarm.c    wake alarms: timers, firing, holds, persistence
 *   core/job.c      an alarm's command: a transient systemd unit, or forked as its owner
 *   core/logind.c   the logind bridge;  core/handoff.c  an attempt handed to logind
 *   core/blocker.c  the block set (clients, alarm holds, fds, logind)
 *   core/disable.c  the firmware hammer and kernel sleep_mode
 *   core/cooperate.c the kernel's cooperative mode: our /dev/sleepctl holder follows the blocks
 *   core/events.c   who hears which event; events_to() (and _encoded) the one way out to a connection
 *   core/textlist.c "A; B; and N more" within a byte budget
 *   core/store.c    atomic persistence under the state directory
 *   core/log.c      structured logging;  core/sysfs.c  the kernel seam;  core/config.c
 *                   configuration and policy lists;  core/cron.c  cron expressions
 */
#ifndef SUSPENDD_DAEMON_H
#define SUSPENDD_DAEMON_H

#include <gio/gio.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/types.h>

#include "core/config.h"   /* not the build's config.h of autoconf */
#include "core/cron.h"
#include "core/decision.h"
#include "sdp.h"
#include "core/sysfs.h"

typedef struct Daemon Daemon;
typedef struct Client Client;

/* An event encoded once for a fan-out to many connections (events.c): the same bytes go to each,
 * so 1000 watchers cost 1000 sends, not 1000 encodings as well (issue 19). */
typedef struct {
        SdpType type;
        int n;                             /* bytes in buf; < 0 if it could not be encoded */
        char buf[SDP_MAX_MESSAGE + 1];
} EncodedEvent;
typedef struct AlarmJob AlarmJob;   /* job.h: the records only point at jobs */
typedef struct Jobs Jobs;

typedef enum { MODE_ON_DEMAND, MODE_IMMEDIATE } Mode;

typedef enum { BLOCKER_CLIENT, BLOCKER_ALARM, BLOCKER_FD, BLOCKER_LOGIND, BLOCKER_DELEGATED } BlockerSource;
typedef struct Logind Logind;
typedef struct Handoff Handoff;

typedef struct {
        BlockerSource source;
        unsigned client;          /* owning connection, 0 for alarm holds */
        uint32_t id;              /* client-chosen id, or alarm id */
        pid_t pid;
        uid_t uid;
        char comm[32];
        char reason[257];
        gint64 since;             /* wall clock, µs */
} Blocker;

typedef struct {
        uint32_t id;
        int fd;
        char label[65];
        bool readable;            /* at the last poll */
} RegisteredFd;

struct Client {
        /* First, what NOTIFY's loop and the reading of the answers touch for every connection:
         * with 1000 watchers after an idle spell each cache line of this is a miss per watcher,
         * and the loop is on a desktop's path to sleep. */
        Daemon *d;
        int fd;
        bool hello;
        bool watching, monitoring;
        bool closing;             /* in d->closing: the server reaps it */
        bool out_dirty;           /* in d->out_dirty: the server updates its watch */
        bool fd_asked;            /* asked because of a readable fd */
        unsigned version;          /* negotiated */
        unsigned budget_ms;
        /* the attempt this client is being asked about, and whether it answered */
        uint64_t asked, answered;
        gint64 deadline;          /* monotonic µs by which it must answer */
        uint64_t requested;       /* an attempt whose outcome it asked for */
        GQueue out;               /* GBytes datagrams not yet sent */
        GHashTable *fds;          /* id -> RegisteredFd*; NULL until its first fd-add */
        /* the rest */
        unsigned id;
        pid_t pid;
        uid_t uid;
        gid_t gid;
        gid_t groups[64];
        size_t n_groups;
        char comm[32];
        char name[65];
        gint64 since;
        uint64_t hello_version;    /* what the first hello asked for */
        char watch_name[65];
        unsigned late;            /* late or missing answers */
        unsigned n_blocks;
        GHashTable *block_keys;       /* keys in d->blockers this connection owns (any source) */
        GHashTable *delegations;  /* id -> Delegation*: its delegated blocks (delegate.c) */
        bool disabling;
        char disable_reason[257];
        gint64 disable_since;
        bool fd_late;                  /* asked for readable fds, did not answer: blocker after the decision */
        GHashTable *out_fds;      /* GBytes* in out -> the descriptor it carries (SCM_RIGHTS) */
        unsigned too_large;
};

typedef enum {
        ATTEMPT_IDLE, ATTEMPT_PREPARE, ATTEMPT_NOTIFY, ATTEMPT_COMMIT, ATTEMPT_SUSPENDED,
} AttemptState;

typedef struct {
        uint64_t id;
        AttemptKind kind;
        SleepState sleep;                 /* what it puts the machine into */
        gint64 started_ms, ended_ms;      /* wall clock: when, never how long */
        gint64 started_boot_us;           /* CLOCK_BOOTTIME at the start */
        uint64_t duration_ms;             /* start → end on CLOCK_BOOTTIME (a sleep included) */
        char result[16];                  /* in-progress, resumed, aborted */
        char reason[32];
        char detail[256];
        uint64_t slept_ms;                /* CLOCK_BOOTTIME across the state write */
        uint64_t resume_us;               /* the state write's return → `resumed` sent to all */
        gint64 notify_start_us;           /* monotonic: NOTIFY began */
        uint64_t notify_us;               /* NOTIFY began → every watcher answered (or timed out) */
        unsigned asked;                   /* watchers and fd owners asked */
        char wake[128];
        bool dark;
} AttemptRecord;

#define ATTEMPT_HISTORY 16

typedef struct {
        uint32_t id;
        char name[65];
        uid_t owner;
        char owner_name[64];       /* the owner's user name when the alarm was added (account.c) */
        bool cron;
        time_t at;                 /* one-shot time */
        char cron_text[129];
        CronSpec spec;
        unsigned hold_s;
        bool hold_given;
        char *command;
        time_t next;
        uint64_t fired;
        /* a hold after firing */
        bool holding;
        guint hold_timer;
        AlarmJob *job;             /* its command while the hold follows it (job.c) */
        bool removed;              /* cancelled while holding: free when the hold ends */
        char *not_run;             /* why its last firing did not run its command, or NULL */
} Alarm;

struct Daemon {
        SuspenddConfig cfg;
        Sysfs *sysfs;
        SysfsFeatures features;
        char state_dir[4096];
        char socket_path[108];
        GMainLoop *loop;
        gint64 started;
        Mode mode;
        /* Something changed that attempt_settle() must look at: a timer, D-Bus, a job or a closed
         * connection set it; loop.c's settle source runs the decision once per loop iteration.
         * The modules below attempt.c never call into it (ARCHITECTURE.md, "one way"). */
        bool unsettled;
        GSource *settle;
        /* How an event leaves for a connection: the transport's client_send() (and, encoded
         * once for a fan-out, client_send_encoded()), installed by loop.c. The modules below the
         * server reach them only through events_to() and events_to_encoded(), never by name, so
         * that data flows one way (ARCHITECTURE.md, "One way"). */
        void (*send_event)(Client *c, const SdpMessage *m);
        void (*send_encoded)(Client *c, const EncodedEvent *e);   /* client_send_encoded() */

        /* server */
        int listen_fd, epoll_fd;
        guint accept_timer;        /* accepting paused: out of descriptors */
        guint epoll_source;
        GHashTable *clients;       /* id -> Client* */
        GHashTable *clients_by_fd; /* fd -> Client* */
        GQueue closing;            /* Client*s disconnected, for server_reap() */
        GQueue out_dirty;          /* Client*s whose output queue grew, for server_sync() */
        unsigned next_client_id;

        /* blockers: key "source:client:id" -> Blocker* */
        GHashTable *blockers;
        GHashTable *monitors;         /* set of Client* that sent `monitor`: events without a scan */
        unsigned n_fd_blockers;

        /* attempt */
        AttemptState state;
        AttemptRecord current;
        AttemptRecord history[ATTEMPT_HISTORY];
        unsigned n_history;
        uint64_t last_attempt_id;
        uint64_t attempt_id_reserved;  /* the bound the next state write records (store.c) */
        uint64_t attempt_id_on_disk;   /* the bound the state file holds: ids up to it may be used */
        unsigned wakeup_count;
        guint notify_timer;
        unsigned pending_answers;
        bool vetoed;
        unsigned late_now;         /* watchers late in this attempt */
        bool fd_unanswered;
        char fd_detail[160];
        char veto_reason[300];
        bool user_requested, app_requested;    /* queued requests */
        SleepState requested_sleep;            /* … and what they asked for */
        bool dark_pending;                     /* re-suspend after an alarm's hold */
        SleepState dark_sleep;                 /* … into this (suspend-then-hibernate goes on) */
        time_t hibernate_at;           /* suspend-then-hibernate: when the suspend becomes a
                                        * hibernation (wall clock, as the RTC), 0 if none */
        unsigned backoff_ms;
        guint backoff_timer;
        gint64 commit_boot_us;         /* CLOCK_BOOTTIME just before the state write */
        WakeupSnapshot at_prepare;     /* wakeup sources when the count was first read */
        bool at_prepare_valid;
        WakeupSnapshot before_sleep;   /* … and when it was read again at COMMIT */
        bool before_sleep_valid;
        unsigned commit_tries;         /* count/state writes of this attempt that met a wakeup */
        char commit_failure[96];       /* … and what the last one said */
        time_t armed_alarm;
        bool armed_for_hibernate;      /* the RTC is armed for hibernate_at, not for an alarm */
        bool shutting_down;

        /* alarms */
        GPtrArray *alarms;         /* Alarm* */
        uint32_t next_alarm_id;
        int alarm_timerfd;
        guint alarm_source;
        Jobs *jobs;                /* how alarm commands run (job.c) */

        /* disable */
        unsigned disable_holders;
        bool disable_grace;        /* restarted while disabled: keep it for the grace period */
        guint disable_grace_timer;
        char saved_sleep_mode[16];
        bool kernel_disabled;

        bool reading_count;        /* a worker is in a wakeup_count read (it may block) */
        bool logind_wait;          /* NOTIFY also waits for logind's delay inhibitors */
        bool logind_wait_extended; /* … and its bound was extended for logind's continuation */
        guint logind_wait_timer;
        Logind *logind;            /* NULL when the bridge is off */
        Handoff *handoff;          /* an application attempt handed to logind (handoff.c) */
        const char *command_shell; /* runs alarm commands: /bin/sh (the fuzz harness: /bin/true) */
        bool batch_scheduling;     /* we switched ourselves to SCHED_BATCH (sched.c) */
        guint prepare_slow_timer;

        /* delegated blocks (delegate.c) */
        int delegate_epfd;         /* their eventfds, EPOLLIN|EPOLLWAKEUP; -1 if none */
        GHashTable *delegations;   /* client << 32 | id -> Delegation* (owned by the client's table) */
        GHashTable *delegations_held;   /* set of Delegation*: in the block set */
        uint64_t delegate_round;   /* which ask of the set saw a delegation held */
        struct epoll_event *delegate_evs;
        size_t delegate_evs_size;
        guint delegate_timer;      /* polling: asks again while one is held (a give-back wakes nobody) */
        guint delegate_watch;      /* quiet: the main loop polls the set, so a take wakes us */
        bool delegate_woken;       /* a take woke us: poll until a tick finds none held */
        bool delegate_relaxed;     /* EPOLLWAKEUP taken off for a user request's attempt */
        bool can_hold_wakeups;     /* CAP_BLOCK_SUSPEND: EPOLLWAKEUP takes effect */
        int liveness_fd;           /* the liveness page's memfd (liveness.c), -1 until asked for */
        void *liveness_page;       /* our mapping of it: a robust mutex we hold */

        /* cooperative mode */
        int sleepctl_fd;           /* our /dev/sleepctl holder, -1 when not cooperative */
        bool sleepctl_holding;
        bool coop_blocked;         /* told by blocker.c: the block set is not empty */
        bool coop_attempting;      /* told by attempt.c: an attempt is in progress */
        char coop_prev_mode[16];   /* the sleep_mode we replaced, put back at a clean stop */

        /* counters */
        uint64_t n_attempts, n_suspends, n_aborts, n_dark, n_late;
        uint64_t n_encode_failures;   /* datagrams sent in their fallback form, or lost */
};

/* daemon.c */
Daemon *daemon_new(const char *state_dir, const char *socket_path);   /* default configuration */
/* The tables of daemon_new() and the kernel seam; what the modules own is freed by them first. */
void daemon_free(Daemon *d);
/* "client N (comm/name, pid P, uid U)": how the log names a connection */
const char *client_describe(const Client *c, char *buf, size_t size);

/* Whether suspend is disabled (PROTOCOL.md §6.9): a holder, or a previous run's grace period. */
static inline bool disable_active(const Daemon *d)
{
        return d->disable_holders > 0 || d->disable_grace;
}

/* loop.c: the daemon's life around the main loop, and the settle source */
typedef struct {
        const char *socket_path, *root, *state_dir, *config;
        const char *mode;          /* on-demand, immediate, or NULL: the saved mode */
} DaemonOptions;
int loop_main(const DaemonOptions *o);   /* set up, run until a signal, stop: the exit status */
void loop_start(Daemon *d);   /* after the configuration, the kernel, the state file, the socket */
void loop_stop(Daemon *d);    /* the clean stop (the socket file stays: loop_main removes it) */

/* log.c */
void log_init(bool verbose);
void log_msg(int priority, uint64_t attempt, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
#define log_info(...) log_msg(6, 0, __VA_ARGS__)
#define log_warn(...) log_msg(4, 0, __VA_ARGS__)
#define log_err(...) log_msg(3, 0, __VA_ARGS__)
#define log_debug(...) log_msg(7, 0, __VA_ARGS__)

/* server.c */
int server_start(Daemon *d, int passed_fd);
void server_stop(Daemon *d);
int server_watch_client(Daemon *d, Client *c, bool want_out);
void server_reap(Daemon *d);   /* closed connections: unwatched, ended, freed */
void server_sync(Daemon *d);   /* the watches of connections whose output queue changed */

/* client.c */
Client *client_new(Daemon *d, int fd);
void client_free(Client *c);
void client_disconnect(Client *c, const char *why);
void client_send(Client *c, const SdpMessage *m);   /* events only */
void client_send_encoded(Client *c, const EncodedEvent *e);   /* events only, e->n >= 0 */
ssize_t client_send_bytes(int sock, const void *buf, size_t len, int fd);   /* fd >= 0: SCM_RIGHTS */
#define CLIENT_MAX_FDS 8   /* descriptors taken from one datagram */
typedef enum { CLIENT_INPUT_NONE, CLIENT_INPUT_ANSWERED, CLIENT_INPUT_REQUEST } ClientInput;
ClientInput client_receive(Client *c, SdpMessage *m, int *fds, size_t *n_fds, unsigned budget);
void client_receive_done(Client *c);   /* the end of one wake's reading of c */

/* The reply to one request (PROTOCOL.md §2): `item`s, then exactly one final `ok` or `error`.
 * Every request, decodable or not, is answered through one Reply: reply_begin(), a handler,
 * reply_finish(); the final can be sent once (a second is suppressed and logged) and
 * reply_finish() sends `error code=internal` if none was. client_send() refuses replies. */
typedef struct {
        Client *c;
        uint64_t seq;
        bool final_sent;
        bool quiet_ok;             /* noreply=1: success sends nothing */
        unsigned items;
} Reply;

/* Text budgets that make every reply fit in SDP_MAX_MESSAGE even with every byte escaped:
 * `message` and one aggregated field (blockers=, holders=) of at most REPLY_TEXT_MAX bytes each,
 * cut at a character boundary (PROTOCOL.md §5). */
#define REPLY_TEXT_MAX 960u
/* A list in a reply or event: at most LIST_MAX_ENTRIES entries, then "and N more". */
#define LIST_MAX_ENTRIES 8u

Reply reply_begin(Client *c, uint64_t seq);
void reply_item(Reply *r, SdpMessage *item);
void reply_ok(Reply *r, const SdpMessage *m);   /* m: extra fields, or NULL */
void reply_ok_fd(Reply *r, const SdpMessage *m, int fd);   /* … carrying a copy of fd (SCM_RIGHTS) */
void reply_error(Reply *r, SdpError code, const char *field, const char *extra_key,
                 const char *extra_value, const char *fmt, ...) G_GNUC_PRINTF(6, 7);
void reply_finish(Reply *r);

/* "A; B; and N more": whole entries while they fit `budget` bytes (at most `max` of them), then
 * a count of the rest. The first entry is cut (at a character boundary) rather than left out. */
typedef struct {
        GString *s;
        size_t max, budget, n, more;
} TextList;
/* textlist.c */
void text_list_init(TextList *l, size_t max, size_t budget);
void text_list_add(TextList *l, const char *entry);
char *text_list_end(TextList *l);   /* g_free */

/* request.c */
void request_handle(Client *c, const SdpMessage *m, int *fds, size_t n_fds);
void request_client_gone(Client *c);

/* blocker.c */
int blocker_add(Daemon *d, BlockerSource src, Client *c, uint32_t id, const char *reason,
                pid_t pid, uid_t uid, const char *comm);
int blocker_remove(Daemon *d, BlockerSource src, unsigned client, uint32_t id);
const char *blocker_source_name(BlockerSource s);   /* client, alarm, fd, logind, delegated */
bool blocker_exists(const Daemon *d, BlockerSource src, unsigned client, uint32_t id);
void blocker_remove_client(Daemon *d, Client *c);   /* O(its own blocks), not O(all) */
size_t blocker_count(const Daemon *d);
char *blocker_describe_all(const Daemon *d, size_t budget);   /* g_free; a TextList */

/* attempt.c */
void attempt_init(Daemon *d);
/* The one place that decides: an attempt to start, or to abort (disabled during NOTIFY), and the
 * end of logind's wait. Called by loop.c's settle source, and by request.c when a request's
 * change must be decided before its reply. */
void attempt_settle(Daemon *d);
uint64_t attempt_request(Daemon *d, AttemptKind kind, SleepState sleep);
void attempt_answer(Daemon *d, Client *c, bool ready, const char *reason);
void attempt_fd_owner_answered(Daemon *d, Client *c);
void attempt_refresh_fd_blockers(Daemon *d);      /* drop those whose fds are no longer readable */   /* clears its readable-fd blocker */
void attempt_client_gone(Daemon *d, Client *c);
bool attempt_active(const Daemon *d);
bool attempt_awaits_answer(const Daemon *d, const Client *c);
const char *attempt_state_name(AttemptState s);
void attempt_abort(Daemon *d, const char *reason, const char *detail);
void attempt_logind_continues(Daemon *d);         /* request.c: logind's continuation arrived */

/* alarm.c */
void alarm_init(Daemon *d);
void alarm_free_all(Daemon *d);
int alarm_add(Daemon *d, Client *c, const SdpMessage *m, Alarm **out, SdpError *code, char *err, size_t errlen);
int alarm_cancel(Daemon *d, Client *c, uint32_t id, const char *name);
int alarm_release(Daemon *d, Client *c, uint32_t id);
Alarm *alarm_earliest(Daemon *d);
void alarm_reschedule(Daemon *d);
void alarm_fire_due(Daemon *d, uint64_t woke_attempt);
void alarm_add_item_fields(const Alarm *a, SdpMessage *m);
bool alarm_visible_to(const Alarm *a, const Client *c);
void alarm_save(Daemon *d);

/* disable.c */
void disable_init(Daemon *d);
int disable_take(Daemon *d, Client *c, const char *reason);
int disable_drop(Daemon *d, Client *c);
char *disable_describe(const Daemon *d, size_t budget);   /* g_free; a TextList */
void disable_save(Daemon *d);

/* logind.c */
void logind_init(Daemon *d);
void logind_free(Daemon *d);
unsigned logind_delay_inhibitors(const Daemon *d, const char **desc, uint64_t *max_ms);
GDBusConnection *logind_connection(const Daemon *d);   /* NULL unless logind is on the bus */

/* handoff.c */
void handoff_init(Daemon *d);
void handoff_free(Daemon *d);
void handoff_begin(Daemon *d, uint64_t attempt);
void handoff_attempt_waits_no_more(Daemon *d);
bool handoff_sent(const Daemon *d);
void handoff_attempt_ended(Daemon *d, uint64_t attempt, const SdpMessage *outcome);
uint64_t handoff_take_continuation(Daemon *d, SdpMessage **outcome);

/* delegate.c: a block the client takes and gives back on an eventfd of ours (PROTOCOL.md §6.3) */
int delegate_init(Daemon *d);   /* the set's fd (delegate.c watches it), or -errno */
void delegate_stop(Daemon *d);
int delegate_open(Daemon *d, Client *c, uint32_t id, const char *reason, int *client_fd);
int delegate_close(Daemon *d, Client *c, uint32_t id);   /* -ENOENT */
bool delegate_exists(const Client *c, uint32_t id);
bool delegate_any_held(const Daemon *d);   /* as the last ask saw them */
void delegate_client_gone(Daemon *d, Client *c);   /* its delegations end, the block set follows */
void delegate_client_free(Client *c);   /* at the daemon's stop: our copies closed, nothing told */
void delegate_refresh(Daemon *d);   /* ask the set which are held: the block set follows */
void delegate_enforce(Daemon *d, bool on);   /* off: a user request's attempt, which blocks do not stop */

/* liveness.c: a page whose first word says whether the daemon runs (PROTOCOL.md §6.16) */
int liveness_fd(Daemon *d);   /* made at the first call, on the main thread; or -errno */
void liveness_stop(Daemon *d);

/* cooperate.c */
void cooperate_init(Daemon *d);
/* Our holder is active exactly while the block set is not empty and no attempt is in progress:
 * blocker.c tells the first, attempt.c the second; each takes effect at once. */
void cooperate_set_blocked(Daemon *d, bool blocked);
void cooperate_set_attempting(Daemon *d, bool attempting);
bool cooperate_active(const Daemon *d);
void cooperate_stop(Daemon *d);

/* status.c */
void status_reply(Reply *r);

/* events.c */
void events_to(Daemon *d, Client *c, const SdpMessage *m);   /* one event to one connection */
bool events_encode(EncodedEvent *e, const SdpMessage *m);   /* false: send it with events_to() */
void events_to_encoded(Daemon *d, Client *c, const EncodedEvent *e);
void events_to_monitors(Daemon *d, const SdpMessage *m);

/* sched.c */
bool sched_prefer_batch(void);
void events_attempt(Daemon *d, const SdpMessage *m, bool to_requesters);
void events_to_uid(Daemon *d, uid_t uid, const SdpMessage *m);

/* store.c */
int store_write_atomic(const char *dir, const char *name, const char *data, size_t len);
char *store_read(const char *dir, const char *name);   /* g_free, NULL if absent */
int state_save(Daemon *d);                   /* writes only when the contents changed; 0 or -errno (logged) */
void state_load(Daemon *d);
void state_reserve_attempt_ids(Daemon *d);  /* at start, before its state_save */
/* The next attempt id, its bound persisted once in 64: 0, or < 0 (the bound could not be
 * written: no id, so none can repeat after a crash). */
int state_next_attempt_id(Daemon *d, uint64_t *id);

const char *mode_name(Mode m);
gint64 wall_ms(void);
gint64 boottime_us(void);   /* CLOCK_BOOTTIME, µs: counts time asleep, never stepped */

#endif
