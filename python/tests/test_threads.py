"""One Scene used from several Python threads (issue 23): Scene.scan from four threads at once, and
Fit.run in one thread while others scan the same scene. ctypes releases the GIL during each C call,
so the calls really overlap; the scene's frame workspace and engine were shared without a lock and
the interpreter crashed (or frames came back mixed). Now the library serialises the calls on one
scene (lsim_scene_scan's lock), and every frame equals the same frame scanned alone. Each case runs
in a child interpreter, so a crash fails the test instead of ending the test run."""
import os
import subprocess
import sys
import textwrap

from conftest import ROOT

# Time limits only catch hangs: LSIM_TIMEOUT_SCALE (tests/CMakeLists.txt, tests/timeouts.py) widens them.
HANG = max(float(os.environ.get("LSIM_TIMEOUT_SCALE") or 1), 1.0)


def isolated(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python")] + sys.path))
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                       timeout=HANG * 600)
    assert p.returncode == 0, "child exited with %d (a signal if negative)\n%s\n%s" % (p.returncode, p.stdout,
                                                                                    p.stderr)
    return p.stdout


PRELUDE = """
import threading
import time
import numpy as np
import lidarsim

scene = lidarsim.Scene()
scene.add_lambertian("wall", 0.6)
scene.add_box((30, 20, 8), material="wall", label="building")
scene.add_box((1.5, 1.0, 1.2), position=(4, 1.5, 0), label="car", velocity=(0, 2, 0))  # moves: placed per frame
scene.add_box((0.5, 0.5, 3), position=(-3, -4, 0), label="pole")
def small_lidar():  # 8 channels x 450 columns: frames of milliseconds
    return lidarsim.Sensor.rotating(np.linspace(-15, 15, 8), 450)

sensor = small_lidar()

def frame(k, into=None):
    return scene.scan(sensor, seed=100 + k, frame_index=k, scan_time=0.25 * k, threads=2, into=into)

THREADS, ROUNDS = 4, 4
alone = [np.array(frame(k)) for k in range(THREADS)]  # each frame scanned alone first
assert all(not np.array_equal(alone[k], alone[0]) for k in range(1, THREADS))
spans, same, errors = [], [], []
barrier = threading.Barrier(THREADS)
"""


def test_scans_from_four_threads_equal_the_frames_alone():
    out = isolated(PRELUDE + """
def worker(k):
    try:
        buf = lidarsim.PointBuffer()
        for r in range(ROUNDS):
            barrier.wait()  # the threads start each round together
            t0 = time.perf_counter()
            pts = frame(k, into=buf if r % 2 else None)  # a new buffer, then the thread's reused one
            spans.append((t0, time.perf_counter()))
            same.append(np.array_equal(np.array(pts), alone[k]))
    except BaseException as e:
        errors.append(repr(e))
        barrier.abort()

threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
spans.sort()
overlaps = sum(b[0] < a[1] for a, b in zip(spans, spans[1:]))
print(len(same), sum(same), overlaps > 0, errors)
""")
    frames, equal, overlapped, errors = out.split(" ", 3)
    assert errors.strip() == "[]"
    assert int(frames) == 16 and int(equal) == 16  # every frame bit for bit as alone
    assert overlapped == "True"  # the calls ran at once (ctypes released the GIL)


def test_fit_run_while_other_threads_scan():
    out = isolated(PRELUDE + """
static = lidarsim.Scene()
static.add_box((30, 20, 8), label="building")
static.add_box((1.5, 1.0, 1.2), position=(4, 1.5, 0), label="car")
static.add_box((0.5, 0.5, 3), position=(-3, -4, 0), label="pole")
truth = small_lidar().set_pose((0, 0, 0.3))
real = static.scan(truth, noise=False, keep_misses=True)["range"].copy()

def fit():
    s = small_lidar().set_pose((0.3, -0.2, 0.3), (0, 0, 4))
    f = lidarsim.Fit(static, s, "se2").set_scan(real)
    return f.run(max_iterations=20)

ref = fit()  # the fit alone
scene = static  # the scanners below scan the fit's scene
alone = [np.array(frame(k)) for k in range(1, THREADS)]
result = []

def fitter():
    try:
        barrier.wait()
        t0 = time.perf_counter()
        result.append(fit())
        spans.append((t0, time.perf_counter()))
    except BaseException as e:
        errors.append(repr(e))
        barrier.abort()

def scanner(k):
    try:
        barrier.wait()
        for r in range(ROUNDS):
            t0 = time.perf_counter()
            pts = frame(k)
            spans.append((t0, time.perf_counter()))
            same.append(np.array_equal(np.array(pts), alone[k - 1]))
    except BaseException as e:
        errors.append(repr(e))
        barrier.abort()

threads = [threading.Thread(target=fitter)] + [threading.Thread(target=scanner, args=(k,)) for k in range(1, THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
r = result[0]
print(len(same), sum(same), r.iterations == ref.iterations and r.evaluations == ref.evaluations,
      r.parameters == ref.parameters, abs(ref.parameters["sensor.x"]) < 0.05, errors)
""")
    frames, equal, same_run, same_params, found, errors = out.split(" ", 5)
    assert errors.strip() == "[]"
    assert int(frames) == 12 and int(equal) == 12
    assert same_run == "True" and same_params == "True"  # the fit ends exactly where it ends alone
    assert found == "True"
