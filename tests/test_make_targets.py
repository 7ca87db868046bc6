#!/usr/bin/python3
"""The Makefile's targets do what the README says (issue 23), checked without running them.

usage: test_make_targets.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

  a  `make demo` (and `make`, `make install`) builds the library and the CLI only: the build folder
     that `make -n demo B=WORK/build` configures is configured here the same way, and the targets
     its build line names, with everything they depend on (CMakeFiles/Makefile2's rules), are
     lidarsim_objects, lidarsim, lidarsim_shared and lidarsim_cli: no test program, fuzz replay or
     bench program (it built 53 test programs first)
  b  plain `cmake --build` (the `all` target) in that folder builds the same, and the target
     lidarsim_tests builds every tests/test_*.c program
  c  `make -n check`: the core suite (ctest -LE interop), installing none of PCL, Open3D, node
  d  `make -n test-interop`: ctest -L interop, installing PCL, Open3D (and node unless present);
     `make -n test` runs the core suite, the sanitizer suite, the interop suite and deb-check
  e  `make -n deb-check`: the .deb is extracted (dpkg-deb -x) into a throwaway folder; no command
     installs or removes a package file (apt-get install without --simulate, dpkg -i, apt-get remove)
Exits 1 with one line per failed check.
"""
import glob
import os
import re
import shutil

from cli_check import binary_and_work, check, fail, finish, fresh_dir, run, source_dir

_, WORK = binary_and_work()
SRC = source_dir()
BUILD = os.path.join(WORK, "build")
LIB_AND_CLI = {"lidarsim_objects", "lidarsim", "lidarsim_shared", "lidarsim_cli"}


def dry_run(target):
    """The commands `make -n TARGET` prints (nothing is run), as one list of lines."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    p = run(["make", "-n", "--no-print-directory", "-C", SRC, target, "B=" + BUILD, "BA=" + BUILD + "-asan"],
            seconds=600, env=env)  # as run by make check or not
    check(p.returncode == 0, "make -n %s: exit %d: %s" % (target, p.returncode, p.stderr.strip()[-500:]))
    return p.stdout.splitlines()


def closure(makefile2, start):
    """The targets (NAME of CMakeFiles/NAME.dir) that building the nodes `start` builds."""
    edges = {}
    for line in open(makefile2, encoding="utf-8", errors="replace"):
        m = re.match(r"^([^\s#:]+): ?(\S*)\s*$", line)
        if m:
            edges.setdefault(m.group(1), []).append(m.group(2))
    seen, todo = set(), list(start)
    while todo:
        node = todo.pop()
        if node in seen or not node:
            continue
        seen.add(node)
        todo.extend(edges.get(node, []))
    return {m.group(1) for n in seen for m in [re.search(r"CMakeFiles/([^/]+)\.dir/all$", n)] if m}


def cmake_lines(lines):
    configure = [l for l in lines if re.match(r"^cmake -S \. -B ", l)]
    build = [l for l in lines if re.match(r"^cmake --build ", l)]
    return configure, build


def test_demo_builds_library_and_cli():
    fresh_dir(WORK)
    for target in ("demo", "build", "install"):
        configure, build = cmake_lines(dry_run(target))
        if not check(len(configure) == 1 and len(build) == 1,
                     "make %s: one configure and one build line (%s %s)" % (target, configure, build)):
            return
        m = re.search(r"--target\s+(.*)$", build[0])
        names = m.group(1).split() if m else []
        check(names and all(n in LIB_AND_CLI for n in names) and "lidarsim_cli" in names,
              "make %s builds named targets, the CLI among them, nothing else: %r" % (target, build[0]))
    configure, build = cmake_lines(dry_run("demo"))
    p = run(["bash", "-c", configure[0]], cwd=SRC, seconds=600)
    if not check(p.returncode == 0, "make demo's configure line failed: %s" % p.stderr[-800:]):
        return
    makefile2 = os.path.join(BUILD, "CMakeFiles", "Makefile2")
    if not check(os.path.isfile(makefile2), "make demo's configure line (%s) did not configure B=%s (Unix Makefiles)"
                 % (configure[0], BUILD)):
        return
    m = re.search(r"--target\s+(.*)$", build[0])
    start = ["CMakeFiles/%s.dir/all" % n for n in m.group(1).split()] if m else ["all"]
    built = closure(makefile2, start)
    print("make demo builds: %s" % " ".join(sorted(built)))
    check("lidarsim_cli" in built and built <= LIB_AND_CLI, "make demo builds %s" % sorted(built - LIB_AND_CLI))
    # b
    everything = closure(makefile2, ["all"])
    print("cmake --build (all) builds: %s" % " ".join(sorted(everything)))
    check("lidarsim_cli" in everything and everything <= LIB_AND_CLI,
          "cmake --build (all) builds more than the library and the CLI: %s" % sorted(everything - LIB_AND_CLI))
    tests = closure(makefile2, ["CMakeFiles/lidarsim_tests.dir/all"])
    programs = {os.path.basename(f)[:-2] for f in glob.glob(os.path.join(SRC, "tests", "test_*.c"))}
    check(programs <= tests, "lidarsim_tests leaves out %s" % sorted(programs - tests))
    print("lidarsim_tests builds %d targets (%d test programs)" % (len(tests), len(programs & tests)))
    shutil.rmtree(BUILD, ignore_errors=True)


INTEROP_PACKAGES = ("libpcl-dev", "python3-open3d", "nodejs", "npm")


def installs(lines, package):
    return any(re.search(r"\bfor p in [^;]*(?<![\w-])%s(?![\w-])" % re.escape(package), l) for l in lines)


def test_suites():
    lines = dry_run("check")
    ctest = [l for l in lines if "ctest" in l]
    check(len(ctest) == 1 and re.search(r"\s-LE interop\b", ctest[0]), "make check runs ctest -LE interop: %r" % ctest)
    for pkg in INTEROP_PACKAGES:
        check(not installs(lines, pkg), "make check installs %s" % pkg)
    check(installs(lines, "python3-numpy"), "make check installs python3-numpy")
    lines = dry_run("test-interop")
    ctest = [l for l in lines if "ctest" in l]
    check(len(ctest) == 1 and re.search(r"\s-L interop\b", ctest[0]), "make test-interop runs ctest -L interop: %r"
          % ctest)
    for pkg in ("libpcl-dev", "python3-open3d"):
        check(installs(lines, pkg), "make test-interop installs %s" % pkg)
    lines = dry_run("test")
    ctest = [l for l in lines if re.search(r"\bctest\b", l)]
    check(any(re.search(r"\s-LE interop\b", l) and "ASAN_OPTIONS" not in l for l in ctest), "make test: the core suite")
    check(any(re.search(r"\s-LE interop\b", l) and "ASAN_OPTIONS" in l for l in ctest), "make test: under ASan")
    check(any(re.search(r"\s-L interop\b", l) for l in ctest), "make test: the interop suite")
    check(any("dpkg-deb -x" in l for l in lines), "make test: deb-check")


def test_deb_check_installs_nothing():
    lines = dry_run("deb-check")
    text = "\n".join(lines)
    check("dpkg-deb -x" in text and "mktemp -d" in text, "deb-check extracts the .deb into a throwaway folder")
    for line in lines:
        if "lidarsim_" in line or ".deb" in line:
            check(not re.search(r"apt-get (-y )?install(?! --simulate)", line), "deb-check installs the .deb: %r" % line)
            check(not re.search(r"\bdpkg (-i|--install)\b", line), "deb-check installs the .deb: %r" % line)
        check(not re.search(r"apt-get (-y )?(remove|purge)|dpkg (-r|--remove|-P|--purge)", line),
              "deb-check removes a package: %r" % line)


def main():
    if not shutil.which("make"):
        fail("make is not installed (Debian: make)")
    else:
        test_demo_builds_library_and_cli()
        test_suites()
        test_deb_check_installs_nothing()
    finish("test_make_targets")


if __name__ == "__main__":
    main()
