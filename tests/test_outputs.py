#!/usr/bin/python3
"""Where `lidarsim scan -o` writes, and what a failure or a kill leaves behind.

usage: test_outputs.py LIDARSIM_BINARY WORK_DIR

  - `-o -` writes the cloud to standard output (byte-identical to the file), the summary goes to
    stderr; without --format, or with --format kitti, it is a usage error (exit 2) naming the fix;
  - character devices (/dev/null, a copy made with mknod), /dev/full and FIFOs are written straight
    through and stay what they are; /dev/full fails with "No space left on device";
  - a symlink's target is replaced atomically and the link stays a link (also dangling and
    relative links, and a link to a device); a replaced file keeps its permission bits;
  - a directory as output is refused with a message;
  - fault injection: a full tmpfs (mount -t tmpfs -o size=64k), a read-only mount, a path under a
    regular file (ENOTDIR), /proc, a missing directory, and a write failing half-way
    (RLIMIT_FSIZE with SIGXFSZ ignored: EFBIG mid-file) each exit 1 with a clear message and leave
    no partial or temporary file; a file that existed before keeps its old content;
  - SIGTERM, SIGINT and SIGHUP sent while a large output is being written (polled through
    /proc/PID/fd until the output's descriptor holds data) kill the process and leave no
    temporary file and no partial output; an existing output keeps its old content.
Cases that need root (mknod, mount) print "SKIP: <reason>" when not permitted.
Standard library only. Exits 1 with one line per failed check.
"""
import os
import resource
import signal
import stat
import subprocess
import threading

import repo_data
from cli_check import (Lidarsim, binary_and_work, check, expect_failure, finish, new_dir, read_bytes, run, run_parts,
                       signal_when, write)

BINARY, WORK = binary_and_work()
lidarsim = Lidarsim(BINARY, WORK, text=False)  # stdout as bytes: clouds written to standard output
skips = []


def skip(what):
    skips.append(what)
    print("SKIP: " + what)


def camera_scene(width, height):
    return ("sensor:\n  type: camera\n  width: %d\n  height: %d\n  hfov_deg: 60\n  vfov_deg: 45\n"
            "  range: [0.1, 50]\nmaterials:\n  wall: {brdf: lambertian, reflectance: 0.5}\n"
            "objects:\n  - plane: {size: [100, 100]}\n    position: [5, 0, 0]\n    rotation: [0, 90, 0]\n"
            "    material: wall\n    label: building\n" % (width, height))


def refused(name, args, cwd, inputs, exit_code=1, contains=(), any_of=(), preexec=None):
    """lidarsim ARGS in `cwd` fails cleanly: exit_code, each of `contains` and one of `any_of` in the
    message (case-insensitive), and `cwd` holding exactly `inputs` afterwards."""
    return expect_failure(name, lidarsim(*args, cwd=cwd, preexec_fn=preexec), cwd, inputs, exit_code, contains,
                          (any_of,) if any_of else ())


SMALL = camera_scene(40, 30)      # 1,200 points
MEDIUM = camera_scene(120, 90)    # 10,800 points: ~2 MB of CSV, ~0.9 MB of PCD
BIG = camera_scene(500, 400)      # 200,000 points: ~36 MB of CSV, written for a second or more


def reference(d, fmt, ext, scene="scene.yaml"):
    """The bytes of a regular-file output of `scene` in format `fmt`."""
    out = "ref_%s.%s" % (fmt, ext)
    code, _, err = lidarsim("scan", scene, "-o", out, "--format", fmt, "--quiet", cwd=d)
    check(code == 0, "reference %s: exit %d: %s" % (fmt, code, err.strip()))
    data = read_bytes(os.path.join(d, out)) if code == 0 else b""
    os.unlink(os.path.join(d, out)) if code == 0 else None
    return data


# ---- standard output -------------------------------------------------------------------------

def test_stdout():
    d = new_dir(WORK, "stdout")
    write(os.path.join(d, "scene.yaml"), SMALL)
    for fmt, ext in (("pcd", "pcd"), ("pcd-ascii", "pcd"), ("ply", "ply"), ("csv", "csv")):
        ref = reference(d, fmt, ext)
        code, out, err = lidarsim("scan", "scene.yaml", "-o", "-", "--format", fmt, cwd=d)
        check(code == 0, "stdout %s: exit %d: %s" % (fmt, code, err.strip()))
        check(out == ref, "stdout %s: %d bytes on stdout differ from the %d-byte file output" % (fmt, len(out), len(ref)))
        check("wrote standard output" in err, "stdout %s: the summary line is not on stderr: %r" % (fmt, err[:300]))
        check(os.listdir(d) == ["scene.yaml"], "stdout %s: files left: %s" % (fmt, os.listdir(d)))
    # --quiet: nothing but the data
    code, out, err = lidarsim("scan", "scene.yaml", "-o", "-", "--format", "csv", "--quiet", cwd=d)
    check(code == 0 and err == "" and out.startswith(b"x,"), "stdout --quiet: exit %d, stderr %r" % (code, err[:200]))
    refused("stdout_no_format", ["scan", "scene.yaml", "-o", "-"], d, ["scene.yaml"], exit_code=2,
            contains=["standard output", "--format"])
    refused("stdout_kitti", ["scan", "scene.yaml", "-o", "-", "--format", "kitti"], d, ["scene.yaml"],
            exit_code=2, contains=["kitti", "standard output", ".label"])
    refused("stdout_twice", ["scan", "scene.yaml", "-o", "-", "--format", "pcd", "--bev", "-"], d,
            ["scene.yaml"], exit_code=2, contains=["standard output"])
    # the bird's-eye image to stdout, the cloud to a file
    code, out, err = lidarsim("scan", "scene.yaml", "-o", "c.pcd", "--bev", "-", "--bev-size", "64", cwd=d)
    check(code == 0 and out[:8] == b"\x89PNG\r\n\x1a\n", "bev to stdout: exit %d, %r" % (code, out[:8]))
    check(sorted(os.listdir(d)) == ["c.pcd", "scene.yaml"], "bev to stdout: files %s" % os.listdir(d))


# ---- devices and FIFOs -----------------------------------------------------------------------

def is_char_device(path, major_minor):
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISCHR(st.st_mode) and (os.major(st.st_rdev), os.minor(st.st_rdev)) == major_minor


def test_devices():
    d = new_dir(WORK, "devices")
    write(os.path.join(d, "scene.yaml"), SMALL)
    own_null = os.path.join(d, "null")
    safe = True
    try:
        os.mknod(own_null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as e:
        skip("devices: mknod of a private null device not permitted (%s); testing /dev/null directly" % e.strerror)
        own_null = None
    if own_null:
        code, out, err = lidarsim("scan", "scene.yaml", "-o", own_null, "--format", "pcd", cwd=d)
        if code == 1 and "permission denied" in err.lower():  # a nodev mount
            skip("devices: the work folder is mounted nodev (%s)" % err.strip())
        else:
            check(code == 0, "private null device: exit %d: %s" % (code, err.strip()))
            safe = check(is_char_device(own_null, (1, 3)), "private null device: no longer a character device")
        check(sorted(os.listdir(d)) == ["null", "scene.yaml"], "private null device: files %s" % os.listdir(d))
    if not safe:
        skip("devices: /dev/null not tried, the private copy was replaced")
    elif is_char_device("/dev/null", (1, 3)):
        code, out, err = lidarsim("scan", "scene.yaml", "-o", "/dev/null", "--format", "csv", cwd=d)
        check(code == 0, "/dev/null: exit %d: %s" % (code, err.strip()))
        check(is_char_device("/dev/null", (1, 3)), "/dev/null is no longer the null device")
        check("wrote /dev/null" in out.decode(), "/dev/null: summary %r" % out[:200])
    if not safe:
        skip("devices: /dev/full not tried, the private copy was replaced")
    elif is_char_device("/dev/full", (1, 7)):
        err = refused("dev_full", ["scan", "scene.yaml", "-o", "/dev/full", "--format", "pcd"], d,
                      os.listdir(d), contains=["/dev/full", "no space left"])
        check(is_char_device("/dev/full", (1, 7)), "/dev/full is no longer the full device")
        refused("dev_full_kitti_name", ["scan", "scene.yaml", "-o", "/dev/full", "--format", "kitti"], d,
                os.listdir(d), exit_code=2, contains=[".bin"])
    else:
        skip("devices: no /dev/full here")


def test_fifo():
    d = new_dir(WORK, "fifo")
    write(os.path.join(d, "scene.yaml"), MEDIUM)
    ref = reference(d, "csv", "csv")
    fifo = os.path.join(d, "pipe.csv")
    os.mkfifo(fifo)
    got = []

    def reader():
        with open(fifo, "rb") as f:  # blocks until lidarsim opens the FIFO for writing
            got.append(f.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    code, out, err = lidarsim("scan", "scene.yaml", "-o", "pipe.csv", cwd=d, seconds=60)
    t.join(10)
    check(code == 0, "fifo: exit %d: %s" % (code, err.strip()))
    check(got and got[0] == ref, "fifo: the reader got %d bytes, the file output has %d (a probe must not open "
          "the FIFO)" % (len(got[0]) if got else -1, len(ref)))
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "fifo: no longer a FIFO")
    check(sorted(os.listdir(d)) == ["pipe.csv", "scene.yaml"], "fifo: files %s" % os.listdir(d))


def test_calibrate_fifo():
    """calibrate checks its output before the work without opening it: a FIFO gets the whole file."""
    config = repo_data.need(os.path.join(repo_data.RPLIDAR, "data.config"))
    d = new_dir(WORK, "calibrate_fifo")
    code, out, err = lidarsim("calibrate", config, "-o", "ref.yaml", cwd=d)
    check(code == 0, "calibrate fifo: reference run exit %d: %s" % (code, err.strip()))
    ref = read_bytes(os.path.join(d, "ref.yaml"))
    fifo = os.path.join(d, "pipe.yaml")
    os.mkfifo(fifo)
    got = []

    def reader():
        with open(fifo, "rb") as f:
            got.append(f.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    code, out, err = lidarsim("calibrate", config, "-o", "pipe.yaml", cwd=d)
    t.join(10)
    check(code == 0, "calibrate fifo: exit %d: %s" % (code, err.strip()))
    check(got and got[0] == ref, "calibrate fifo: the reader got %d bytes, the file has %d (the writability probe "
          "must not open the FIFO)" % (len(got[0]) if got else -1, len(ref)))
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "calibrate fifo: no longer a FIFO")


# ---- symlinks and directories ----------------------------------------------------------------

def test_symlinks():
    d = new_dir(WORK, "symlinks")
    write(os.path.join(d, "scene.yaml"), SMALL)
    ref = reference(d, "pcd", "pcd")
    # an existing target, mode 0640
    target = os.path.join(d, "target.pcd")
    write(target, b"old")
    os.chmod(target, 0o640)
    os.symlink("target.pcd", os.path.join(d, "link.pcd"))
    code, out, err = lidarsim("scan", "scene.yaml", "-o", "link.pcd", cwd=d)
    check(code == 0, "symlink: exit %d: %s" % (code, err.strip()))
    check(os.path.islink(os.path.join(d, "link.pcd")), "symlink: the link was replaced by a file")
    check(read_bytes(target) == ref, "symlink: the target does not hold the new cloud")
    check(stat.S_IMODE(os.stat(target).st_mode) == 0o640,
          "symlink: the target's mode changed to %o" % stat.S_IMODE(os.stat(target).st_mode))
    # a dangling link, through a relative chain into a subfolder
    os.makedirs(os.path.join(d, "sub"))
    os.symlink("sub/hop.pcd", os.path.join(d, "chain.pcd"))
    os.symlink("new.pcd", os.path.join(d, "sub", "hop.pcd"))
    code, out, err = lidarsim("scan", "scene.yaml", "-o", "chain.pcd", cwd=d)
    check(code == 0, "dangling chain: exit %d: %s" % (code, err.strip()))
    check(os.path.islink(os.path.join(d, "chain.pcd")) and os.path.islink(os.path.join(d, "sub", "hop.pcd")),
          "dangling chain: a link was replaced")
    new = os.path.join(d, "sub", "new.pcd")
    check(os.path.isfile(new) and read_bytes(new) == ref, "dangling chain: the final target was not written")
    check(not [n for n in os.listdir(d) + os.listdir(os.path.join(d, "sub")) if ".tmp." in n],
          "symlinks: temporary files left")
    # a link to a device stays a link, the device stays a device
    if os.path.exists("/dev/null"):
        os.symlink("/dev/null", os.path.join(d, "nul.pcd"))
        code, out, err = lidarsim("scan", "scene.yaml", "-o", "nul.pcd", cwd=d)
        check(code == 0, "link to /dev/null: exit %d: %s" % (code, err.strip()))
        check(os.path.islink(os.path.join(d, "nul.pcd")), "link to /dev/null: the link was replaced")
        check(stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is no longer a device")
    # a link loop
    os.symlink("loop_b.pcd", os.path.join(d, "loop_a.pcd"))
    os.symlink("loop_a.pcd", os.path.join(d, "loop_b.pcd"))
    refused("symlink_loop", ["scan", "scene.yaml", "-o", "loop_a.pcd"], d, os.listdir(d),
            contains=["loop_a.pcd"], any_of=["symbolic links", "symlink"])


def test_directories():
    d = new_dir(WORK, "directories")
    write(os.path.join(d, "scene.yaml"), SMALL)
    os.makedirs(os.path.join(d, "adir.pcd"))
    os.symlink("adir.pcd", os.path.join(d, "dirlink.pcd"))
    inputs = os.listdir(d)
    refused("output_dir", ["scan", "scene.yaml", "-o", "adir.pcd"], d, inputs,
            contains=["adir.pcd", "directory", "file name"])
    refused("output_dir_link", ["scan", "scene.yaml", "-o", "dirlink.pcd"], d, inputs,
            contains=["dirlink.pcd", "directory"])
    refused("output_slash", ["scan", "scene.yaml", "-o", "newdir/", "--format", "pcd"], d, inputs,
            contains=["newdir/", "directory"])
    refused("bev_dir", ["scan", "scene.yaml", "-o", "c.pcd", "--bev", "adir.pcd"], d, inputs,
            contains=["adir.pcd", "directory"])
    check(os.listdir(os.path.join(d, "adir.pcd")) == [], "output_dir: the directory was changed")


# ---- fault injection -------------------------------------------------------------------------

def mount_tmpfs(path, options):
    """Mount a tmpfs; returns None or the reason it could not be done."""
    os.makedirs(path, exist_ok=True)
    try:
        p = run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", path], seconds=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    return None if p.returncode == 0 else (p.stderr.strip() or "mount exited %d" % p.returncode)


def umount(path):
    run(["umount", path], seconds=30)


def test_full_tmpfs():
    d = new_dir(WORK, "full_tmpfs")
    write(os.path.join(d, "scene.yaml"), MEDIUM)
    mnt = os.path.join(d, "tiny")
    why = mount_tmpfs(mnt, "size=64k")
    if why:
        skip("full disk: cannot mount a 64 KiB tmpfs (%s)" % why)
        return
    try:
        for fmt, name in (("csv", "tiny/out.csv"), ("pcd", "tiny/out.pcd"), ("kitti", "tiny/out.bin")):
            refused("full_tmpfs_" + fmt, ["scan", "scene.yaml", "-o", name, "--format", fmt], d,
                    ["scene.yaml", "tiny"], contains=[name, "no space left", "disk is full"])
            check(os.listdir(mnt) == [], "full_tmpfs_%s: left in the full file system: %s" % (fmt, os.listdir(mnt)))
        # an existing output survives a failed replacement
        write(os.path.join(mnt, "keep.csv"), "old\n")
        refused("full_tmpfs_replace", ["scan", "scene.yaml", "-o", "tiny/keep.csv"], d,
                ["scene.yaml", "tiny"], contains=["no space left"])
        check(os.listdir(mnt) == ["keep.csv"] and read_bytes(os.path.join(mnt, "keep.csv")) == b"old\n",
              "full_tmpfs_replace: the old file was changed: %s" % os.listdir(mnt))
    finally:
        umount(mnt)


def test_unwritable():
    d = new_dir(WORK, "unwritable")
    write(os.path.join(d, "scene.yaml"), SMALL)
    write(os.path.join(d, "plain"), "not a folder\n")
    inputs = ["scene.yaml", "plain"]
    refused("missing_dir", ["scan", "scene.yaml", "-o", "nodir/out.pcd"], d, inputs,
            contains=["nodir/out.pcd", "does not exist"])
    refused("not_a_dir", ["scan", "scene.yaml", "-o", "plain/out.pcd"], d, inputs,
            contains=["plain/out.pcd", "not a directory"])
    refused("proc", ["scan", "scene.yaml", "-o", "/proc/lidarsim_out.pcd"], d, inputs,
            contains=["/proc/lidarsim_out.pcd"])
    check(not os.path.exists("/proc/lidarsim_out.pcd"), "proc: a file appeared in /proc")
    ro = os.path.join(d, "ro")
    why = mount_tmpfs(ro, "ro,size=64k")
    if why:
        skip("read-only folder: cannot mount a read-only tmpfs (%s); root ignores chmod 0555" % why)
        return
    try:
        refused("read_only", ["scan", "scene.yaml", "-o", "ro/out.pcd"], d, inputs + ["ro"],
                contains=["ro/out.pcd", "read-only"])
        check(os.listdir(ro) == [], "read_only: files in the read-only folder")
    finally:
        umount(ro)


def limit_file_size(limit):
    def preexec():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fwrite then fails with EFBIG instead of a kill
    return preexec


def test_write_fails_half_way():
    d = new_dir(WORK, "half_way")
    write(os.path.join(d, "scene.yaml"), MEDIUM)
    limit = 100000  # the CSV is ~2 MB, the PCD ~0.9 MB, the KITTI .bin ~170 kB (RLIMIT_FSIZE is per file)
    for fmt, name in (("csv", "out.csv"), ("pcd", "out.pcd"), ("kitti", "out.bin")):
        refused("efbig_" + fmt, ["scan", "scene.yaml", "-o", name, "--format", fmt], d, ["scene.yaml"],
                contains=[name, "file too large"], preexec=limit_file_size(limit))
    write(os.path.join(d, "keep.csv"), "old\n")
    refused("efbig_replace", ["scan", "scene.yaml", "-o", "keep.csv"], d, ["scene.yaml", "keep.csv"],
            contains=["file too large"], preexec=limit_file_size(limit))
    check(read_bytes(os.path.join(d, "keep.csv")) == b"old\n", "efbig_replace: the old file was changed")


# ---- signals during a write ------------------------------------------------------------------

def writing_descriptor(pid, folder):
    """The size of the output being written by `pid` into `folder` (an O_TMPFILE descriptor shows as
    'FOLDER/#123 (deleted)', a named temporary as 'FOLDER/NAME.tmp.XXXXXX'), or None."""
    fd_dir = "/proc/%d/fd" % pid
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return None
    for fd in fds:
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
            if target.startswith(folder + "/") and not target.endswith(".yaml"):
                return os.stat(os.path.join(fd_dir, fd)).st_size
        except OSError:
            continue
    return None


def default_signals():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # not inherited as ignored
        signal.signal(s, signal.SIG_DFL)


def test_signals():
    d = new_dir(WORK, "signals")
    write(os.path.join(d, "big.yaml"), BIG)
    for sig, output in ((signal.SIGTERM, "out.csv"), (signal.SIGINT, "out.csv"), (signal.SIGHUP, "out.csv"),
                        (signal.SIGTERM, "fresh.csv")):
        name = "%s_%s" % (signal.Signals(sig).name, output)
        existing = output == "out.csv"
        if existing:
            write(os.path.join(d, output), "old\n")
        inputs = sorted(["big.yaml"] + ([output] if existing else []))
        # signalled once data is written, far from all of it (tens of MB)
        caught, code, err = signal_when([BINARY, "scan", "big.yaml", "-o", output, "--threads", "2"], sig,
                                        lambda pid: writing_descriptor(pid, d), cwd=d, seconds=120, wait=60,
                                        preexec_fn=default_signals)
        if not check(caught is not None, "%s: never saw the output being written (exit %s: %s)" %
                     (name, code, err.strip())):
            continue
        check(code == -sig, "%s: exit %s, expected death by the signal (%s)" % (name, code, err.strip()))
        left = sorted(os.listdir(d))
        check(left == inputs, "%s: killed after %d bytes; the folder holds %s, expected %s" % (name, caught, left, inputs))
        if os.environ.get("LSIM_TEST_VERBOSE"):
            print("%s: signalled after %d bytes were written" % (name, caught))
        if existing:
            check(read_bytes(os.path.join(d, output)) == b"old\n", "%s: the existing output was changed" % name)
        for n in os.listdir(d):
            if n != "big.yaml":
                os.unlink(os.path.join(d, n))


def main():
    for name in os.listdir(WORK):  # rm -rf: earlier runs may have left read-only folders behind
        run(["rm", "-rf", os.path.join(WORK, name)])
    run_parts([test_stdout, test_devices, test_fifo, test_calibrate_fifo, test_symlinks, test_directories,
               test_full_tmpfs, test_unwritable, test_write_fails_half_way, test_signals], timed=True)
    finish("test_outputs", "all checks passed (%d case(s) skipped%s)" %
           (len(skips), ": " + "; ".join(skips) if skips else ""))


if __name__ == "__main__":
    main()
