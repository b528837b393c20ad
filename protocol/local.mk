# protocol/: the pure wire codec, shared by the daemon and libsuspendctl.
noinst_LTLIBRARIES += protocol/libsdp.la
protocol_libsdp_la_SOURCES = \
	protocol/sdp.h \
	protocol/sdp-schema.h \
	protocol/sdp-schema.c \
	protocol/sdp-codec.c
EXTRA_DIST += protocol/PROTOCOL.md

# Fuzzing: protocol/fuzz/fuzz-decode.c is a libFuzzer target. `make fuzz-protocol` builds it with
# clang -fsanitize=fuzzer; `make check` replays the seed corpus through the same entry point.
check_PROGRAMS += protocol/fuzz/replay-decode
protocol_fuzz_replay_decode_SOURCES = protocol/fuzz/fuzz-decode.c protocol/fuzz/replay.c
protocol_fuzz_replay_decode_LDADD = protocol/libsdp.la
TESTS += protocol/fuzz/replay-decode.test
dist_check_SCRIPTS += protocol/fuzz/replay-decode.test
EXTRA_DIST += protocol/fuzz/corpus

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
fuzz-protocol:
	$(MKDIR_P) protocol/fuzz
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -I$(top_srcdir)/protocol \
		$(top_srcdir)/protocol/fuzz/fuzz-decode.c $(top_srcdir)/protocol/sdp-codec.c \
		$(top_srcdir)/protocol/sdp-schema.c -o protocol/fuzz/fuzz-decode
	$(MKDIR_P) protocol/fuzz/corpus-work
	protocol/fuzz/fuzz-decode -max_total_time=$(FUZZ_SECONDS) -max_len=4200 \
		protocol/fuzz/corpus-work $(top_srcdir)/protocol/fuzz/corpus
.PHONY: fuzz-protocol
