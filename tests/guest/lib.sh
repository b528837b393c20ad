# Helpers for the daemon-on-a-real-kernel guest tests (sourced). Guest only: as root in QEMU.
. "$(dirname "$0")/../vm/lib.sh"

# Start suspendd under systemd as a transient unit with the daemon's options (restart on
# failure); SUSPENDD_UNIT=1 uses the installed suspendd.socket/suspendd.service instead;
# SUSPENDD_BIN=PATH runs another build (a test mutant copied into the guest, HACKING.md);
# SUSPENDD_ENV="VAR=VALUE ..." sets the transient daemon's environment (wakeup-dance's preload).
start_suspendd() {
  local env=() kv
  systemctl stop suspendd.service suspendd.socket suspendd-t.service >/dev/null 2>&1
  systemctl reset-failed suspendd-t.service >/dev/null 2>&1
  if [ -n "${SUSPENDD_UNIT:-}" ]; then
    systemctl start suspendd.socket suspendd.service
  else
    for kv in ${SUSPENDD_ENV:-}; do env+=("--setenv=$kv"); done
    systemd-run --quiet --unit=suspendd-t --property=Type=notify --property=Restart=on-failure \
      --property=RestartSec=1 "${env[@]}" "${SUSPENDD_BIN:-/usr/sbin/suspendd}" -v "$@"
  fi
  for _ in $(seq 50); do suspendctl status >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}
stop_suspendd() { systemctl stop suspendd.service suspendd.socket suspendd-t.service >/dev/null 2>&1; }
suspendd_unit() { systemctl is-active -q suspendd.service && echo suspendd.service || echo suspendd-t.service; }
suspendd_pid() { systemctl show -p MainPID --value "$(suspendd_unit)"; }

# The host wakes the guest N seconds after QEMU reports it suspended (S3), once.
wake_after_suspend() { host-request wake-after-suspend "$1"; }

# Wait until a command succeeds (polling every 0.5 s), at most N seconds of the guest's time.
wait_until() {   # wait_until SECONDS COMMAND...
  local end=$(( $(date +%s) + $1 )); shift
  until "$@"; do [ "$(date +%s)" -lt $end ] || return 1; sleep 0.5; done
}

# A field of an attempt in status (ID, or "last" for the newest): attempt_field ID KEY
attempt_field() { suspendctl status --json | python3 -c '
import json, sys
want, key = sys.argv[1], sys.argv[2]
items = [i for i in json.load(sys.stdin) if i.get("type") == "attempt"]
items = items[:1] if want == "last" else [i for i in items if str(i.get("attempt")) == want]
print(items[0].get(key, "") if items else "")' "$1" "$2"; }
# A counter from status: counter suspends
counter() { suspendctl status --json | python3 -c '
import json, sys
print([i for i in json.load(sys.stdin) if i.get("type") == "counters"][0][sys.argv[1]])' "$1"; }
