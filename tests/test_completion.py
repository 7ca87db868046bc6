#!/usr/bin/python3
"""bash completion (completions/lidarsim.bash): _lidarsim driven through COMP_WORDS / COMP_CWORD.

usage: test_completion.py LIDARSIM_BINARY WORK_DIR

In a folder holding scene.yaml, cloud.ply, cloud.pcd, notes.txt, pic.png and a sub-folder, a
plain `bash --norc` sources the script (it needs no bash-completion helpers) and completes:
subcommands, an option prefix, option values (--format, --engine, --view, --color, --progress,
--fields after a comma), positional files by extension (scene files for scan, point files for
render), folders for output folders, bench's and pattern's subcommands, preset names (from
`lidarsim presets`, the binary found on PATH), and `lidarsim help CMD`. Then every option the
script offers for every subcommand is one the binary accepts (no "unknown option") and its
--help names. Exits 1 with one line per failed check.
"""
import os
import shlex
import subprocess
import sys
from timeouts import limit

BIN, TOP = os.path.abspath(sys.argv[1]), os.path.join(sys.argv[2], "completion")
WORK = os.path.join(TOP, "files")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "completions", "lidarsim.bash")
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


os.makedirs(os.path.join(WORK, "sub"), exist_ok=True)
for name in ("scene.yaml", "cloud.ply", "cloud.pcd", "notes.txt", "pic.png"):
    open(os.path.join(WORK, name), "w").close()
# the binary as `lidarsim` on PATH, as an installed one would be
bindir = os.path.join(TOP, "bin")
os.makedirs(bindir, exist_ok=True)
link = os.path.join(bindir, "lidarsim")
if not os.path.islink(link):
    os.symlink(BIN, link)
ENV = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"))


def complete(line):
    """The completions of `line` (the cursor at its end; a trailing space starts a new word)."""
    words = shlex.split(line) + ([""] if line.endswith(" ") else [])
    script = "source %s\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_lidarsim\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n" % (
        shlex.quote(SCRIPT), " ".join(shlex.quote(w) for w in words), len(words) - 1)
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], cwd=WORK, env=ENV, capture_output=True,
                       text=True, timeout=limit(60))
    check(p.returncode == 0 and not p.stderr, "%r: bash exit %d: %s" % (line, p.returncode, p.stderr.strip()))
    return sorted(w for w in p.stdout.split("\n") if w)


def expect(line, want):
    got = complete(line)
    check(got == sorted(want), "%r completes to %s, expected %s" % (line, got, sorted(want)))


expect("lidarsim sc", ["scan"])
expect("lidarsim p", ["pattern", "presets"])
expect("lidarsim scan --for", ["--format"])
expect("lidarsim scan --format ", ["csv", "kitti", "las", "mcap", "pcap", "pcd", "pcd-ascii", "ply"])
expect("lidarsim scan scene.yaml --engine r", ["raster", "raycast"])
expect("lidarsim scan ", ["scene.yaml", "sub"])
expect("lidarsim scan scene.yaml -o ", ["cloud.pcd", "cloud.ply", "sub"])
expect("lidarsim scan scene.yaml --bev ", ["pic.png", "sub"])
expect("lidarsim scan scene.yaml --fields x,in", ["x,incidence", "x,instance", "x,intensity"])
expect("lidarsim render ", ["cloud.pcd", "cloud.ply", "sub"])
expect("lidarsim render cloud.ply --view ", ["bev", "perspective", "range"])
expect("lidarsim render cloud.ply --color ", ["epw", "intensity", "label", "range", "reflectivity"])
expect("lidarsim view scene.yaml --color ", ["intensity", "label"])
expect("lidarsim dataset scene.yaml --progress ", ["auto", "lines", "off"])
expect("lidarsim dataset scene.yaml --points-format ", ["csv", "las", "pcd", "ply"])
expect("lidarsim dataset scene.yaml -o ", ["sub"])
expect("lidarsim bench ", ["blooming", "dataset", "fit", "pulses"])
expect("lidarsim bench pulses --r", ["--repeat", "--rings"])
expect("lidarsim pattern ", ["--help", "--version", "from-scan"])
expect("lidarsim pattern from-scan ", ["cloud.pcd", "cloud.ply", "sub"])
expect("lidarsim help re", ["render"])
expect("lidarsim presets vlp", ["vlp16"])
expect("lidarsim scan scene.yaml --seed ", [])

# every option offered is accepted by the binary and named by its --help
COMMANDS = ["scan", "presets", "bench", "bench blooming", "bench pulses", "bench fit", "bench dataset", "calibrate",
            "validate", "fit", "pattern from-scan", "dataset", "render", "view", "compare", "twin"]
for cmd in COMMANDS:
    opts = complete("lidarsim %s --" % cmd) + (["-o"] if "-o" in complete("lidarsim %s -" % cmd) else [])
    check("--help" in opts and "--version" in opts, "%s: --help and --version offered (%s)" % (cmd, opts))
    helptext = subprocess.run([BIN] + cmd.split() + ["--help"], capture_output=True, text=True, timeout=limit(60)).stdout
    for opt in opts:
        if opt in ("--help", "--version"):
            continue
        check((" %s " % opt) in helptext or (" %s," % opt) in helptext or ("%s\n" % opt) in helptext
              or ("[%s" % opt) in helptext or ("%s " % opt) in helptext,
              "%s: %s is offered but its --help does not name it" % (cmd, opt))
        # a trailing unknown option stops the command before it does anything
        p = subprocess.run([BIN] + cmd.split() + [opt, "--zz-not-an-option"], capture_output=True, text=True,
                           timeout=limit(120), cwd=WORK)
        check("unknown option '%s'" % opt not in p.stderr, "%s: %s is offered but unknown to lidarsim: %s"
              % (cmd, opt, p.stderr.strip()))

if FAILS:
    sys.exit(1)
print("test_completion: OK")
