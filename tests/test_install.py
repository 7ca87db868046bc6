#!/usr/bin/python3
"""`cmake --install` into a temporary prefix, and programs built against what it installed.

usage: test_install.py LIDARSIM_BINARY WORK_DIR   (the build folder is the binary's)

  a  the files: include/lidarsim.h, liblidarsim.so.X.Y.Z + .so.X + .so, liblidarsim.a, bin/lidarsim,
     the man page, the examples, lidarsim.pc, lidarsimConfig.cmake + lidarsimConfigVersion.cmake, LICENSE;
     bin/lidarsim needs liblidarsim.so.X and, copied with its prefix elsewhere, loads the copy's
  b  one version: CMakeLists.txt's project(VERSION) = the header's LSIM_VERSION_* = the library's
     file name and soname (major) = lsim_version_string() (c) = pkg-config --modversion =
     `lidarsim --version` = the man page's header line
  c  `cc plane_scan.c $(pkg-config --cflags --libs lidarsim)`: a wall 10 m ahead, 21 beams, every
     range 10 / cos(azimuth); also linked statically (pkg-config --static, liblidarsim.a)
  d  a CMake project with find_package(lidarsim X.Y.Z EXACT) and lidarsim::lidarsim builds and runs
     the same program
  e  nm -D: the shared library exports lsim_* symbols only, exactly the functions lidarsim.h declares
  f  the man page renders (man -l) without warnings
"""
import glob
import os
import shutil

from cli_check import binary_and_work, check, finish
from install_common import SAN_FLAGS, SOURCE, exported, header_functions, header_version, must, project_version, run

BINARY, WORK = binary_and_work(fresh=True)
BUILD = os.path.dirname(BINARY)
PREFIX = os.path.join(WORK, "prefix")
VERSION = project_version()
MAJOR = VERSION.split(".")[0]

# a: the files
must(["cmake", "--install", BUILD, "--prefix", PREFIX], "cmake --install")
libdirs = [d for d in glob.glob(os.path.join(PREFIX, "lib*")) + glob.glob(os.path.join(PREFIX, "lib", "*-linux-gnu"))
           if os.path.exists(os.path.join(d, "liblidarsim.so"))]
check(len(libdirs) == 1, "one library folder with liblidarsim.so under %s (found %s)" % (PREFIX, libdirs))
LIBDIR = libdirs[0] if libdirs else os.path.join(PREFIX, "lib")
for rel in ["include/lidarsim.h", "bin/lidarsim", "share/man/man1/lidarsim.1", "share/lidarsim/examples/street/street.yaml",
            "share/doc/lidarsim/LICENSE", "share/bash-completion/completions/lidarsim"]:
    check(os.path.isfile(os.path.join(PREFIX, rel)), "installed %s" % rel)
for rel in ["liblidarsim.so.%s" % VERSION, "liblidarsim.a", "pkgconfig/lidarsim.pc", "cmake/lidarsim/lidarsimConfig.cmake",
            "cmake/lidarsim/lidarsimConfigVersion.cmake"]:
    check(os.path.isfile(os.path.join(LIBDIR, rel)), "installed %s in %s" % (rel, LIBDIR))
check(os.readlink(os.path.join(LIBDIR, "liblidarsim.so.%s" % MAJOR)) == "liblidarsim.so.%s" % VERSION
      if os.path.islink(os.path.join(LIBDIR, "liblidarsim.so.%s" % MAJOR)) else False, "liblidarsim.so.%s -> .so.%s" % (MAJOR, VERSION))
check(os.path.islink(os.path.join(LIBDIR, "liblidarsim.so")), "liblidarsim.so is the development link")
SHARED = os.path.join(LIBDIR, "liblidarsim.so.%s" % VERSION)

# b: one version
HEADER = os.path.join(PREFIX, "include", "lidarsim.h")
check(header_version(HEADER) == VERSION, "header version %s = project version %s" % (header_version(HEADER), VERSION))
out = must(["readelf", "-d", SHARED], "readelf") or ""
check("[liblidarsim.so.%s]" % MAJOR in out, "soname liblidarsim.so.%s (readelf -d: %s)" % (MAJOR, out[:300]))
out = must([os.path.join(PREFIX, "bin", "lidarsim"), "--version"], "lidarsim --version") or ""
check(out.strip() == "lidarsim " + VERSION, "lidarsim --version says %r" % out.strip())
# the installed CLI is a program of the shared library, which it finds beside its prefix: moved
# elsewhere, the whole prefix still runs (RUNPATH $ORIGIN/../LIBDIR), with the moved library
dyn = must(["readelf", "-d", os.path.join(PREFIX, "bin", "lidarsim")], "readelf bin/lidarsim") or ""
check("[liblidarsim.so.%s]" % MAJOR in dyn and "$ORIGIN/../" in dyn,
      "bin/lidarsim needs liblidarsim.so.%s through a RUNPATH $ORIGIN/../...: %s" % (MAJOR, dyn[:600]))
MOVED = os.path.join(WORK, "moved-prefix")
shutil.copytree(PREFIX, MOVED, symlinks=True)
env_no_build = {"LD_LIBRARY_PATH": ""}
out = must([os.path.join(MOVED, "bin", "lidarsim"), "--version"], "moved prefix: lidarsim --version",
           env=env_no_build) or ""
check(out.strip() == "lidarsim " + VERSION, "moved prefix: lidarsim --version says %r" % out.strip())
out = must(["ldd", os.path.join(MOVED, "bin", "lidarsim")], "ldd moved bin/lidarsim", env=env_no_build) or ""
loaded = [line.split("=>")[1].split("(")[0].strip() for line in out.splitlines() if "liblidarsim" in line and "=>" in line]
check(len(loaded) == 1 and loaded[0].startswith(MOVED + "/"),
      "moved prefix: bin/lidarsim loads %s, expected the moved prefix's liblidarsim" % loaded)
shutil.rmtree(MOVED)
PKG_ENV = {"PKG_CONFIG_PATH": os.path.join(LIBDIR, "pkgconfig")}
out = must(["pkg-config", "--modversion", "lidarsim"], "pkg-config --modversion", env=PKG_ENV) or ""
check(out.strip() == VERSION, "pkg-config --modversion %r" % out.strip())
man = open(os.path.join(PREFIX, "share/man/man1/lidarsim.1")).read()
check('"lidarsim %s"' % VERSION in man, "the man page's .TH line names lidarsim %s" % VERSION)

# c: pkg-config, shared and static
PROG = os.path.join(SOURCE, "tests", "install", "plane_scan.c")
RUN_ENV = {"LD_LIBRARY_PATH": LIBDIR}
cflags = (must(["pkg-config", "--cflags", "lidarsim"], "pkg-config --cflags", env=PKG_ENV) or "").split()
libs = (must(["pkg-config", "--libs", "lidarsim"], "pkg-config --libs", env=PKG_ENV) or "").split()
check("-llidarsim" in libs, "pkg-config --libs names -llidarsim (%s)" % libs)
check(any(f.startswith("-I") and os.path.realpath(f[2:]) == os.path.realpath(os.path.join(PREFIX, "include"))
          for f in cflags), "pkg-config --cflags names the prefix's include folder (%s)" % cflags)
# lidarsim.h includes only the C library's headers: no other package's folders (cairo, glib, json-c,
# libxml2 came through Requires.private)
check(all(os.path.realpath(f[2:]) == os.path.realpath(os.path.join(PREFIX, "include")) for f in cflags
          if f.startswith("-I")) and not [f for f in cflags if not f.startswith("-I")],
      "pkg-config --cflags lidarsim adds nothing but the prefix's include folder: %s" % cflags)
exe = os.path.join(WORK, "plane_scan_pc")
if must(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", PROG, "-o", exe] + SAN_FLAGS + cflags + libs + ["-lm"],
        "cc with pkg-config"):
    out = must([exe], "plane_scan (pkg-config)", env=RUN_ENV) or ""
    check(out.startswith("ok 21"), "plane_scan (pkg-config) printed %r" % out)
    rc, out, err = run(["ldd", exe], env=RUN_ENV)
    check(SHARED.replace(VERSION, MAJOR) in out or os.path.join(LIBDIR, "liblidarsim.so." + MAJOR) in out,
          "plane_scan (pkg-config) loads the installed liblidarsim.so.%s (ldd: %s)" % (MAJOR, out))
static_libs = (must(["pkg-config", "--static", "--libs", "lidarsim"], "pkg-config --static --libs", env=PKG_ENV) or "").split()
static_libs = ["-l:liblidarsim.a" if f == "-llidarsim" else f for f in static_libs]
exe = os.path.join(WORK, "plane_scan_static")
if must(["cc", "-std=c11", PROG, "-o", exe] + SAN_FLAGS + cflags + static_libs + ["-lm"], "cc --static with pkg-config"):
    out = must([exe], "plane_scan (static)") or ""
    check(out.startswith("ok 21"), "plane_scan (static) printed %r" % out)
    rc, out, err = run(["ldd", exe])
    check("liblidarsim" not in out, "the static plane_scan needs no liblidarsim.so (ldd: %s)" % out)

# d: find_package
consumer = os.path.join(WORK, "consumer")
cmake_args = ["cmake", "-S", os.path.join(SOURCE, "tests", "install"), "-B", consumer, "-DCMAKE_PREFIX_PATH=" + PREFIX,
              "-DLSIM_EXPECT_VERSION=" + VERSION, "-DCMAKE_BUILD_TYPE=Release"]
if SAN_FLAGS:
    cmake_args.append("-DCMAKE_C_FLAGS=" + " ".join(SAN_FLAGS))
if must(cmake_args, "cmake (find_package consumer)") is not None and \
        must(["cmake", "--build", consumer], "cmake --build (find_package consumer)") is not None:
    out = must([os.path.join(consumer, "plane_scan")], "plane_scan (find_package)", env=RUN_ENV) or ""
    check(out.startswith("ok 21"), "plane_scan (find_package) printed %r" % out)
# A version of another minor series is refused (0.x: the ABI holds within a minor series only).
maj, mnr, _ = (int(x) for x in VERSION.split("."))
other = "%d.%d" % (maj, mnr + 1)
rc, out, err = run(["cmake", "-S", os.path.join(SOURCE, "tests", "install"), "-B", consumer + "_other",
                    "-DCMAKE_PREFIX_PATH=" + PREFIX, "-DLSIM_EXPECT_VERSION=" + other])
check(rc != 0 and "lidarsim" in out + err, "find_package(lidarsim %s EXACT) fails (rc %d)" % (other, rc))

# e: exports
symbols = exported(SHARED)
check(symbols and all(s.startswith("lsim_") for s in symbols),
      "only lsim_ symbols exported; others: %s" % [s for s in symbols if not s.startswith("lsim_")][:20])
declared = header_functions(HEADER)
check(len(declared) > 90, "found the header's declarations (%d)" % len(declared))
check(set(symbols) == declared, "exported = declared; not exported: %s; not declared: %s" %
      (sorted(declared - set(symbols)), sorted(set(symbols) - declared)))
# The build tree's library (what the Python bindings load) is the same.
check(set(exported(os.path.join(BUILD, "liblidarsim.so"))) == declared, "build/liblidarsim.so exports the same")

# f: the man page renders
if shutil.which("man"):
    rc, out, err = run(["man", "--warnings", "-l", os.path.join(PREFIX, "share/man/man1/lidarsim.1")],
                       env={"MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"})
    check(rc == 0 and "SYNOPSIS" in out and "lidarsim scan" in out, "man -l renders (rc %d): %s" % (rc, err[:500]))
    check(err.strip() == "", "man --warnings: %s" % err[:1000])
else:
    check(False, "man is not installed (Debian: man-db; make deps)")

finish("test_install")
