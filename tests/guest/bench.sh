#!/bin/bash
# The kernel comparisons of BENCHMARKS.md, measured inside the QEMU guest. It only measures:
# every figure is printed as raw samples ("# bench KEY v1,v2,..."), and tests/bench/run on the
# host turns them into means, intervals, ratios and verdicts (tests/bench/benchstats.py).
#   on the host:   tests/guest/bench.sh --host BUILDDIR OUTDIR [KERNEL-VERSION]   (boots the
#                  guest on the patched kernel, 6.1 by default, prints the "bench" lines; exit 1
#                  if the guest measured nothing or failed)
#   in the guest:  run by the guest's test runner
set -u
if [ "${1:-}" = --host ]; then
  builddir=$2 out=$3 version=${4:-6.1}
  top=$(cd "$(dirname "$0")/../.." && pwd)
  kernel=$("$top/vm-image/build-kernel" --kernel "$version") || exit 1
  guest_build=$builddir/vm-build
  mkdir -p "$guest_build"
  [ -f "$guest_build/Makefile" ] || (cd "$guest_build" && "$top/configure" -q --prefix=/usr --sysconfdir=/etc \
      --localstatedir=/var --with-systemdsystemunitdir=/usr/lib/systemd/system) || exit 1
  make -s -C "$guest_build" -j"$(nproc)" >/dev/null || exit 1
  "$top/vm-image/run-guest" --kernel "$kernel" --builddir "$guest_build" --out "$out" --timeout 1800 \
      --file tests/bench/suspendd-bench tests/guest/bench.sh >/dev/null 2>&1
  tap=$out/tests_guest_bench.sh.tap
  grep -q '^# bench ' "$tap" 2>/dev/null || { echo "guest bench: no results in $tap" >&2; exit 1; }
  grep -q '^not ok' "$tap" && { grep '^not ok\|^#' "$tap" >&2; exit 1; }
  sed -n 's/^# bench /bench /p' "$tap"
  exit 0
fi
. "$(dirname "$0")/lib.sh"   # exits 77 unless inside the guest: this script writes /sys/power
cd "$(dirname "$0")"
B=../bench/suspendd-bench
N=20000        # block/unblock and wake_lock pairs in all, over ROUNDS interleaved rounds
ROUNDS=10
PAIRS=30       # suspend cycles of each kind, interleaved
fail() { echo "not ok 1 - $*"; echo "1..1"; exit 1; }
field() { sed -n "s/.*\b$1=\([0-9.,]*\).*/\1/p" <<< "$2"; }   # KEY=VALUE of a result line
add() { eval "$1=\${$1:+\$$1,}\$2"; }                          # append a sample to a list
echo "# bench meta kernel=$(uname -r) vcpus=$(nproc) accel=$(dmesg | grep >/dev/null 'Hypervisor detected: KVM' && echo kvm || echo tcg) date=$(date -u +%Y-%m-%dT%H:%MZ)"
start_suspendd
# 1. pairs: the kernel's wake_lock/wake_unlock writes, suspendd's block/unblock, libsuspendctl's
# delegated hold, the one-way pair's two sends to a bare reader (the socket path's floor) and, on
# the patched kernel, /dev/sleepctl, in rounds that alternate so drift
# hits all of them alike
wl= ow= ak= sc= dl= sd=
for r in $(seq $ROUNDS); do
  o=$($B writes /sys/power/wake_lock /sys/power/wake_unlock $((N / ROUNDS))) || fail "wake_lock pairs"
  add wl "$(field pair_us "$o")"
  o=$(taskset -c 0 $B roundtrip /run/suspendd/socket $((N / 4 / ROUNDS))) || fail "block/unblock pairs"
  add ow "$(field oneway_us "$o")"; add ak "$(field acked_us "$o")"
  o=$($B delegated /run/suspendd/socket $((N / ROUNDS))) || fail "delegated hold pairs"
  add dl "$(field pair_us "$o")"
  o=$(taskset -c 0 $B sends $((N / ROUNDS))) || fail "the one-way pair's floor"
  add sd "$(field pair_us "$o")"
  if [ -e /dev/sleepctl ]; then
    o=$($B sleepctl $((N / ROUNDS))) || fail "sleepctl pairs"
    add sc "$(field pair_us "$o")"
  fi
done
echo "# bench wake_lock_pair_us $wl"
echo "# bench oneway_pair_us $ow"
echo "# bench acked_pair_us $ak"
echo "# bench delegated_pair_us $dl"
echo "# bench sends_pair_us $sd"
[ -n "$sc" ] && echo "# bench sleepctl_pair_us $sc"
# 2. suspend cycles: pm_test=core runs the whole kernel path short of sleeping, no delay; bare
# cycles (wakeup_count handshake + state write) and daemon cycles (suspend → resumed) interleaved
echo core > /sys/power/pm_test
[ -w /sys/module/suspend/parameters/pm_test_delay ] && echo 0 > /sys/module/suspend/parameters/pm_test_delay
o=$($B cycles /run/suspendd/socket /sys/power/state $PAIRS /sys/power/wakeup_count) || { echo none > /sys/power/pm_test; fail "suspend cycles"; }
echo none > /sys/power/pm_test
echo "# bench bare_cycle_ms $(field bare_ms "$o")"
echo "# bench daemon_cycle_ms $(field daemon_ms "$o")"
stop_suspendd
echo "ok 1 - measured (the figures are computed on the host: tests/bench/run)"
echo "1..1"
