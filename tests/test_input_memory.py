#!/usr/bin/python3
"""Any input of up to 16 MiB is read within the memory bound docs/robustness.md
documents for it: point files, scene files, trajectories and meshes (calibration files have their
own test, test_unit_limits).

usage: test_input_memory.py LIDARSIM_BINARY WORK_DIR

Each file is generated here at about 16 MiB, of the shape that costs most per byte for its reader
(the shortest rows of a point file, a scene of the shortest objects, a long list value, the shortest
trajectory rows, an ASCII PLY of the shortest lines), and given to the command that reads it. The
command may accept it or refuse it at a documented limit; either way the child's peak memory
(ru_maxrss from wait4) must stay under BOUND_MB (three times that under AddressSanitizer, whose
quarantine keeps up to 256 MB of freed memory and whose shadow and redzones add to every allocation:
408 MB for the CSV, 633 MB for the PLY). Time limits only catch hangs; no speed is asserted.
Measured in Release: 187 MB (CSV render: 2 M points), 16 MB (scene list and boxes, refused at the
values limit), 118 MB (trajectory: 1.5 M keyframes), 109 MB (PLY mesh: 1.5 M vertices, 0.9 M
faces). Standard library only. Exits 1 with one line per failure.
"""
import os

from cli_check import binary_and_work, built_with_asan, check, finish
from timeouts import limit

BINARY, WORK = binary_and_work()
SIXTEEN_MIB = 16 << 20
BOUND_MB = 256  # docs/robustness.md: any input of up to 16 MiB is read in at most 256 MB
LIMIT_MB = BOUND_MB * 3 if built_with_asan(BINARY) else BOUND_MB


def peak_of(name, args):
    """Run args in WORK (output to a log), return (exit code, peak MB) of that child."""
    log = os.open(os.path.join(WORK, name + ".log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(WORK)
            os.dup2(log, 1)
            os.dup2(log, 2)
            os.execv(args[0], args)
        finally:
            os._exit(127)
    os.close(log)
    import signal
    signal.signal(signal.SIGALRM, lambda *_: os.kill(pid, signal.SIGKILL))
    signal.alarm(int(limit(300)))
    _, status, ru = os.wait4(pid, 0)
    signal.alarm(0)
    return os.waitstatus_to_exitcode(status), ru.ru_maxrss / 1024.0


def write(name, head, line, tail=""):
    with open(os.path.join(WORK, name), "w") as f:
        f.write(head)
        f.write(line * ((SIXTEEN_MIB - len(head) - len(tail)) // len(line)))
        f.write(tail)


def run(name, args, may_refuse):
    code, mb = peak_of(name, [BINARY] + args)
    print("%-22s exit %d, peak %.1f MB (bound %d MB)" % (name, code, mb, LIMIT_MB))
    check(code == 0 or (may_refuse and code == 1), "%s: exit %d (see %s.log)" % (name, code, name))
    check(mb < LIMIT_MB, "%s: peak %.1f MB, over the %d MB bound" % (name, mb, LIMIT_MB))


# Point file: 16 MiB of the shortest CSV rows, drawn by render.
write("points.csv", "x,y,z,intensity\n", "1,2,0,1\n")
run("render_csv", ["render", "points.csv", "-o", "points.png"], may_refuse=False)
# Scene: one list value of 8 M numbers, and 16 MiB of the shortest objects.
write("list.yaml", "sensor: {preset: vlp16}\nobjects:\n- {type: plane, size: [", "1,", "1]}\n")
run("scene_list", ["scan", "list.yaml", "-o", "list.pcd"], may_refuse=True)
write("boxes.yaml", "sensor: {preset: vlp16}\nobjects:\n", "- {box: {size: [1,1,1]}}\n")
run("scene_boxes", ["scan", "boxes.yaml", "-o", "boxes.pcd"], may_refuse=True)
# Trajectory: 16 MiB of keyframes (about 1 M rows) for a sensor.
with open(os.path.join(WORK, "traj.csv"), "w") as f:
    rows, size, n = ["t,x,y,z,roll,pitch,yaw\n"], 0, 0
    while size < SIXTEEN_MIB - 64:
        rows.append("%d,0,0,0,0,0,0\n" % n)
        size += len(rows[-1])
        n += 1
    f.write("".join(rows))
with open(os.path.join(WORK, "traj.yaml"), "w") as f:
    f.write("sensor: {preset: vlp16, trajectory: {file: traj.csv}}\n"
            "objects:\n- {box: {size: [1, 1, 1]}, position: [5, 0, 0]}\n")
run("trajectory", ["scan", "traj.yaml", "-o", "traj.pcd"], may_refuse=True)
# Mesh: an ASCII PLY of about 16 MiB of the shortest vertex and face lines.
nv = 1500000
nf = 900000
with open(os.path.join(WORK, "mesh.ply"), "w") as f:
    f.write("ply\nformat ascii 1.0\nelement vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
            "element face %d\nproperty list uchar int vertex_indices\nend_header\n" % (nv, nf))
    f.write("0 0 0\n1 0 0\n0 1 0\n" * (nv // 3))
    f.write("3 0 1 2\n" * nf)
with open(os.path.join(WORK, "mesh.yaml"), "w") as f:
    f.write("sensor: {preset: vlp16}\nobjects:\n- {mesh: mesh.ply, position: [5, 0, 0]}\n")
check(os.path.getsize(os.path.join(WORK, "mesh.ply")) <= SIXTEEN_MIB, "mesh.ply is over 16 MiB")
run("mesh_ply", ["scan", "mesh.yaml", "-o", "mesh.pcd"], may_refuse=True)

finish("test_input_memory", "every 16 MiB input read under %d MB" % LIMIT_MB)
