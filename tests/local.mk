# tests/: unit tier (tests/unit), integration tier (tests/integration), VM tier (tests/vm,
# tests/kernel, tests/guest via `make check-vm`), benchmarks (tests/bench).
TEST_EXTENSIONS = .test .vmtest
TEST_LOG_DRIVER = $(LOG_DRIVER)
VMTEST_LOG_DRIVER = $(LOG_DRIVER)
EXTRA_DIST += tests/deps tests/run tests/summary tests/skip-driver tests/expected-skips tests/unit/check-tap.h

check_PROGRAMS += tests/unit/test-protocol
tests_unit_test_protocol_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_protocol_LDADD = protocol/libsdp.la $(CHECK_LIBS)
TESTS += tests/unit/test-protocol

# The daemon's pure policy and cron code, linked from its convenience library.
check_PROGRAMS += tests/unit/test-decision tests/unit/test-cron
tests_unit_test_decision_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES)
tests_unit_test_decision_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_decision_LDADD = daemon/libsuspendd-core.la $(CHECK_LIBS)
tests_unit_test_cron_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES)
tests_unit_test_cron_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_cron_LDADD = daemon/libsuspendd-core.la $(CHECK_LIBS)
TESTS += tests/unit/test-decision tests/unit/test-cron

# The daemon's send path: one final reply, fallback forms, event-lost, bounded lists.
check_PROGRAMS += tests/unit/test-reply
tests_unit_test_reply_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES)
tests_unit_test_reply_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_reply_LDADD = daemon/libsuspendd-core.la $(CHECK_LIBS)
TESTS += tests/unit/test-reply
# What an alarm's job is (daemon/core/job.h): unit names, the runner's choice, credentials.
check_PROGRAMS += tests/unit/test-job
tests_unit_test_job_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES)
tests_unit_test_job_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_job_LDADD = daemon/libsuspendd-core.la $(CHECK_LIBS)
TESTS += tests/unit/test-job

# suspendctl's parsing and formatting (client/libcli.la).
check_PROGRAMS += tests/unit/test-cli
tests_unit_test_cli_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_cli_LDADD = client/libcli.la $(GLIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test-cli

# libsuspendctl against fake daemons that stay silent, close mid-call or stop reading.
check_PROGRAMS += tests/unit/test-client-timeout
tests_unit_test_client_timeout_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_client_timeout_LDADD = client/libsuspendctl.la $(GLIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test-client-timeout

# The fake kernel: a FUSE sysfs with real blocking semantics (tests/fake-kernel/README.md).
check_PROGRAMS += tests/fake-kernel/fake-kernel
tests_fake_kernel_fake_kernel_CFLAGS = $(AM_CFLAGS) $(FUSE3_CFLAGS) -pthread
tests_fake_kernel_fake_kernel_LDADD = $(FUSE3_LIBS) -lpthread
EXTRA_DIST += tests/fake-kernel/README.md

# A test-only LD_PRELOAD shim that steps one process's wall clock (tests/clock-step/clock-step.c):
# never installed, built without sanitizers (it is preloaded into sanitized and plain daemons).
check_LTLIBRARIES += tests/clock-step/clock-step.la
tests_clock_step_clock_step_la_CFLAGS = $(WARN_CFLAGS)
tests_clock_step_clock_step_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_clock_step_clock_step_la_LIBADD = -ldl
# The fake kernel's half of eventpoll, preloaded into the daemon by tests that need EPOLLWAKEUP
# modelled (tests/fake-kernel/README.md, "Client messages").
check_LTLIBRARIES += tests/fake-kernel/libepollwakeup-shim.la
tests_fake_kernel_libepollwakeup_shim_la_SOURCES = tests/fake-kernel/epollwakeup-shim.c
tests_fake_kernel_libepollwakeup_shim_la_CFLAGS = $(AM_CFLAGS) -pthread
tests_fake_kernel_libepollwakeup_shim_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_fake_kernel_libepollwakeup_shim_la_LIBADD = -ldl

# Mutation checks (HACKING.md): the daemon with one guarantee deliberately broken, built beside
# the real one from the same sources; wakeup-sweep.test must fail against each. The mutated file
# is compiled again with the switch and linked ahead of the core library, which then supplies
# only the unchanged modules.
MUTANT_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(SYSTEMD_CFLAGS)
check_PROGRAMS += tests/mutants/suspendd-no-count-write tests/mutants/suspendd-no-epollwakeup
tests_mutants_suspendd_no_count_write_SOURCES = daemon/main.c daemon/core/attempt.c
tests_mutants_suspendd_no_count_write_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES) \
	-DSUSPENDD_MUTANT_NO_COUNT_WRITE=1
tests_mutants_suspendd_no_count_write_CFLAGS = $(MUTANT_CFLAGS)
tests_mutants_suspendd_no_count_write_LDADD = daemon/libsuspendd-core.la
tests_mutants_suspendd_no_epollwakeup_SOURCES = daemon/main.c daemon/api/server.c
tests_mutants_suspendd_no_epollwakeup_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES) \
	-DSUSPENDD_MUTANT_NO_EPOLLWAKEUP=1
tests_mutants_suspendd_no_epollwakeup_CFLAGS = $(MUTANT_CFLAGS)
tests_mutants_suspendd_no_epollwakeup_LDADD = daemon/libsuspendd-core.la
check_PROGRAMS += tests/mutants/suspendd-no-delegated-wakeup
tests_mutants_suspendd_no_delegated_wakeup_SOURCES = daemon/main.c daemon/core/delegate.c
tests_mutants_suspendd_no_delegated_wakeup_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES) \
	-DSUSPENDD_MUTANT_NO_DELEGATED_WAKEUP=1
tests_mutants_suspendd_no_delegated_wakeup_CFLAGS = $(MUTANT_CFLAGS)
tests_mutants_suspendd_no_delegated_wakeup_LDADD = daemon/libsuspendd-core.la

# Integration tier: the real daemon and clients on a real socket, against the fake kernel.
INTEGRATION_TESTS = \
	tests/integration/blockers.test \
	tests/integration/delegated.test \
	tests/integration/hibernate.test \
	tests/integration/immediate.test \
	tests/integration/wakeup-race.test \
	tests/integration/wakeup-sweep.test \
	tests/integration/commit-again.test \
	tests/integration/watchers.test \
	tests/integration/fds.test \
	tests/integration/alarms.test \
	tests/integration/disable.test \
	tests/integration/policy-limits.test \
	tests/integration/suspendctl.test \
	tests/integration/client-timeout.test \
	tests/integration/robustness.test \
	tests/integration/completion.test \
	tests/integration/hostile-input.test \
	tests/integration/clock-step.test \
	tests/integration/alarm-jobs.test \
	tests/integration/logind.test \
	tests/integration/persistence.test \
	tests/integration/summary.test
TESTS += $(INTEGRATION_TESTS)
dist_check_SCRIPTS += $(INTEGRATION_TESTS)
EXTRA_DIST += tests/integration/harness.py tests/integration/fake-systemd.py \
	tests/integration/fake-login1.py

# Daemon-on-a-real-kernel tests: run in the QEMU guest by `make check-vm` (vm-image/local.mk).
GUEST_TESTS += \
	tests/guest/real-suspend.test \
	tests/guest/hibernate.test \
	tests/guest/suspend-then-hibernate.test \
	tests/guest/backup-alarm.test \
	tests/guest/disable-crash.test \
	tests/guest/cooperative.test \
	tests/guest/logind.test \
	tests/guest/cron-restart.test \
	tests/guest/units.test \
	tests/guest/alarm-unit.test \
	tests/guest/wakeup-dance.test
# (wakeup-dance does not aim at the commit window by timing, which under TCG missed it in 199 of
# 200 attempts: a preload, tests/guest/commit-window.so below, holds the daemon there)
EXTRA_DIST += tests/guest/lib.sh $(GUEST_TESTS)
# the commit-window preload of tests/guest/wakeup-dance.test (test-only, never installed): built
# for the guest by make check-vm, not by the host tiers
tests/guest/commit-window.so: $(srcdir)/tests/guest/commit-window.c
	$(AM_V_CC)$(MKDIR_P) tests/guest && \
	$(CC) $(AM_CFLAGS) $(CFLAGS) -fPIC -shared -o $@ $(srcdir)/tests/guest/commit-window.c -ldl
CLEANFILES += tests/guest/commit-window.so
EXTRA_DIST += tests/guest/commit-window.c
# a desktop daemon's logind delay inhibitor (lets go at PrepareForSleep), for tests/guest/logind.test
# libsuspendctl's holds driven line by line (tests/integration/delegated.test).
check_PROGRAMS += tests/integration/hold-client
tests_integration_hold_client_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
tests_integration_hold_client_LDADD = client/libsuspendctl.la $(GLIB_LIBS)

check_PROGRAMS += tests/guest/delay-holder
tests_guest_delay_holder_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
tests_guest_delay_holder_LDADD = $(GLIB_LIBS)
EXTRA_DIST += tests/demo tests/demo-host.py tests/guest/demo.scenario

# Benchmarks (tests/bench/, BENCHMARKS.md): `make bench` measures and writes the raw samples to
# bench-results.json (never a pass/fail test; a failed measurement is an error); `make
# bench-report` keeps them as tests/bench/results.json and writes BENCHMARKS.md's tables from them.
# report.test checks that those tables are what the report computes from the committed results.
noinst_PROGRAMS += tests/bench/suspendd-bench
tests_bench_suspendd_bench_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
# -no-install: a real binary, not libtool's wrapper script, so tests/guest/bench.sh can copy it
# into the guest, where it finds the libsuspendctl that `make install` put there.
tests_bench_suspendd_bench_LDFLAGS = -no-install
tests_bench_suspendd_bench_LDADD = client/libsuspendctl.la $(GLIB_LIBS)
EXTRA_DIST += tests/bench/run tests/bench/report tests/bench/benchstats.py tests/bench/results.json \
	tests/guest/bench.sh BENCHMARKS.md
TESTS += tests/bench/report.test
dist_check_SCRIPTS += tests/bench/report.test
EXTRA_DIST += tests/bench/run tests/guest/bench.sh tests/guest/store-cost.sh BENCHMARKS.md
bench: all tests/fake-kernel/fake-kernel
	top_builddir=$(abs_top_builddir) top_srcdir=$(abs_top_srcdir) $(top_srcdir)/tests/bench/run $(BENCH_FLAGS)
bench-report:
	test -f bench-results.json || { echo "no bench-results.json: run make bench first" >&2; exit 1; }
	cp bench-results.json $(top_srcdir)/tests/bench/results.json
	$(top_srcdir)/tests/bench/report $(top_srcdir)/tests/bench/results.json $(top_srcdir)/BENCHMARKS.md
.PHONY: bench bench-report

# The daemon's request handling under fuzzing (tests/fuzz/fuzz-requests.c): `make check` replays
# the corpus; `make fuzz-requests` runs a libFuzzer campaign (clang) that adds to a work corpus.
check_PROGRAMS += tests/fuzz/replay-requests
tests_fuzz_replay_requests_SOURCES = tests/fuzz/fuzz-requests.c protocol/fuzz/replay.c
tests_fuzz_replay_requests_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_INCLUDES)
tests_fuzz_replay_requests_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(SYSTEMD_CFLAGS)
tests_fuzz_replay_requests_LDADD = daemon/libsuspendd-core.la
TESTS += tests/fuzz/replay-requests.test
dist_check_SCRIPTS += tests/fuzz/replay-requests.test
EXTRA_DIST += tests/fuzz/corpus-requests

FUZZ_REQUEST_SECONDS ?= 120
fuzz-requests: daemon/libsuspendd-core.la
	$(MKDIR_P) tests/fuzz/corpus-requests-work
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -include config.h $(DAEMON_INCLUDES) \
		-I$(top_srcdir)/protocol $(GLIB_CFLAGS) $(SYSTEMD_CFLAGS) \
		$(top_srcdir)/tests/fuzz/fuzz-requests.c \
		$(addprefix $(top_srcdir)/,$(filter %.c,$(daemon_libsuspendd_core_la_SOURCES))) \
		$(top_srcdir)/protocol/sdp-codec.c $(top_srcdir)/protocol/sdp-schema.c \
		$(GLIB_LIBS) $(SYSTEMD_LIBS) -o tests/fuzz/fuzz-requests
	tests/fuzz/fuzz-requests -max_total_time=$(FUZZ_REQUEST_SECONDS) -max_len=4096 -timeout=20 -close_fd_mask=2 \
		tests/fuzz/corpus-requests-work $(top_srcdir)/tests/fuzz/corpus-requests
.PHONY: fuzz-requests
