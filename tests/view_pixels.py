"""What the viewer tests (test_cli_view.py, test_cli_view_keys.py) share: the scene they show, the
intensity colour map's table and pixel counts over it, and the environment for a run that opens a
window."""
import os

import numpy as np

# A VLP-16 at (0, 0, 1) on a 24 x 24 m road (SemanticKITTI colour magenta) with a red wall
# (traffic-sign, 255,0,0) 8 m ahead, a blue car (100,150,245) to its left and a sphere.
SCENE = """sensor:
  preset: vlp16
  position: [0, 0, 1.0]
objects:
  - plane: {size: [24, 24]}
    position: [0, 0, 0]
    label: road
  - box: {size: [0.2, 6, 3]}
    position: [8, 0, 1.5]
    label: traffic-sign
  - box: {size: [4, 1.8, 1.5]}
    position: [0, 6, 0.75]
    label: car
  - sphere: {radius: 0.6}
    position: [3, -4, 0.6]
    label: pole
"""
BACKGROUND = (30, 30, 36)

# viridis as src/pictures/colormap.c holds it (entries 0, 16, ..., 240, 255 of matplotlib's table)
VIRIDIS = np.array([
    (0, 68, 1, 84), (16, 72, 24, 106), (32, 71, 45, 123), (48, 66, 64, 134), (64, 59, 82, 139),
    (80, 51, 99, 141), (96, 44, 114, 142), (112, 38, 130, 142), (128, 33, 145, 140), (144, 31, 160, 136),
    (160, 40, 174, 128), (176, 63, 188, 115), (192, 94, 201, 98), (208, 132, 212, 75), (224, 173, 220, 48),
    (240, 216, 226, 25), (255, 253, 231, 37)], dtype=float)
VIRIDIS_LUT = np.stack([np.interp(np.arange(256), VIRIDIS[:, 0], VIRIDIS[:, k]) for k in (1, 2, 3)], axis=1)


def viridis_pixels(img):
    """Pixels within 12 (max over channels) of a colour of the intensity map."""
    flat = img.reshape(-1, 3).astype(np.int32)
    colours, counts = np.unique(flat, axis=0, return_counts=True)
    d = np.abs(colours[:, None, :] - VIRIDIS_LUT[None, :, :]).max(axis=2).min(axis=1)
    return int(counts[d <= 12].sum())


def is_viridis(p):
    return float(np.abs(VIRIDIS_LUT - np.asarray(p, float)).max(axis=1).min()) <= 12


def gl_env():
    """The environment for a run that opens the window. Under ASan with leak detection (make
    test-asan), leaks are not checked there: glfwTerminate unloads Mesa's GLX driver, which leaves
    240 bytes (3 allocations) that LeakSanitizer can only attribute to an unloaded module, so no
    suppression can name them. The runs that fail before any window (no display, a bad scene) keep
    leak detection and cover the viewer's clean-up on those paths."""
    env = dict(os.environ)
    if "detect_leaks=1" in env.get("ASAN_OPTIONS", ""):
        env["ASAN_OPTIONS"] = env["ASAN_OPTIONS"].replace("detect_leaks=1", "detect_leaks=0")
    return env
