#!/usr/bin/python3
"""The .deb (CPack's DEB generator, as `make deb` builds it), checked without installing it.

usage: test_deb.py LIDARSIM_BINARY WORK_DIR   (the build folder is the binary's)

  a  cpack -G DEB writes lidarsim_VERSION_ARCH.deb
  b  dpkg-deb -I: Package lidarsim, Version = the project's, Architecture = dpkg's, Depends with
     the runtime libraries (dpkg-shlibdeps: libc6, Embree, assimp, libyaml, cairo, json-c, libxml2,
     liblbfgs, libgomp, libEGL, GLFW: the viewer)
  c  dpkg-deb -c: /usr/bin/lidarsim, /usr/lib/liblidarsim.so.X.Y.Z (+ links, .a), /usr/include/lidarsim.h,
     lidarsim.pc, the CMake package, the man page, the examples, the licence
  d  dpkg-deb -x into a folder: its lidarsim (LD_LIBRARY_PATH into it) scans the demo street scene
     (meshes from assimp-testmodels) and writes a non-empty PCD; `presets` lists vlp16
  e  its lidarsim.pc resolves into the folder: plane_scan.c built with it runs (a wall 10 m ahead)
"""
import glob
import os
import shutil

from cli_check import binary_and_work, check, finish
from install_common import SAN_FLAGS, SOURCE, must, project_version

BINARY, WORK = binary_and_work(fresh=True)
BUILD = os.path.dirname(BINARY)
VERSION = project_version()
MAJOR = VERSION.split(".")[0]

for tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps"):
    if not shutil.which(tool):
        check(False, "%s is not installed (Debian: cmake, dpkg, dpkg-dev; make deps)" % tool)
        finish("test_deb")

# a
PKGDIR = os.path.join(WORK, "pkg")
must(["cpack", "-G", "DEB", "-B", PKGDIR], "cpack -G DEB", cwd=BUILD, seconds=600)
arch = (must(["dpkg", "--print-architecture"], "dpkg --print-architecture") or "amd64").strip()
DEB = os.path.join(PKGDIR, "lidarsim_%s_%s.deb" % (VERSION, arch))
if not check(os.path.isfile(DEB), "cpack wrote %s (found %s)" % (DEB, glob.glob(os.path.join(PKGDIR, "*.deb")))):
    finish("test_deb")

# b
info = must(["dpkg-deb", "-I", DEB], "dpkg-deb -I") or ""
fields = {}
for line in info.splitlines():
    if line.startswith(" ") and ":" in line and not line.startswith("  "):
        k, _, v = line.strip().partition(":")
        fields[k] = v.strip()
check(fields.get("Package") == "lidarsim", "Package: %r" % fields.get("Package"))
check(fields.get("Version") == VERSION, "Version: %r" % fields.get("Version"))
check(fields.get("Architecture") == arch, "Architecture: %r" % fields.get("Architecture"))
depends = fields.get("Depends", "")
for lib in ("libc6", "libembree3", "libassimp", "libyaml-0-2", "libcairo2", "libjson-c", "libxml2", "liblbfgs0",
            "libgomp1", "libegl1", "libglfw3"):
    check(lib in depends, "Depends names %s: %r" % (lib, depends))
recommends = fields.get("Recommends", "")
for pkg in ("python3", "python3-numpy", "libegl-mesa0", "assimp-testmodels"):  # numpy: the Python package's
    check(pkg in [p.strip() for p in recommends.split(",")], "Recommends names %s: %r" % (pkg, recommends))

# c
listing = must(["dpkg-deb", "-c", DEB], "dpkg-deb -c") or ""
paths = set(line.split()[5] for line in listing.splitlines() if len(line.split()) >= 6)
libdir = "./usr/lib/%s-linux-gnu" % os.uname().machine if any(p.startswith("./usr/lib/%s-linux-gnu/liblidarsim" %
                                                                             os.uname().machine) for p in paths) else "./usr/lib"
for p in ["./usr/bin/lidarsim", "./usr/include/lidarsim.h", libdir + "/liblidarsim.so.%s" % VERSION,
          libdir + "/liblidarsim.so.%s" % MAJOR, libdir + "/liblidarsim.so", libdir + "/liblidarsim.a",
          libdir + "/pkgconfig/lidarsim.pc", libdir + "/cmake/lidarsim/lidarsimConfig.cmake",
          libdir + "/cmake/lidarsim/lidarsimConfigVersion.cmake", libdir + "/cmake/lidarsim/lidarsimTargets.cmake",
          "./usr/share/man/man1/lidarsim.1", "./usr/share/lidarsim/examples/street/street.yaml",
          "./usr/share/doc/lidarsim/LICENSE"]:
    check(p in paths, "the package holds %s" % p)
check(not [p for p in paths if not p.startswith("./usr/")], "everything under /usr")

# d
ROOT = os.path.join(WORK, "root")
must(["dpkg-deb", "-x", DEB, ROOT], "dpkg-deb -x")
LIB = os.path.join(ROOT, libdir[2:])
ENV = {"LD_LIBRARY_PATH": LIB}
CLI = os.path.join(ROOT, "usr", "bin", "lidarsim")
out = must([CLI, "presets"], "extracted lidarsim presets", env=ENV) or ""
check("vlp16" in out, "presets lists vlp16")
scene = os.path.join(ROOT, "usr", "share", "lidarsim", "examples", "street", "street.yaml")
pcd = os.path.join(WORK, "street.pcd")
if os.path.isdir("/usr/share/assimp/models"):
    out = must([CLI, "scan", scene, "-o", pcd, "--threads", "2"], "extracted lidarsim scans the street demo", env=ENV,
               seconds=600)
    if check(os.path.isfile(pcd), "street.pcd written"):
        head = open(pcd, "rb").read(2000).decode(errors="replace")
        pts = [l for l in head.splitlines() if l.startswith("POINTS ")]
        check(pts and int(pts[0].split()[1]) > 1000, "street.pcd has points: %s" % pts)
else:
    check(False, "assimp-testmodels is not installed (the demo's meshes; make deps)")

# e
pc_env = {"PKG_CONFIG_PATH": os.path.join(LIB, "pkgconfig")}
flags = (must(["pkg-config", "--cflags", "--libs", "lidarsim"], "pkg-config in the extracted package", env=pc_env) or "").split()
check(any(f.startswith("-I") and os.path.realpath(f[2:]) == os.path.realpath(os.path.join(ROOT, "usr", "include"))
          for f in flags), "the extracted lidarsim.pc points into the folder: %s" % flags)
exe = os.path.join(WORK, "plane_scan")
if must(["cc", "-std=c11", os.path.join(SOURCE, "tests", "install", "plane_scan.c"), "-o", exe] + SAN_FLAGS + flags +
        ["-lm"], "cc against the extracted package"):
    out = must([exe], "plane_scan against the extracted package", env=ENV) or ""
    check(out.startswith("ok 21"), "plane_scan printed %r" % out)

finish("test_deb")
