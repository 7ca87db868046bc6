#!/usr/bin/python3
"""docs/api.md is the current include/lidarsim.h: tools/gen_api_doc.py, run again, writes the same
bytes, and the reference lists every function the header declares, each once.

usage: test_api_doc.py LIDARSIM_BINARY WORK_DIR   (both unused but WORK_DIR, for the scratch copy)
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.abspath(sys.argv[2])
os.makedirs(WORK, exist_ok=True)
fresh = os.path.join(WORK, "api.md")
p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "gen_api_doc.py"), fresh], capture_output=True,
                   text=True)
failures = []
if p.returncode != 0:
    failures.append("tools/gen_api_doc.py failed: %s" % p.stderr.strip())
else:
    doc = open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8").read()
    new = open(fresh, encoding="utf-8").read()
    if doc != new:
        failures.append("docs/api.md is not the current header's: run tools/gen_api_doc.py (first differing line %d)"
                        % next(i + 1 for i, (a, b) in enumerate(zip(doc.split("\n") + [None], new.split("\n") + [None]))
                               if a != b))
    header = open(os.path.join(ROOT, "include", "lidarsim.h"), encoding="utf-8").read()
    declared = set(re.findall(r"\b(lsim_[a-z0-9_]+)\s*\(", re.sub(r"/\*.*?\*/", " ", header, flags=re.S)))
    index = new[new.index("**Functions"):].split("\n")[0]
    listed = re.findall(r"`(lsim_[a-z0-9_]+)`", index)
    if sorted(listed) != sorted(declared):
        failures.append("the index lists %d functions, the header declares %d: missing %s, extra %s"
                        % (len(listed), len(declared), sorted(declared - set(listed)), sorted(set(listed) - declared)))
    for name in declared:
        if not re.search(r"^[^/\n]*\b%s\s*\(" % name, new, re.M):
            failures.append("%s has no declaration in docs/api.md" % name)
for f in failures:
    print("FAIL: " + f, file=sys.stderr)
if failures:
    sys.exit(1)
print("test_api_doc: docs/api.md is current: %d functions, each declared" % len(listed))
