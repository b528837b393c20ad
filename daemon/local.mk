# daemon/: suspendd. main.c parses the options; loop.c runs the daemon's life; daemon.c and
# daemon.h are the records. api/ serves connections (server, client, request, status); core/
# holds the state and decides. Calls run main -> loop -> api -> core only (ARCHITECTURE.md,
# "One way"). The modules form a convenience library so the unit tests link them directly.
DAEMON_INCLUDES = -I$(top_srcdir)/daemon -I$(top_srcdir)/daemon/core -I$(top_srcdir)/daemon/api
noinst_LTLIBRARIES += daemon/libsuspendd-core.la
daemon_libsuspendd_core_la_SOURCES = \
	daemon/daemon.c daemon/daemon.h \
	daemon/loop.c \
	daemon/api/server.c \
	daemon/api/client.c \
	daemon/api/request.c \
	daemon/api/status.c \
	daemon/core/attempt.c \
	daemon/core/decision.c daemon/core/decision.h \
	daemon/core/alarm.c \
	daemon/core/job.c daemon/core/job.h \
	daemon/core/account.c daemon/core/account.h \
	daemon/core/cron.c daemon/core/cron.h \
	daemon/core/logind.c \
	daemon/core/handoff.c \
	daemon/core/blocker.c \
	daemon/core/delegate.c \
	daemon/core/liveness.c \
	daemon/core/disable.c \
	daemon/core/cooperate.c \
	daemon/core/store.c \
	daemon/core/events.c \
	daemon/core/sched.c \
	daemon/core/textlist.c \
	daemon/core/config.c daemon/core/config.h \
	daemon/core/sysfs.c daemon/core/sysfs.h \
	daemon/core/log.c
daemon_libsuspendd_core_la_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES)
daemon_libsuspendd_core_la_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(SYSTEMD_CFLAGS)
daemon_libsuspendd_core_la_LIBADD = protocol/libsdp.la $(GLIB_LIBS) $(SYSTEMD_LIBS) $(PAM_LIBS)

sbin_PROGRAMS += daemon/suspendd
daemon_suspendd_SOURCES = daemon/main.c
daemon_suspendd_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES)
daemon_suspendd_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(SYSTEMD_CFLAGS)
daemon_suspendd_LDADD = daemon/libsuspendd-core.la

# Installed as documentation: the file under /etc stays the administrator's.
dist_doc_DATA = daemon/suspendd.conf.example
