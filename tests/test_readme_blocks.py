#!/usr/bin/python3
"""The README's and the documentation site's fenced code blocks run as written (issues 14, 26).

usage: test_readme_blocks.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

Every fenced block of README.md, then of every page of the site, docs/**/*.md (sorted by path,
subfolders included), in document order, in one scratch
tree WORK_DIR/tree (a copy of examples/, links to python/, tools/, include/, tests/, the
repository's data/ and the build's binary and library under build/; nothing outside the
repository is linked, so the blocks run as they do in a fresh clone):
  sh / bash / shell  every logical line (`\\` continuations joined; blank and comment lines
                     skipped) runs with bash in the tree, `lidarsim` and `build/lidarsim` being the
                     binary under test; each must exit 0. A line whose comment says
                     `# not run: REASON` is not run (counted as marked).
  yaml               a complete scene (a root `objects:` key) is written to a file in the tree and
                     scanned: `lidarsim scan FILE -o FILE.csv --noise off` must exit 0 and write
                     at least one point. A block marked `<!-- fragment -->` must parse as YAML
                     (with python3's yaml module; skipped, and counted so, without it).
                     `<!-- file: PATH -->` before it says the block is the scene file PATH of
                     the repository: the block must equal that file, and the tree's copy is
                     scanned.
  python             runs with /usr/bin/python3, PYTHONPATH=python, LIDARSIM_LIBRARY the build's
                     liblidarsim.so; exit 0. `<!-- file: PATH -->` before it says the block is
                     the file PATH: the block must equal that file, and the tree's copy runs.
  c                  with a main(): compiled against include/ and the build's library, run, exit 0.
                     Without one it must be marked `<!-- fragment -->`.
  no language, text  output listings: not code, counted.
  anything else      (cmake, ...) must be marked.
A block that cannot run in a test is marked with an HTML comment on the line before it (blank
lines between allowed): `<!-- not run: REASON -->` (the reason is printed). An unmarked block
that cannot run fails the test; nothing is skipped silently. Prints the blocks run and marked by
kind and file. Exits 1 with one line per failed check.
"""
import glob
import os
import re
import shutil
import subprocess
import time

from cli_check import binary_and_work, fail, finish
from timeouts import limit

BINARY, WORK = binary_and_work()
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.environ.get("LSIM_SOURCE_DIR") or os.path.join(HERE, ".."))
BUILD = os.path.dirname(BINARY)
LIBRARY = os.path.join(BUILD, "liblidarsim.so")
TREE = os.path.join(WORK, "tree")
PY = "/usr/bin/python3"
LINE_TIMEOUT = limit(300)  # a hang catcher (tests/timeouts.py)

counts = {}          # (kind, outcome) -> n


def count(kind, outcome):
    counts[(kind, outcome)] = counts.get((kind, outcome), 0) + 1


FENCE = re.compile(r"^(\s*)(```+)\s*([A-Za-z0-9_+-]*)\s*$")
MARK = re.compile(r"^\s*<!--\s*(not run|fragment|file)\s*(?::\s*(.*?))?\s*-->\s*$")


def blocks(path):
    """Yield (line number, language, text, mark, mark argument) for each fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        start = i
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*" + fence + r"\s*$", lines[i]):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i].lstrip())
            i += 1
        i += 1
        mark, arg = None, None
        j = start - 1
        while j >= 0 and lines[j].strip() == "":
            j -= 1
        if j >= 0:
            mm = MARK.match(lines[j])
            if mm:
                mark, arg = mm.group(1), mm.group(2) or ""
        yield start + 1, lang, "\n".join(body) + "\n", mark, arg


# A sanitizer build's liblidarsim.so is instrumented: a program that loads it without being built
# with the sanitizers (python3, the C block compiled plainly) needs the ASan runtime preloaded.
ASAN_PRELOAD = os.environ.get("LSIM_ASAN_PRELOAD", "")


def preload_env():
    e = env()
    if ASAN_PRELOAD:
        e["LD_PRELOAD"] = ASAN_PRELOAD
        e["ASAN_OPTIONS"] = "detect_leaks=0"  # the interpreter's own allocations
    return e


def env():
    e = dict(os.environ)
    if ASAN_PRELOAD:  # Mesa's GLX (lidarsim view) leaves allocations LeakSanitizer cannot attribute
        e["ASAN_OPTIONS"] = "detect_leaks=0"
    e["PATH"] = os.path.join(WORK, "bin") + os.pathsep + e.get("PATH", "/usr/bin:/bin")
    e["PYTHONPATH"] = os.path.join(TREE, "python")
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    e["LIDARSIM_LIBRARY"] = LIBRARY
    e["LIDARSIM_BINARY"] = BINARY
    e.pop("DISPLAY", None)
    return e


def run(cmd, where, preload=False):
    t = time.time()
    try:
        p = subprocess.run(cmd, cwd=TREE, env=preload_env() if preload else env(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=LINE_TIMEOUT)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired:
        out, rc = "timed out after %.0f s (a hang?)" % LINE_TIMEOUT, -1
    dt = time.time() - t
    print("  %-40s %5.1f s  rc %d" % (where, dt, rc))
    if rc != 0:
        fail("%s: exit %d: %s\n%s" % (where, rc, " ".join(cmd), out[-2000:]))
    return rc, out


def sh_lines(text):
    logical, cur = [], ""
    for line in text.split("\n"):
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        cur += line
        if cur.strip() and not cur.strip().startswith("#"):
            logical.append(cur.strip())
        cur = ""
    return logical


def csv_points(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            rows = [l for l in f if l.strip() and not l.startswith("#")]
    except OSError:
        return -1
    return len(rows) - 1        # less the header


def do_block(doc, line, lang, text, mark, arg, n):
    where = "%s:%d" % (doc, line)
    kind = {"bash": "sh", "shell": "sh", "console": "text", "": "text"}.get(lang, lang)
    if kind == "text":
        count(kind, "output listing")
        return
    if mark == "not run":
        if not arg:
            fail("%s: `<!-- not run -->` needs a reason: `<!-- not run: why -->`" % where)
        print("  %-40s not run: %s" % (where + " " + kind, arg))
        count(kind, "marked not run")
        return
    if kind == "sh":
        if mark == "fragment":
            fail("%s: a sh block cannot be a fragment; mark it `<!-- not run: why -->`" % where)
            return
        for k, cmd in enumerate(sh_lines(text)):
            m = re.search(r"#\s*not run:\s*(.*)$", cmd)
            if m:
                print("  %-40s not run: %s" % ("%s sh line %d" % (where, k + 1), m.group(1)))
                count("sh line", "marked not run")
                continue
            run(["bash", "-c", "set -o pipefail; " + cmd], "%s sh line %d" % (where, k + 1))
        count(kind, "run")
    elif kind == "yaml":
        if mark == "fragment":
            try:
                import yaml
            except ImportError:
                print("  %-40s fragment: no yaml module, not parsed" % where)
                count(kind, "fragment, not parsed (no yaml module)")
                return
            try:
                yaml.safe_load(text)
            except yaml.YAMLError as e:
                fail("%s: the fragment does not parse as YAML: %s" % (where, e))
                return
            count(kind, "fragment parsed")
            return
        if mark == "file":
            real = os.path.join(SRC, arg)
            if not os.path.isfile(real) or open(real, encoding="utf-8").read() != text:
                fail("%s: the block is not the content of %s" % (where, arg))
                return
        if not re.search(r"^objects:", text, re.M):
            fail("%s: a YAML block that is not a whole scene (no root `objects:`) must be marked "
                 "`<!-- fragment -->` or `<!-- not run: why -->`" % where)
            return
        name = "_block_%03d" % n
        with open(os.path.join(TREE, name + ".yaml"), "w", encoding="utf-8") as f:
            f.write(text)
        if mark == "file":  # the scene where it lies, so that its relative paths resolve
            name = os.path.splitext(arg)[0]
            with open(os.path.join(TREE, arg), "w", encoding="utf-8") as f:
                f.write(text)
        if os.path.exists(os.path.join(TREE, name + ".csv")):
            os.unlink(os.path.join(TREE, name + ".csv"))
        rc, out = run([BINARY, "scan", name + ".yaml", "-o", name + ".csv", "--noise", "off"],
                      where + " yaml scene")
        if rc == 0:
            pts = csv_points(os.path.join(TREE, name + ".csv"))
            print("  %-40s %d points" % ("", pts))
            if pts <= 0:
                fail("%s: the scene scanned to %d points" % (where, pts))
        count(kind, "scene scanned")
    elif kind == "python":
        if mark == "fragment":
            try:
                compile(text, where, "exec")
            except SyntaxError as e:
                fail("%s: the fragment is not valid Python: %s" % (where, e))
            count(kind, "fragment compiled")
            return
        if mark == "file":
            path = os.path.join(TREE, arg)
            real = os.path.join(SRC, arg)
            if not os.path.isfile(real) or open(real, encoding="utf-8").read() != text:
                fail("%s: the block is not the content of %s" % (where, arg))
                return
        else:
            path = os.path.join(TREE, "_block_%03d.py" % n)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        run([PY, path], where + " python", preload=True)
        count(kind, "run")
    elif kind == "c":
        if mark == "fragment" or not re.search(r"\bmain\s*\(", text):
            if mark != "fragment":
                fail("%s: a C block without main() must be marked `<!-- fragment -->`" % where)
                return
            count(kind, "fragment")
            return
        src = os.path.join(TREE, "_block_%03d.c" % n)
        exe = src[:-2]
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        rc, _ = run(["cc", "-std=c11", "-Wall", "-I", os.path.join(SRC, "include"), src, "-L", BUILD,
                     "-llidarsim", "-Wl,-rpath," + BUILD, "-o", exe], where + " c compile")
        if rc == 0:
            rc, out = run([exe], where + " c run", preload=True)
            print("  %-40s %s" % ("", out.strip()[:200]))
        count(kind, "compiled and run")
    else:
        fail("%s: a ```%s block cannot run in the test: mark it `<!-- not run: why -->`" % (where, lang))


def make_tree():
    if os.path.isdir(WORK):
        shutil.rmtree(WORK)
    os.makedirs(os.path.join(WORK, "bin"))
    os.makedirs(os.path.join(TREE, "build"))
    os.symlink(BINARY, os.path.join(WORK, "bin", "lidarsim"))
    os.symlink(BINARY, os.path.join(TREE, "build", "lidarsim"))
    for lib in glob.glob(os.path.join(BUILD, "liblidarsim.*")):
        os.symlink(lib, os.path.join(TREE, "build", os.path.basename(lib)))
    shutil.copytree(os.path.join(SRC, "examples"), os.path.join(TREE, "examples"))
    for d in ("python", "tools", "include", "tests", "data"):
        os.symlink(os.path.join(SRC, d), os.path.join(TREE, d))
    os.makedirs(os.path.join(TREE, "docs"))


def main():
    make_tree()
    docs = [os.path.join(SRC, "README.md")] + sorted(glob.glob(os.path.join(SRC, "docs", "**", "*.md"), recursive=True))
    t0 = time.time()
    n = 0
    per_doc = {}
    for doc in docs:
        rel = os.path.relpath(doc, SRC)
        first = n
        print(rel)
        for line, lang, text, mark, arg in blocks(doc):
            n += 1
            do_block(rel, line, lang, text, mark, arg, n)
        per_doc[rel] = n - first
    print("\nblocks by kind and outcome (%d blocks in %d files, %.1f s):" % (n, len(docs), time.time() - t0))
    for (kind, outcome), k in sorted(counts.items()):
        print("  %-8s %-40s %3d" % (kind, outcome, k))
    for rel, k in per_doc.items():
        print("  %-30s %3d blocks" % (rel, k))
    if counts.get(("yaml", "scene scanned"), 0) == 0 or counts.get(("sh", "run"), 0) == 0:
        fail("no sh block or no scene ran: the extractor found nothing to run")
    finish("test_readme_blocks", "all runnable blocks ran")


if __name__ == "__main__":
    main()
