#!/usr/bin/python3
"""docs/api.md is the current include/lidarsim.h: tools/gen_api_doc.py, run again, writes the same
bytes, and the reference lists every function the header declares, each once.

usage: test_api_doc.py LIDARSIM_BINARY WORK_DIR   (both unused but WORK_DIR, for the scratch copy)
"""
import os
import re

from cli_check import binary_and_work, fail, failures, finish, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_, WORK = binary_and_work()
fresh = os.path.join(WORK, "api.md")
p = run(["/usr/bin/python3", os.path.join(ROOT, "tools", "gen_api_doc.py"), fresh])
if p.returncode != 0:
    fail("tools/gen_api_doc.py failed: %s" % p.stderr.strip())
else:
    doc = open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8").read()
    new = open(fresh, encoding="utf-8").read()
    if doc != new:
        fail("docs/api.md is not the current header's: run tools/gen_api_doc.py (first differing line %d)"
             % next(i + 1 for i, (a, b) in enumerate(zip(doc.split("\n") + [None], new.split("\n") + [None]))
                    if a != b))
    header = open(os.path.join(ROOT, "include", "lidarsim.h"), encoding="utf-8").read()
    declared = set(re.findall(r"\b(lsim_[a-z0-9_]+)\s*\(", re.sub(r"/\*.*?\*/", " ", header, flags=re.S)))
    index = new[new.index("**Functions"):].split("\n")[0]
    listed = re.findall(r"`(lsim_[a-z0-9_]+)`", index)
    if sorted(listed) != sorted(declared):
        fail("the index lists %d functions, the header declares %d: missing %s, extra %s"
             % (len(listed), len(declared), sorted(declared - set(listed)), sorted(set(listed) - declared)))
    for name in declared:
        if not re.search(r"^[^/\n]*\b%s\s*\(" % name, new, re.M):
            fail("%s has no declaration in docs/api.md" % name)
finish("test_api_doc", "" if failures else "docs/api.md is current: %d functions, each declared" % len(listed))
