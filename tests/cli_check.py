"""What the Python tests share: the failure list and check(), the command line ctest gives them, the
lidarsim binary run under the project's time limits, the summary and the exit status, and the small
readers and writers they all need.

ctest runs every tests/test_*.py as  test_x.py LIDARSIM_BINARY WORK_DIR  (tests/CMakeLists.txt). A
test reads like this:

    from cli_check import Lidarsim, check, finish, binary_and_work
    BINARY, WORK = binary_and_work(fresh=True)
    lidarsim = Lidarsim(BINARY, WORK)
    r = lidarsim("scan", "scene.yaml", "-o", "out.pcd")
    check(r.returncode == 0, "scan: exit %d: %s" % (r.returncode, r.stderr))
    finish("test_x")

A failed check prints "FAIL: WHAT" on stderr at once and the test goes on, so that one run lists
every failure; finish() prints the summary and exits 1 when any check failed (skip() exits 77,
which ctest counts as skipped). Time limits only catch hangs: a step's limit is timeouts.limit(BASE)
(BASE seconds times LSIM_TIMEOUT_SCALE), never a measure of speed.

Standard library only (numpy is imported by the readers that return arrays, when called).
"""
import json
import os
import shutil
import subprocess
import sys
import time

from timeouts import limit

failures = []


def check(cond, what):
    """A check: when `cond` is false, `what` is a failure (printed on stderr now). Returns bool(cond)."""
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)
    return bool(cond)


def fail(what):
    """A failed check."""
    return check(False, what)


def finish(name, passed="all checks passed", remove=None):
    """Exit: 1 with the number of failed checks on stderr, or 0 printing "NAME: PASSED" (removing the
    folder `remove` first, when given: a failed run keeps its files to look at)."""
    if failures:
        print("%s: %d check(s) failed" % (name, len(failures)), file=sys.stderr)
        sys.exit(1)
    if remove:
        shutil.rmtree(remove, ignore_errors=True)
    print("%s: %s" % (name, passed))
    sys.exit(0)


def skip(name, why):
    """Exit 77 (ctest's SKIP_RETURN_CODE for these tests), saying why."""
    print("%s: SKIPPED: %s" % (name, why))
    sys.exit(77)


def run_parts(parts, timed=False):
    """Call each of `parts` in turn; an exception in one is a failed check naming it, and the others
    still run. timed: print each part's wall time."""
    for part in parts:
        t0 = time.time()
        try:
            part()
        except Exception as e:  # one broken part must not hide the others
            fail("%s raised %s: %.2000s" % (part.__name__, type(e).__name__, e))
        if timed:
            print("%-28s %.1f s" % (part.__name__, time.time() - t0))


# ---- the command line and the work folder ------------------------------------------------------

def binary_and_work(fresh=False):
    """(LIDARSIM_BINARY, WORK_DIR) from the command line, as absolute paths; WORK_DIR is made, and
    emptied first when `fresh`."""
    if len(sys.argv) < 3:
        sys.exit("usage: %s LIDARSIM_BINARY WORK_DIR" % os.path.basename(sys.argv[0]))
    binary, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if fresh:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    return binary, work


def fresh_dir(*parts):
    """The folder os.path.join(*parts), emptied (made when absent); returns its path."""
    path = os.path.join(*parts)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def new_dir(*parts):
    """The folder os.path.join(*parts), made; it must not exist yet (one folder per case)."""
    path = os.path.join(*parts)
    os.makedirs(path)
    return path


def build_flag(name):
    """Whether the build's option `name` is on, as tests/CMakeLists.txt passes it (LSIM_HAVE_MPI,
    LSIM_SANITIZE: ON or OFF)."""
    return os.environ.get(name, "OFF").upper() in ("ON", "1", "TRUE", "YES")


def built_with_asan(binary):
    """Whether `binary`, or the liblidarsim.so beside it, is built with AddressSanitizer."""
    for path in (binary, os.path.join(os.path.dirname(binary), "liblidarsim.so")):
        if os.path.exists(path):
            with open(path, "rb") as f:
                if b"__asan_init" in f.read():
                    return True
    return False


def python_module_env(binary):
    """The environment of a child python3 that imports lidarsim's Python module (python/) with the
    liblidarsim.so built beside `binary`; in a sanitizer build the ASan runtime is preloaded (leak
    checking off: the interpreter's own allocations)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(source_dir(), "python"), PYTHONDONTWRITEBYTECODE="1",
               LIDARSIM_LIBRARY=os.path.join(os.path.dirname(binary), "liblidarsim.so"))
    if build_flag("LSIM_SANITIZE"):
        env["LD_PRELOAD"] = run(["gcc", "-print-file-name=libasan.so"]).stdout.strip()
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return env


def source_dir():
    """The source tree: LSIM_SOURCE_DIR (tests/CMakeLists.txt), or the folder above tests/."""
    return os.path.abspath(os.environ.get("LSIM_SOURCE_DIR")
                           or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


# ---- running programs ---------------------------------------------------------------------------

class Ran(subprocess.CompletedProcess):
    """A finished command: args, returncode, stdout, stderr (text with undecodable bytes replaced;
    stdout stays bytes with text=False), seconds (its wall time). It unpacks as
    (returncode, stdout, stderr), and r[1] is its stdout."""

    def __init__(self, args, returncode, stdout, stderr, seconds):
        super().__init__(args, returncode, stdout, stderr)
        self.seconds = seconds

    def __iter__(self):
        return iter((self.returncode, self.stdout, self.stderr))

    def __getitem__(self, i):
        return (self.returncode, self.stdout, self.stderr)[i]


def run(cmd, cwd=None, seconds=120, env=None, add_env=None, input=None, text=True, hang=False, **popen):
    """Run `cmd` (a list; numbers become text) to its end, capturing its output, for at most
    limit(seconds). env: the whole environment; add_env: variables added to this one's. input: text
    or bytes for its standard input. text=False: stdout stays bytes (stderr is always text). hang: a
    timeout is a returncode of -1 with "timed out after S s (a hang)" as stderr, not an exception."""
    if add_env:
        env = dict(os.environ if env is None else env, **add_env)
    if isinstance(input, str):
        input = input.encode()
    t0 = time.monotonic()
    cmd = [str(c) for c in cmd]
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=limit(seconds), **popen)
    except subprocess.TimeoutExpired:
        if not hang:
            raise
        return Ran(cmd, -1, "" if text else b"", "timed out after %g s (a hang)" % limit(seconds),
                   time.monotonic() - t0)
    wall = time.monotonic() - t0  # the process's own: before decoding its output
    out = p.stdout.decode("utf-8", "replace") if text else p.stdout
    return Ran(cmd, p.returncode, out, p.stderr.decode("utf-8", "replace"), wall)


class Lidarsim:
    """The lidarsim binary under test: lidarsim("scan", ...) runs it in `cwd` for at most
    limit(seconds) and returns a Ran. ok=True: a non-zero exit raises RuntimeError (for the steps a
    check needs, so that run_parts() reports the part). Further keywords are run()'s defaults for
    every call (hang=True: a hang is an exit of -1); each call may override any of them."""

    def __init__(self, binary, cwd=None, seconds=120, ok=False, **defaults):
        self.binary, self.cwd, self.seconds, self.must_pass, self.defaults = binary, cwd, seconds, ok, defaults

    def __call__(self, *args, cwd=None, seconds=None, ok=None, **kw):
        r = run([self.binary] + list(args), cwd=cwd or self.cwd, seconds=seconds or self.seconds,
                **dict(self.defaults, **kw))
        if (self.must_pass if ok is None else ok) and r.returncode != 0:
            raise RuntimeError("lidarsim %s failed (exit %d): %s" % (" ".join(map(str, args)), r.returncode, r.stderr))
        return r

    def ok(self, what, *args, **kw):
        """Run lidarsim ARGS: True when it exits 0, else a failed check named `what` (see ok())."""
        return ok(self(*args, ok=False, **kw), what)

    def refused(self, name, args, cwd, needles, code=1, seconds=None):
        """Run lidarsim ARGS (a list) in cwd and check that it refused (see refused()); its stderr."""
        return refused(name, self(*args, cwd=cwd, seconds=seconds, ok=False), needles, code)


def on_terminal(cmd, cwd=None, seconds=120, stdin=True, stdout=True, stderr=True, arrivals=None):
    """Run `cmd` with its standard streams on a new pseudo-terminal (python's pty; stdin=False: it
    keeps this one's, stdout=False or stderr=False: that stream goes to /dev/null), reading all it
    shows until it closes the terminal, then waiting at most limit(seconds) for its exit. A Ran
    whose stdout is the terminal's text; arrivals (a list) gets (seconds since the start, bytes) of
    every read."""
    import pty
    master, slave = pty.openpty()
    t0 = time.monotonic()
    cmd = [str(c) for c in cmd]
    p = subprocess.Popen(cmd, cwd=cwd, stdin=slave if stdin else None,
                         stdout=slave if stdout else subprocess.DEVNULL, stderr=slave if stderr else subprocess.DEVNULL)
    os.close(slave)
    shown = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        shown += data
        if arrivals is not None:
            arrivals.append((time.monotonic() - t0, data))
    os.close(master)
    rc = p.wait(timeout=limit(seconds))
    wall = time.monotonic() - t0
    return Ran(cmd, rc, shown.decode("utf-8", "replace"), "", wall)


def signal_when(cmd, sig, ready, cwd=None, seconds=60, wait=120, **popen):
    """Start `cmd` (stdout to /dev/null, stderr read), call ready(its pid) every 2 ms while it runs,
    for at most limit(seconds), and send it `sig` at ready()'s first true value; then wait at most
    limit(wait) for its exit (killed past that). Returns (that value, or None when it never came;
    the exit status; its stderr)."""
    p = subprocess.Popen([str(c) for c in cmd], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **popen)
    seen, deadline = None, time.monotonic() + limit(seconds)
    while p.poll() is None and time.monotonic() < deadline:
        value = ready(p.pid)
        if value:
            seen = value
            p.send_signal(sig)
            break
        time.sleep(0.002)
    try:
        _, err = p.communicate(timeout=limit(wait))
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    return seen, p.returncode, err.decode("utf-8", "replace")


def ok(r, what):
    """A check that the finished command `r` exited 0; the failure names it, its exit status and the
    ends of its output."""
    if r.returncode == 0:
        return True
    out = r.stdout.strip()[-2000:] if isinstance(r.stdout, str) else ""
    return fail("%s: %s exited %d\n%s" % (what, " ".join([os.path.basename(r.args[0])] + list(r.args[1:])),
                                          r.returncode, "\n".join(s for s in (out, r.stderr.strip()[-3000:]) if s)))


def must(cmd, what, **kw):
    """run(cmd, **kw) that must exit 0 (ok()): its stdout, or None after a failed check."""
    r = run(cmd, **kw)
    return r.stdout if ok(r, what) else None


def refused(name, r, needles, code=1):
    """Checks that the finished command `r` refused: exit status `code` and each of `needles` in its
    stderr (LSIM_TEST_VERBOSE=1 prints every refusal). Returns the stderr, stripped."""
    err = r.stderr.strip()
    if os.environ.get("LSIM_TEST_VERBOSE"):
        print("%-34s exit %d: %s" % (name, r.returncode, err[:300]))
    check(r.returncode == code, "%s: exit %d, expected %d: %s" % (name, r.returncode, code, err[:400]))
    for n in needles:
        check(n in err, "%s: the message lacks %r: %s" % (name, n, err[:400]))
    return err


def crashed(code, err):
    """Whether an exit looks like a crash: a signal, a shell's 128+, or a sanitizer's report."""
    return code < 0 or code >= 128 or "Sanitizer" in err or "runtime error" in err


def left_behind(folder, inputs):
    """The names in `folder` other than `inputs`, sorted (what a refused command must not leave)."""
    return sorted(set(os.listdir(folder)) - set(inputs))


def expect_failure(name, r, folder, inputs, exit_code=1, contains=(), any_of=()):
    """Checks a finished command `r` that bad input must stop cleanly: no crash, exit status
    `exit_code` (None: any but 0), every string of `contains` and at least one of each tuple of
    `any_of` in its stderr (case-insensitive), and `folder` holding nothing but `inputs` afterwards.
    LSIM_TEST_VERBOSE=1 prints each message. Returns the stderr."""
    code, err = r.returncode, r.stderr
    shown = err.strip().replace("\n", " | ")
    if os.environ.get("LSIM_TEST_VERBOSE"):
        print("%-28s exit %d: %s" % (name, code, shown[:400]))
    if crashed(code, err):
        return fail("%s: crashed (exit %d): %s" % (name, code, shown)) or err
    if exit_code is None:
        check(code != 0, "%s: exit status 0 on bad input" % name)
    else:
        check(code == exit_code, "%s: exit status %d, expected %d (%s)" % (name, code, exit_code, shown))
    low = err.lower()
    for s in contains:
        check(s.lower() in low, "%s: message lacks %r: %s" % (name, s, shown))
    for group in any_of:
        check(any(s.lower() in low for s in group), "%s: message lacks any of %r: %s" % (name, group, shown))
    left = left_behind(folder, inputs)
    check(not left, "%s: left files behind: %s" % (name, left))
    return err


def line_of(text, needle, nth=1):
    """The 1-based number of the nth line of `text` holding `needle` (AssertionError: a test bug)."""
    seen = 0
    for number, line in enumerate(text.split("\n"), 1):
        if needle in line:
            seen += 1
            if seen == nth:
                return number
    raise AssertionError("test bug: %r not in the text" % needle)


# ---- files ----------------------------------------------------------------------------------------

def write(path, data):
    """Write bytes, or text as UTF-8, to `path` (its folder made when absent); returns path."""
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, (bytes, bytearray)) else data.encode("utf-8"))
    return path


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read_json(path, what=None):
    """The JSON document of a file (a report, a summary). what: a file that is absent or not JSON is
    a failed check naming `what`, and None; without it, the error is raised."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        if what is None:
            raise
        fail("%s is valid JSON: %s" % (what, e))
        return None


def pcd_header(data, encoding="utf-8"):
    """(keys, offset, comments) of a PCD's bytes: its header keywords -> their words, where the
    points start, and its "#" lines (a header that is not `encoding` raises UnicodeDecodeError)."""
    keys, comments, pos = {}, [], 0
    while True:
        end = data.index(b"\n", pos)
        line = data[pos:end].decode(encoding).strip()
        pos = end + 1
        if line.startswith("#"):
            comments.append(line)
            continue
        if not line:
            continue
        key, *words = line.split()
        keys[key] = words
        if key == "DATA":
            return keys, pos, comments


def pcd_dtype(keys):
    """The numpy record type of a PCD's FIELDS, SIZE and TYPE (F: float, U: unsigned, I: signed)."""
    import numpy as np
    return np.dtype([(n, "<%s%s" % ({"F": "f", "U": "u", "I": "i"}[t], s))
                     for n, t, s in zip(keys["FIELDS"], keys["TYPE"], keys["SIZE"])])


def read_pcd(source):
    """The points of a binary PCD (a path, or the file's bytes) as a numpy structured array, every
    field by its name; ValueError for an ascii PCD or a data size that is not POINTS records."""
    import numpy as np
    data = source if isinstance(source, (bytes, bytearray)) else read_bytes(source)
    keys, pos, _ = pcd_header(data)
    where = "a PCD" if isinstance(source, (bytes, bytearray)) else source
    if keys["DATA"] != ["binary"]:
        raise ValueError("%s: not a binary PCD (DATA %s)" % (where, " ".join(keys["DATA"])))
    dtype, n = pcd_dtype(keys), int(keys["POINTS"][0])
    if len(data) - pos != n * dtype.itemsize:
        raise ValueError("%s: %d data bytes for %d points of %d bytes" % (where, len(data) - pos, n, dtype.itemsize))
    return np.frombuffer(data, dtype=dtype, count=n, offset=pos)


def read_csv(source):
    """A CSV (a path, or the file's bytes) with a header line, after any "#" lines, as
    {name: float64 column} (numpy)."""
    import numpy as np
    text = source.decode() if isinstance(source, (bytes, bytearray)) else read_bytes(source).decode()
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    names = lines[0].strip().split(",")
    data = (np.loadtxt(lines[1:], delimiter=",", ndmin=2, dtype=np.float64) if len(lines) > 1
            else np.zeros((0, len(names))))
    data = data.reshape(-1, len(names))
    return {n: data[:, i] for i, n in enumerate(names)}
