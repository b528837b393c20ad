# daemon/: suspendd. The modules form a convenience library so unit tests link them directly;
# main.c only parses options and wires them.
noinst_LTLIBRARIES += daemon/libsuspendd-core.la
daemon_libsuspendd_core_la_SOURCES = \
	daemon/daemon.h \
	daemon/sysfs.c daemon/sysfs.h \
	daemon/decision.c daemon/decision.h \
	daemon/cron.c daemon/cron.h \
	daemon/config.c daemon/config.h \
	daemon/log.c \
	daemon/store.c \
	daemon/server.c \
	daemon/client.c \
	daemon/request.c \
	daemon/blocker.c \
	daemon/attempt.c \
	daemon/alarm.c \
	daemon/job.c daemon/job.h \
	daemon/account.c daemon/account.h \
	daemon/disable.c \
	daemon/cooperate.c \
	daemon/logind.c \
	daemon/handoff.c \
	daemon/daemon.c \
	daemon/loop.c \
	daemon/status.c \
	daemon/events.c \
	daemon/textlist.c
daemon_libsuspendd_core_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
daemon_libsuspendd_core_la_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(SYSTEMD_CFLAGS)
daemon_libsuspendd_core_la_LIBADD = protocol/libsdp.la $(GLIB_LIBS) $(SYSTEMD_LIBS) $(PAM_LIBS)

sbin_PROGRAMS += daemon/suspendd
daemon_suspendd_SOURCES = daemon/main.c
daemon_suspendd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
daemon_suspendd_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(SYSTEMD_CFLAGS)
daemon_suspendd_LDADD = daemon/libsuspendd-core.la

# Installed as documentation: the file under /etc stays the administrator's.
dist_doc_DATA = daemon/suspendd.conf.example
