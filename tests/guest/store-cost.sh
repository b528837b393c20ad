#!/bin/bash
# What a state-file write costs inside the QEMU guest (daemon/core/store.c's sequence: write a
# temporary, fsync, rename, fsync the directory, in /var/lib/suspendd on the guest's disk). Until
# attempt ids were reserved in blocks every attempt paid it on the main loop before suspending;
# now one attempt in 64 does.
#   on the host:   tests/guest/store-cost.sh --host BUILDDIR OUTDIR   (boots the guest, prints results)
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
      --file tests/bench/suspendd-bench tests/guest/store-cost.sh >/dev/null 2>&1
  sed -n 's/^# //p' "$out/tests_guest_store-cost.sh.tap"
  exit 0
fi
cd "$(dirname "$0")"
. ./lib.sh   # exits 77 unless inside the guest
B=../bench/suspendd-bench
mkdir -p /var/lib/suspendd
echo "# guest kernel $(uname -r), $(nproc) vCPU; /var/lib/suspendd on $(findmnt -n -o SOURCE,FSTYPE --target /var/lib/suspendd)"
for round in 1 2 3; do
  r=$($B store /var/lib/suspendd 100)
  echo "# state-file write, round $round: median $(echo "$r" | sed 's/.*median_us=\([0-9.]*\).*/\1/') µs, worst $(echo "$r" | sed 's/.*max_us=\([0-9.]*\).*/\1/') µs (100 writes)"
done
echo "1..0 # SKIP measurement, not a test"
