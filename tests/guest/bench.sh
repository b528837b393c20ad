#!/bin/bash
# The kernel comparisons of BENCHMARKS.md, measured inside the QEMU guest.
#   on the host:   tests/guest/bench.sh --host BUILDDIR OUTDIR   (boots the guest, prints results)
#   in the guest:  run by the guest's test runner; prints "# name value" lines
set -u
if [ "${1:-}" = --host ]; then
  builddir=$2 out=$3
  top=$(cd "$(dirname "$0")/../.." && pwd)
  kernel=$("$top/vm-image/build-kernel") || exit 1
  guest_build=$builddir/vm-build
  mkdir -p "$guest_build"
  [ -f "$guest_build/Makefile" ] || (cd "$guest_build" && "$top/configure" -q --prefix=/usr --sysconfdir=/etc \
      --localstatedir=/var --with-systemdsystemunitdir=/usr/lib/systemd/system) || exit 1
  make -s -C "$guest_build" -j"$(nproc)" >/dev/null || exit 1
  "$top/vm-image/run-guest" --kernel "$kernel" --builddir "$guest_build" --out "$out" --timeout 900 \
      --file tests/bench/suspendd-bench tests/guest/bench.sh >/dev/null 2>&1
  sed -n 's/^# //p' "$out/tests_guest_bench.sh.tap"
  exit 0
fi
cd "$(dirname "$0")"
. ./lib.sh   # exits 77 unless inside the guest: this script writes /sys/power
B=../bench/suspendd-bench
N=20000
ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
echo "# guest kernel $(uname -r), $(nproc) vCPU, TCG or KVM as the runner said"
wl=$($B writes /sys/power/wake_lock /sys/power/wake_unlock $N | sed 's/.*pair_us=\([0-9.]*\).*/\1/')
echo "# kernel wake_lock+wake_unlock pair: $wl µs"
start_suspendd
rt=$(taskset -c 0 $B roundtrip /run/suspendd/socket $((N / 4)))
ow=$(echo "$rt" | sed 's/.*oneway_us=\([0-9.]*\).*/\1/'); ak=$(echo "$rt" | sed 's/.*acked_us=\([0-9.]*\).*/\1/')
echo "# suspendd one-way block+unblock pair: $ow µs = $(ratio "$ow" "$wl")x the wake_lock pair (target <= 2x)"
echo "# suspendd acknowledged block+unblock pair: $ak µs = $(ratio "$ak" "$wl")x the wake_lock pair"
if [ -e /dev/sleepctl ]; then
  sc=$($B sleepctl $N | sed -n 's/.*pair_us=\([0-9.]*\).*/\1/p')
  [ -n "$sc" ] && echo "# /dev/sleepctl STAY_AWAKE+RELAX pair: $sc µs = $(ratio "$sc" "$wl")x the wake_lock pair"
else
  echo "# /dev/sleepctl pair: not measured (unpatched kernel)"
fi
# a full suspend cycle: pm_test=core runs the whole kernel path short of sleeping; no delay
echo core > /sys/power/pm_test
[ -w /sys/module/suspend/parameters/pm_test_delay ] && echo 0 > /sys/module/suspend/parameters/pm_test_delay
cycles=5
t0=$(date +%s%N); for _ in $(seq $cycles); do echo mem > /sys/power/state; done; t1=$(date +%s%N)
bare=$(( (t1 - t0) / cycles / 1000000 ))
t0=$(date +%s%N); for _ in $(seq $cycles); do suspendctl suspend > /dev/null; sleep 0.2; done; t1=$(date +%s%N)
daemon=$(( (t1 - t0) / cycles / 1000000 - 200 ))
echo "# bare echo mem > /sys/power/state cycle (pm_test=core): $bare ms"
echo "# daemon-driven cycle (suspendctl suspend, same path): $daemon ms = $(ratio "$daemon" "$bare")x bare (target <= 1.05x)"
echo none > /sys/power/pm_test
stop_suspendd
echo "1..0 # SKIP benchmark, not a test"
