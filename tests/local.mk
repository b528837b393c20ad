# tests/: unit tier (tests/unit), integration tier (tests/integration), VM tier (tests/vm,
# tests/kernel, tests/guest via `make check-vm`), benchmarks (tests/bench).
TEST_EXTENSIONS = .test
TEST_LOG_DRIVER = $(LOG_DRIVER)
EXTRA_DIST += tests/deps tests/run tests/summary

check_PROGRAMS += tests/unit/test-protocol
tests_unit_test_protocol_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_protocol_LDADD = protocol/libsdp.la $(CHECK_LIBS)
TESTS += tests/unit/test-protocol
