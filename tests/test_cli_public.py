#!/usr/bin/python3
"""Issue 14: the command-line tool is a program of the public API, like any user's.

usage: test_cli_public.py LIDARSIM_BINARY WORK_DIR

  a  every file of src/cli/ includes only system headers (<...>), "lidarsim.h" and the CLI's own
     headers beside it (args.h, opts.h, commands.h, mpi_ranks.h), themselves checked the same way;
     no "stage/file.h" of the library (the build enforces it too: only include/ is on the CLI's
     include path, and with -Werror an undeclared call is an error)
  b  the binary needs liblidarsim.so.MAJOR (readelf's NEEDED) and defines none of the library's
     functions itself: every lsim_ function it defines is the CLI's own (lsim_cmd_, lsim_cli_,
     lsim_arg_, lsim_opts_, lsim_mpi_, lsim_print_version), and every library function it calls
     is undefined in it and declared in include/lidarsim.h
"""
import os
import re

from cli_check import binary_and_work, fail, finish, must

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "src", "cli")
BINARY, _ = binary_and_work()
OWN_HEADERS = {"args.h", "opts.h", "commands.h", "mpi_ranks.h"}
OWN_FUNCTIONS = re.compile(r"^lsim_(cmd|cli|arg|opts?|mpi)_|^lsim_print_version$")


# a: includes
files = sorted(n for n in os.listdir(CLI) if n.endswith((".c", ".h")))
if len(files) < 10:
    fail("src/cli/ has only %d sources: %s" % (len(files), files))
for name in files:
    text = open(os.path.join(CLI, name)).read()
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        if inc != "lidarsim.h" and inc not in OWN_HEADERS:
            fail('src/cli/%s includes "%s": the CLI may include only lidarsim.h and %s'
                 % (name, inc, ", ".join(sorted(OWN_HEADERS))))
missing = OWN_HEADERS - set(files)
if missing:
    fail("the CLI's own headers %s are not in src/cli/" % sorted(missing))

# b: the binary against the shared library
header = open(os.path.join(ROOT, "include", "lidarsim.h")).read()
public = set(re.findall(r"\b(lsim_[a-z0-9_]+)\s*\(", header))
dyn = must(["readelf", "-d", BINARY], "readelf -d") or ""
needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn)
if not any(re.fullmatch(r"liblidarsim\.so\.\d+", n) for n in needed):
    fail("%s does not link liblidarsim.so (NEEDED: %s)" % (BINARY, ", ".join(needed)))
symbols = must(["nm", BINARY], "nm") or ""
defined, undefined = set(), set()
for line in symbols.splitlines():
    parts = line.split()
    if len(parts) >= 2 and parts[-1].startswith("lsim_"):
        kind, name = parts[-2], parts[-1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TtDdBbRr":
            defined.add(name)
library_defined = sorted(n for n in defined if not OWN_FUNCTIONS.search(n))
if library_defined:
    fail("%s defines library functions itself: %s" % (BINARY, ", ".join(library_defined[:10])))
not_public = sorted(undefined - public)
if not_public:
    fail("%s calls functions outside include/lidarsim.h: %s" % (BINARY, ", ".join(not_public)))
if len(undefined) < 50:
    fail("%s calls only %d functions of the library; expected the commands' many" % (BINARY, len(undefined)))

finish("test_cli_public", "%d files of src/cli/ on lidarsim.h only; the binary calls %d public functions of %s"
       % (len(files), len(undefined), next(n for n in needed if n.startswith("liblidarsim"))))
