"""Shared by tests/test_install.py and tests/test_deb.py: the project's version and commands; the
checks and the summary are cli_check's."""
import os
import re

import cli_check
from cli_check import build_flag, source_dir

SOURCE = source_dir()
SANITIZE = build_flag("LSIM_SANITIZE")
# Programs built against a sanitized library need the sanitizer runtime first (make test-asan).
SAN_FLAGS = ["-fsanitize=address,undefined"] if SANITIZE else []


def run(cmd, env=None, cwd=None, seconds=300):
    """cli_check.run with `env` added to this environment: (exit status, stdout, stderr)."""
    return cli_check.run(cmd, add_env=env, cwd=cwd, seconds=seconds)


def must(cmd, what, env=None, cwd=None, seconds=300):
    """run() that must exit 0: its stdout, or None after a failed check (cli_check.must)."""
    return cli_check.must(cmd, what, add_env=env, cwd=cwd, seconds=seconds)


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
