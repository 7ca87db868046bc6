"""Shared by tests/test_install.py and tests/test_deb.py: the project's version, commands, checks."""
import os
import re
import subprocess
import sys
from timeouts import limit

SOURCE = os.environ.get("LSIM_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SANITIZE = os.environ.get("LSIM_SANITIZE", "OFF").upper() in ("ON", "1", "TRUE", "YES")
# Programs built against a sanitized library need the sanitizer runtime first (make test-asan).
SAN_FLAGS = ["-fsanitize=address,undefined"] if SANITIZE else []
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)
    return bool(cond)


def run(cmd, env=None, cwd=None, timeout=limit(300)):
    full = dict(os.environ)
    if env:
        full.update(env)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full, cwd=cwd, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def must(cmd, what, **kw):
    rc, out, err = run(cmd, **kw)
    if not check(rc == 0, "%s: %s exited %d\n%s%s" % (what, " ".join(cmd), rc, out[-2000:], err[-3000:])):
        return None
    return out


def project_version():
    text = open(os.path.join(SOURCE, "CMakeLists.txt")).read()
    return re.search(r"project\(lidarsim VERSION (\d+\.\d+\.\d+)", text).group(1)


def header_version(header):
    text = open(header).read()
    return ".".join(re.search(r"#define LSIM_VERSION_%s (\d+)" % p, text).group(1) for p in ("MAJOR", "MINOR", "PATCH"))


def header_functions(header):
    """Every function include/lidarsim.h declares (LSIM_API ... name(...)."""
    text = open(header).read()
    return set(re.findall(r"^LSIM_API [^;(]*?\b(lsim_\w+)\s*\(", text, re.M))


def exported(lib):
    out = must(["nm", "-D", "--defined-only", lib], "nm") or ""
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


def finish(name):
    if failures:
        print("%s: %d failure(s)" % (name, len(failures)), file=sys.stderr)
        sys.exit(1)
    print("%s: all checks passed" % name)
