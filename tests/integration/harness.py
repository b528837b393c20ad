"""Integration-test harness: a real suspendd and real clients on a real socket in a temp dir,
against the FUSE fake kernel (tests/fake-kernel). Never touches the host's /sys/power: the
daemon always gets --sysfs-root pointing at the fake kernel's mount.

A test script does:
    from harness import Env, tap
    with Env() as env:
        c = env.client()
        ...
        tap.ok(cond, "what")
    tap.done()
"""
import array
import os
import pickle
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOP_BUILDDIR = os.environ.get("top_builddir", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "build")))
FAKE_KERNEL = os.path.join(TOP_BUILDDIR, "tests", "fake-kernel", "fake-kernel")
SUSPENDD = os.path.join(TOP_BUILDDIR, "daemon", "suspendd")
SUSPENDCTL = os.path.join(TOP_BUILDDIR, "client", "suspendctl")
# The fake kernel's half of eventpoll (tests/fake-kernel/README.md, "Client messages").
EPOLLWAKEUP_SHIM = os.path.join(TOP_BUILDDIR, "tests", "fake-kernel", ".libs", "libepollwakeup-shim.so")
TIMEOUT = 20.0   # a failure guard only; tests wait on events, not on time

_preload_copies = {}


def preloadable(path):
    """A path LD_PRELOAD can carry: the dynamic loader splits LD_PRELOAD at spaces and colons, so a
    library under a checkout whose path has them (a clone in "My Projects") is copied once to a
    private temporary directory first."""
    if not any(c in path for c in " :\t"):
        return path
    if path not in _preload_copies:
        d = tempfile.mkdtemp(prefix="suspendd-preload-")
        dst = os.path.join(d, os.path.basename(path))
        shutil.copy2(path, dst)
        _preload_copies[path] = dst
    return _preload_copies[path]


def unix_listening(path):
    """Whether a socket listens on PATH (/proc/net/unix: the __SO_ACCEPTCON flag), without
    connecting to it: the daemon creates the file a moment before it calls listen()."""
    try:
        with open("/proc/net/unix") as f:
            next(f)
            for line in f:
                parts = line.rstrip("\n").split(None, 7)
                if len(parts) == 8 and parts[7] == path and int(parts[3], 16) & 0x10000:
                    return True
    except OSError:
        pass
    return False


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, what, detail=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, what), flush=True)
        if not cond and detail is not None:
            for line in str(detail).splitlines():
                print("#   " + line, flush=True)
        return cond

    def skip_all(self, why):
        print("1..0 # SKIP " + why, flush=True)
        sys.exit(77)

    def done(self):
        print("1..%d" % self.n, flush=True)
        sys.exit(1 if self.failed else 0)


tap = Tap()


def encode(verb, **fields):
    parts = [verb]
    for k, v in fields.items():
        v = str(v)
        bare = v and all(ch.isalnum() or ch in "._:/@+,-" for ch in v)
        parts.append("%s=%s" % (k, v if bare else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'))
    return " ".join(parts)


def decode(data):
    """Parse one datagram into (verb, dict). Good enough for the daemon's well-formed output."""
    text = data.decode()
    verb, _, rest = text.partition(" ")
    fields, i = {}, 0
    while i < len(rest):
        if rest[i] == " ":
            i += 1
            continue
        eq = rest.index("=", i)
        key = rest[i:eq]
        i = eq + 1
        if i < len(rest) and rest[i] == '"':
            i += 1
            val = []
            while rest[i] != '"':
                if rest[i] == "\\":
                    i += 1
                val.append(rest[i])
                i += 1
            i += 1
            fields[key] = "".join(val)
        else:
            end = rest.find(" ", i)
            end = len(rest) if end < 0 else end
            fields[key] = rest[i:end]
            i = end
    return verb, fields


class Client:
    """A raw protocol client: sends requests, collects replies and events."""

    def __init__(self, path, hello=True, name="test", version=1):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.connect(path)
        self.seq = 0
        self.events = []
        if hello:
            verb, f = self.call("hello", version=version, name=name)
            assert verb == "ok", (verb, f)
            self.id = int(f["client"])

    def send_raw(self, data, fds=None):
        if fds:
            self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        else:
            self.sock.send(data)

    def recv(self, timeout=TIMEOUT):
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(8192)
        except socket.timeout:
            return None
        if not data:
            return ("eof", {})
        return decode(data)

    def call(self, verb, fds=None, **fields):
        """Send a request and return its final reply (ok/error); items go to self.items."""
        v, f, got = self.call_fd(verb, fds, **fields)
        for fd in got:
            os.close(fd)
        return (v, f)

    def call_fd(self, verb, fds=None, **fields):
        """As call(), also returning the descriptors its reply carried (SCM_RIGHTS; only the
        `ok` to `block delegate=1` and to `liveness` have one): (verb, fields, fds). Items go to self.items."""
        self.seq += 1
        seq = str(self.seq)
        self.send_raw(encode(verb, seq=seq, **fields).encode(), fds)
        self.items = []
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            self.sock.settimeout(max(deadline - time.time(), 0.001))
            try:
                data, got, _, _ = socket.recv_fds(self.sock, 8192, 4)
            except socket.timeout:
                break
            if not data:
                return ("eof", {}, got)
            v, f = decode(data)
            if v in ("ok", "error", "item") and f.get("seq") == seq:
                if v == "item":
                    self.items.append(f)
                    continue
                return (v, f, got)
            for fd in got:
                os.close(fd)
            self.events.append((v, f))
        raise TimeoutError("no reply to %s" % verb)

    def wait_event(self, verb, timeout=TIMEOUT, **match):
        deadline = time.time() + timeout
        while True:
            for i, (v, f) in enumerate(self.events):
                if v == verb and all(f.get(k) == str(val) for k, val in match.items()):
                    del self.events[i]
                    return f
            left = deadline - time.time()
            if left <= 0:
                return None
            m = self.recv(left)
            if m is None:
                return None
            if m[0] == "eof":
                return None
            self.events.append(m)

    def close(self):
        self.sock.close()


class IpcClient(Client):
    """A client whose every datagram is bracketed for the fake kernel (Env.ipc): a wakeup event
    exactly when the daemon watches its socket with EPOLLWAKEUP (Env(epollwakeup_shim=True))."""

    def __init__(self, env, **kw):
        self.env = env
        super().__init__(env.socket, **kw)

    def send_raw(self, data, fds=None):
        for phase in ("begin", "end"):
            if phase == "end":
                super().send_raw(data, fds)
            r = self.env.ipc(self, phase)
            if not r.startswith("ok"):
                raise RuntimeError("fake kernel: ipc-%s: %s" % (phase, r))


class Env:
    def __init__(self, patched=False, config=None, mode=None, rtc=True, sleep_ms=0, daemon_binary=None,
                 epollwakeup_shim=False):
        self.patched, self.config_text, self.mode, self.rtc, self.sleep_ms = patched, config, mode, rtc, sleep_ms
        # daemon_binary: e.g. a test mutant (tests/mutants/); epollwakeup_shim: preload the shim so
        # the fake kernel knows which sockets the daemon watches with EPOLLWAKEUP (see ipc()).
        self.daemon_binary, self.epollwakeup_shim = daemon_binary or SUSPENDD, epollwakeup_shim
        self.daemon = None
        self.fk = None

    def __enter__(self):
        if not os.path.exists("/dev/fuse"):
            tap.skip_all("no /dev/fuse: the fake kernel needs FUSE")
        if os.geteuid() != 0:
            tap.skip_all("the integration tier runs as root (FUSE mount, SO_PEERCRED tests with other uids)")
        self.dir = tempfile.mkdtemp(prefix="suspendd-test-")
        os.chmod(self.dir, 0o755)   # other uids reach the socket
        self.root = os.path.join(self.dir, "root")
        os.mkdir(self.root)
        self.ctl_path = os.path.join(self.dir, "kernel.ctl")
        self.socket = os.path.join(self.dir, "socket")
        self.state = os.path.join(self.dir, "state")
        self.config = os.path.join(self.dir, "suspendd.conf")
        with open(self.config, "w") as f:
            f.write(self.config_text or "")
        args = [FAKE_KERNEL, "--root", self.root, "--control", self.ctl_path]
        if self.patched:
            args.append("--patched")
        if not self.rtc:
            args.append("--no-rtc")
        if self.sleep_ms:
            args += ["--sleep-ms", str(self.sleep_ms)]
        self.fk = subprocess.Popen(args, stderr=subprocess.DEVNULL)
        if not self._wait(lambda: os.path.exists(os.path.join(self.root, "sys/power/state"))):
            self.__exit__(None, None, None)
            tap.skip_all("the fake kernel could not mount FUSE here")
        self.start_daemon()
        return self

    def _wait(self, cond, timeout=TIMEOUT):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if cond():
                return True
            time.sleep(0.02)
        return False

    def start_daemon(self, extra=()):
        assert os.path.realpath(self.root) != "/", "refusing to run the daemon on the real /sys"
        self.log_path = os.path.join(self.dir, "suspendd.log")
        args = [self.daemon_binary, "--sysfs-root", self.root, "--socket", self.socket, "--state-dir", self.state,
                "--config", self.config, "-v"] + list(extra)
        if self.mode:
            args += ["--mode", self.mode]
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        denv = None
        if self.epollwakeup_shim:
            denv = dict(os.environ, LD_PRELOAD=preloadable(EPOLLWAKEUP_SHIM), FAKE_KERNEL_CONTROL=self.ctl_path)
            # a sanitizer build's runtime must otherwise come first in the library list
            denv["ASAN_OPTIONS"] = (denv.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
        self.daemon = subprocess.Popen(args, stderr=open(self.log_path, "a"), env=denv)
        if not self._wait(lambda: unix_listening(self.socket) or self.daemon.poll() is not None):
            raise RuntimeError("suspendd did not start")
        if self.daemon.poll() is not None:
            raise RuntimeError("suspendd exited with %s:\n%s" % (self.daemon.returncode, self.log()))

    def stop_daemon(self, sig=signal.SIGTERM):
        if self.daemon and self.daemon.poll() is None:
            if sig != signal.SIGKILL and self.fk and self.fk.poll() is None:
                # a daemon stops only after a committed suspend returns: end any fake sleep
                for cmd in ("pause off", "release", "wake serio0"):
                    try:
                        self.kernel(cmd)
                    except OSError:
                        pass
            self.daemon.send_signal(sig)
            try:
                self.daemon.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                self.daemon.wait()
        rc = self.daemon.returncode if self.daemon else None
        self.daemon = None
        return rc

    def log(self):
        try:
            return open(self.log_path).read()
        except OSError:
            return ""

    def __exit__(self, *exc):
        rc = self.stop_daemon()
        if rc not in (None, 0):
            print("# suspendd exited with %s (sanitizer report?)" % rc)
            for line in self.log().splitlines()[-40:]:
                print("#   " + line)
            tap.ok(False, "suspendd exits cleanly")
        if self.fk:
            subprocess.call(["fusermount3", "-u", "-z", self.root], stderr=subprocess.DEVNULL)
            try:
                self.fk.wait(5)
            except subprocess.TimeoutExpired:
                self.fk.kill()
                self.fk.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def kernel(self, command):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(TIMEOUT + 5)   # the connect too: a stuck fake kernel must not hang the test
        s.connect(self.ctl_path)
        s.sendall((command + "\n").encode())
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
        s.close()
        return buf.decode().strip()

    def ipc(self, client, phase):
        """Bracket a datagram `client` sends, for the fake kernel's EPOLLWAKEUP model (needs
        epollwakeup_shim=True): phase "begin" before sending, "end" after. If the daemon watches
        that socket with EPOLLWAKEUP the datagram is a wakeup event in progress from "begin"
        until the daemon has taken it off the socket ("end" waits for that), then counted.
        Returns the reply, e.g. "ok wakeup=1 count=12 peer=..."."""
        return self.kernel("ipc-%s %d" % (phase, os.fstat(client.sock.fileno()).st_ino))

    def kstats(self):
        line = self.kernel("stats")
        return dict(kv.split("=", 1) for kv in line.split()[1:])

    def client(self, **kw):
        return Client(self.socket, **kw)

    def client_as(self, uid, gid, requests, groups=()):
        """Run requests as another uid (and these supplementary groups) in a child process
        (as_user: with its timeout); returns the list of replies."""
        def run():
            c = Client(self.socket)
            return [c.call(verb, **fields) for verb, fields in requests]
        return self.as_user(uid, gid, run, groups=groups)

    def suspendctl(self, *args, timeout=TIMEOUT, env=None, **kw):
        e = dict(os.environ)
        e["SUSPENDD_SOCKET"] = self.socket
        if env:
            e.update(env)
        return subprocess.run([SUSPENDCTL] + list(args), capture_output=True, text=True, timeout=timeout, env=e, **kw)

    def status(self):
        c = self.client(name="status")
        c.call("status")
        items = c.items
        c.close()
        return items

    def wait_for(self, cond, timeout=TIMEOUT):
        return self._wait(cond, timeout)

    # -- status fields: what negative checks wait on (a status reply is a reply to a later
    #    request, so whatever the daemon decided before it is visible in it) --
    def daemon_status(self):
        return [i for i in self.status() if i["type"] == "daemon"][0]

    def counters(self):
        return [i for i in self.status() if i["type"] == "counters"][0]

    def attempts(self):
        """The attempt items, newest first."""
        return [i for i in self.status() if i["type"] == "attempt"]

    def attempt(self, att):
        a = [i for i in self.attempts() if i["attempt"] == str(att)]
        return a[0] if a else None

    # -- another uid --
    def as_user(self, uid, gid, func, timeout=TIMEOUT, groups=()):
        """Run func() in a child process as uid/gid and return its (picklable) result; an
        exception in the child is re-raised here, a child that hangs is killed."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                os.setgroups(list(groups))
                os.setgid(gid)
                os.setuid(uid)
                out = (True, func())
            except BaseException as e:   # noqa: report anything to the parent
                out = (False, "%s: %s" % (type(e).__name__, e))
            try:
                os.write(w, pickle.dumps(out))
            finally:
                os._exit(0)
        os.close(w)
        data, deadline = b"", time.time() + timeout
        try:
            while True:
                left = deadline - time.time()
                if left <= 0 or not select.select([r], [], [], left)[0]:
                    os.kill(pid, signal.SIGKILL)
                    raise TimeoutError("the child running as uid %d did not finish" % uid)
                chunk = os.read(r, 65536)
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(r)
            os.waitpid(pid, 0)
        ok, val = pickle.loads(data) if data else (False, "the child died")
        if not ok:
            raise RuntimeError("as uid %d: %s" % (uid, val))
        return val

    def exe_for_others(self, path):
        """A copy of a built program that any uid can run, with the environment it needs: the
        checkout may sit in a directory only root can enter (/root, a 0700 home). A libtool
        wrapper is resolved to the real binary, and the build's own shared libraries are copied
        beside it."""
        dest = os.path.join(self.dir, "bin-for-others")
        os.makedirs(dest, exist_ok=True)
        os.chmod(dest, 0o755)
        libtool = os.path.join(TOP_BUILDDIR, "libtool")
        with open(path, "rb") as f:
            wrapped = f.read(4) != b"\x7fELF"
        if wrapped and os.path.exists(libtool):
            out = subprocess.run([libtool, "--mode=execute", "sh", "-c", 'printf "%s\\n%s\\n" "$1" "${LD_LIBRARY_PATH:-}"',
                                  "sh", path], capture_output=True, text=True, timeout=TIMEOUT, check=True).stdout
            real, libpath = (out.split("\n") + ["", ""])[:2]
        else:
            real, libpath = path, ""
        for d in filter(None, libpath.split(":")):
            if not os.path.realpath(d).startswith(os.path.realpath(TOP_BUILDDIR) + os.sep):
                continue
            for name in os.listdir(d):
                if ".so" in name and not os.path.isdir(os.path.join(d, name)):
                    shutil.copy(os.path.join(d, name), os.path.join(dest, name))
        exe = os.path.join(dest, os.path.basename(path))
        shutil.copy(real, exe)
        for name in os.listdir(dest):
            os.chmod(os.path.join(dest, name), 0o755)
        return exe, {"LD_LIBRARY_PATH": dest}

    def suspendctl_as(self, uid, gid, *args, timeout=TIMEOUT):
        """suspendctl run as another uid (from a copy that uid can reach)."""
        exe, extra = self.exe_for_others(SUSPENDCTL)
        e = dict(os.environ, SUSPENDD_SOCKET=self.socket, **extra)

        def drop():
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
        return subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=timeout, env=e,
                              preexec_fn=drop, cwd="/")


_pending = {}


def readline(stream, timeout=TIMEOUT):
    """One line from a child's pipe, or None when nothing comes within timeout (never hangs).
    Read a pipe only through this once it is used (it bypasses the stream's own buffer)."""
    fd = stream.fileno()
    deadline = time.time() + timeout
    buf = _pending.pop(fd, b"")
    while b"\n" not in buf:
        left = deadline - time.time()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            _pending[fd] = buf
            return None
        chunk = os.read(fd, 4096)
        if not chunk:
            return buf.decode() or None
        buf += chunk
    line, _, rest = buf.partition(b"\n")
    _pending[fd] = rest
    return line.decode() + "\n"
