"""Time limits in the tests only catch hangs (issue 23): no test may depend on the machine's speed.

Every per-step limit (subprocess timeouts, waits, deadlines) is limit(BASE), BASE seconds times
LSIM_TIMEOUT_SCALE, which tests/CMakeLists.txt sets (3 in a Release build, 15 under the
sanitizers; -DLSIM_TIMEOUT_SCALE=N, or the environment variable when a test is run by hand,
widens them on a slower machine) and by which it also multiplies ctest's TIMEOUTs. A BASE is
chosen so that limit(BASE) is at least 10 times what the step takes on a loaded machine (load 8 on
2 cores) in that build.
"""
import os


def _scale():
    try:
        value = float(os.environ.get("LSIM_TIMEOUT_SCALE") or 1)
    except ValueError:
        value = 1.0
    return max(value, 1.0)


SCALE = _scale()


def limit(seconds):
    """The hang-catching limit of a step that BASE `seconds` would bound on an idle machine."""
    return seconds * SCALE
