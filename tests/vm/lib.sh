# TAP helpers for guest tests (sourced). Guest tests run as root inside the QEMU guest only.
# These scripts write /sys/power: never on a host. Both marks are set only by the guest image
# (vm-image/build-rootfs names it, vm-image/guest/run-tests exports SUSPENDD_GUEST).
if [ -z "${SUSPENDD_GUEST:-}" ] || [ "$(cat /etc/hostname 2>/dev/null)" != suspendd-guest ]; then
  echo "1..0 # SKIP guest-only test: run it through make check-vm"; exit 77
fi
# A pipeline fails when any part of it fails: `suspendctl status | grep X` must not pass on a
# dead daemon. So no `grep -q` after a pipe here (it exits at the first match and the writer
# may die of SIGPIPE): `grep PATTERN >/dev/null` reads all; and `! a | grep` reads a first.
set -o pipefail
_n=0 _failed=0
ok() {   # ok CONDITION-EXIT-STATUS DESCRIPTION
  _n=$((_n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _failed=$((_failed + 1)); fi
}
diag() { sed 's/^/# /'; }
done_testing() { echo "1..$_n"; [ $_failed -eq 0 ]; exit $?; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# Arm the RTC N seconds ahead (clearing first, as the kernel refuses to re-arm).
rtc_alarm_in() { echo 0 > /sys/class/rtc/rtc0/wakealarm; echo "+$1" > /sys/class/rtc/rtc0/wakealarm; }
# Let the RTC wake the system: wakeup must be enabled on its device (off by default in QEMU).
rtc_enable_wakeup() {
  for f in /sys/class/rtc/rtc0/device/power/wakeup /sys/class/rtc/rtc0/power/wakeup; do
    [ -w "$f" ] && echo enabled > "$f"
  done
  return 0
}
