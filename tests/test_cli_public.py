#!/usr/bin/python3
"""Issue 14: the CLI moves to the public header, command by command.

usage: test_cli_public.py LIDARSIM_BINARY WORK_DIR   (both unused: it reads src/cli/)

  a  every file in PUBLIC_ONLY includes no internal header: only system headers (<...>),
     "lidarsim.h" and headers of src/cli/ that are themselves public-only (checked the same way),
     so with -Werror (implicit declarations are errors in C11) it can call nothing but the
     public API (and the CLI's own helpers)
  b  the files not yet there are listed with the internal headers they still include (printed,
     not failed), so the list shrinks visibly; a file that became public-only must join PUBLIC_ONLY
"""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
CLI = os.path.join(SRC, "cli")
# Files of src/cli/ on the public API only.
PUBLIC_ONLY = ["args.h", "cmd_bench.c", "cmd_presets.c", "cmd_view.c", "commands.h", "main.c", "mpi_ranks.c", "mpi_ranks.h", "opts.c", "opts.h"]
failures = []


def includes(name):
    text = open(os.path.join(CLI, name)).read()
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M)


def internal(name, seen=None):
    """The internal headers `name` includes, directly or through src/cli/ headers."""
    seen = seen if seen is not None else set()
    if name in seen:
        return []
    seen.add(name)
    bad = []
    for inc in includes(name):
        if inc == "lidarsim.h":
            continue
        if inc.startswith("cli/") and os.path.isfile(os.path.join(SRC, inc)):
            sub = internal(os.path.basename(inc), seen)
            if sub:
                bad.append("%s (through it: %s)" % (inc, ", ".join(sub)))
            continue
        bad.append(inc)
    return bad


for name in PUBLIC_ONLY:
    bad = internal(name)
    if bad:
        failures.append("%s is listed public-only but includes %s" % (name, ", ".join(bad)))
        print("FAIL: " + failures[-1], file=sys.stderr)

print("src/cli files still on internal headers:")
for name in sorted(os.listdir(CLI)):
    if not name.endswith((".c", ".h")) or name in PUBLIC_ONLY:
        continue
    bad = internal(name)
    if bad:
        print("  %-16s %s" % (name, ", ".join(bad)))
    else:
        failures.append("%s includes only public headers: add it to PUBLIC_ONLY" % name)
        print("FAIL: " + failures[-1], file=sys.stderr)

if failures:
    sys.exit(1)
print("test_cli_public: all checks passed")
