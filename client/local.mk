# client/: libsuspendctl (public API: suspendctl.h), the suspendctl CLI, examples.
lib_LTLIBRARIES += client/libsuspendctl.la
include_HEADERS = client/suspendctl.h
client_libsuspendctl_la_SOURCES = client/libsuspendctl.c client/suspendctl.h
client_libsuspendctl_la_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
client_libsuspendctl_la_LIBADD = protocol/libsdp.la $(GLIB_LIBS)
# Only suspendctl_* is exported; the codec inside stays private.
client_libsuspendctl_la_LDFLAGS = $(AM_LDFLAGS) -version-info 2:0:2 \
	-Wl,--version-script=$(top_srcdir)/client/libsuspendctl.sym
EXTRA_client_libsuspendctl_la_DEPENDENCIES = client/libsuspendctl.sym
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = client/libsuspendctl.pc
EXTRA_DIST += client/libsuspendctl.sym client/libsuspendctl.pc.in

noinst_LTLIBRARIES += client/libcli.la
client_libcli_la_SOURCES = client/cli.c client/cli.h
client_libcli_la_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
client_libcli_la_LIBADD = $(GLIB_LIBS)

bin_PROGRAMS += client/suspendctl
client_suspendctl_SOURCES = client/suspendctl-cli.c
client_suspendctl_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
client_suspendctl_LDADD = client/libsuspendctl.la client/libcli.la $(GLIB_LIBS)

bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = client/completion/suspendctl

# Examples: one per main kind of user.
noinst_PROGRAMS += client/examples/session-watcher client/examples/backup-job client/examples/firmware-updater
client_examples_session_watcher_SOURCES = client/examples/session-watcher.c
client_examples_session_watcher_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
client_examples_session_watcher_LDADD = client/libsuspendctl.la $(GLIB_LIBS)
client_examples_backup_job_SOURCES = client/examples/backup-job.c
client_examples_backup_job_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
client_examples_backup_job_LDADD = client/libsuspendctl.la $(GLIB_LIBS)
client_examples_firmware_updater_SOURCES = client/examples/firmware-updater.c
client_examples_firmware_updater_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
client_examples_firmware_updater_LDADD = client/libsuspendctl.la $(GLIB_LIBS)
