#!/usr/bin/python3
"""The documentation site, built and read in a real browser (issue 26).

usage: test_docs_site.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

  a  `mkdocs build --strict` (Debian's mkdocs and mkdocs-material; mkdocs.yml at the root) builds
     the site from docs/ into WORK_DIR/site with no warning
  b  nothing is loaded from the network: no http(s) URL in any <script src>, <link href> or
     @import of the built HTML and CSS (tools/docs_site_check.py, static)
  c  every page, served by Python's http.server on a free port of 127.0.0.1 and opened in
     Debian's headless Chromium (its DevTools protocol over a pipe): no console error, uncaught
     exception, failed request or request off the site; every internal link resolves to a file of
     the site and its #anchor to an id of that page; every image is a file of the site and is
     decoded; the search (Material's `?q=`) lists the expected pages for known terms
  d  no reference lost: every heading of the README before issue 26
     (tests/data/readme_sections_main.txt) is a row of docs/readme-sections.md, in order, whose
     page exists in the built site with a heading of that row's anchor
  e  the checker catches what it is for: on a copy of the site with one link, one anchor and one
     image broken, it reports each of them; a copy with a script from the network fails (b)
Skipped (77) when mkdocs, its Material theme or chromium is missing (`make docs` installs the
first two, `make check` and `make test` all three). Exits 1 with one line per failed check.
"""
import os
import re
import shutil
import sys
import time

from cli_check import binary_and_work, check, fail, finish, skip, source_dir
from cli_check import run as run_program  # `run` is the site checker's name below
from timeouts import limit

_, WORK = binary_and_work()
SRC = source_dir()
sys.path.insert(0, os.path.join(SRC, "tools"))
import docs_site_check as site_check  # noqa: E402  (tools/, beside the tree's mkdocs hooks)

PY = "/usr/bin/python3"
SEARCHES = [("retroreflector", "materials.html"), ("Embree", "performance.html"),
            ("SemanticKITTI", "points.html")]


def missing_tools():
    missing = []
    p = run_program([PY, "-c", "import mkdocs.utils; print(' '.join(mkdocs.utils.get_theme_names()))"])
    if p.returncode != 0:
        missing.append("mkdocs")
    elif "material" not in p.stdout.split():
        missing.append("mkdocs-material")
    if not shutil.which("chromium"):
        missing.append("chromium")
    return missing


def build(site):
    t = time.time()
    p = run_program([PY, "-m", "mkdocs", "build", "--strict", "--config-file", os.path.join(SRC, "mkdocs.yml"),
                     "--site-dir", site], seconds=300)
    warnings = [l for l in (p.stdout + p.stderr).splitlines() if "WARNING" in l or "ERROR" in l]
    check(p.returncode == 0 and not warnings, "mkdocs build --strict: exit %d: %s"
          % (p.returncode, "\n".join(warnings) or (p.stdout + p.stderr)[-1500:]))
    return time.time() - t


def readme_rows():
    """(level, old heading, page, anchor) of each row of docs/readme-sections.md."""
    rows = []
    for line in open(os.path.join(SRC, "docs", "readme-sections.md"), encoding="utf-8"):
        m = re.match(r"^\| (#+) \| (.*) \| \[[^\]]*\]\(([^)#]+)#([^)]+)\) \|$", line.rstrip("\n"))
        if m:
            rows.append((len(m.group(1)), m.group(2).replace("\\|", "|"), m.group(3), m.group(4)))
    return rows


def old_headings():
    out = []
    for line in open(os.path.join(SRC, "tests", "data", "readme_sections_main.txt"), encoding="utf-8"):
        m = re.match(r"^(#{2,4}) (.*)$", line.rstrip("\n"))
        if m:
            out.append((len(m.group(1)), m.group(2)))
    return out


def check_readme_sections(site_check_run):
    rows, old = readme_rows(), old_headings()
    check(len(old) >= 38, "tests/data/readme_sections_main.txt lists %d headings (the old README had 38)" % len(old))
    check([(l, t) for l, t, _, _ in rows] == old, "docs/readme-sections.md's rows are not the old README's "
          "headings in order: %d rows, %d headings; first difference %s"
          % (len(rows), len(old), next(((r[:2], o) for r, o in zip(rows, old) if r[:2] != o), None)))
    for level, heading, page, anchor in rows:
        html = page[:-3] + ".html"
        if not check(os.path.isfile(os.path.join(site_check_run.root, html)),
                     "'%s': the page %s is not in the site" % (heading, html)):
            continue
        check(anchor in site_check_run.load(html)["headings"],
              "'%s': %s has no heading with the id '%s'" % (heading, html, anchor))
    return len(rows)


def prove_catches(site, browser):
    """A copy with a link, an anchor and an image broken: the checker reports each; one with a
    script from the network: the static check reports it."""
    broken = os.path.join(WORK, "broken")
    shutil.copytree(site, broken)

    def edit(page, old, new):
        path = os.path.join(broken, page)
        text = open(path, encoding="utf-8").read()
        if check(old in text, "the copy's %s has no %s to break" % (page, old)):
            open(path, "w", encoding="utf-8").write(text.replace(old, new, 1))

    edit("index.html", 'href="install.html"', 'href="no-such-page.html"')
    edit("index.html", 'src="street_bev.png"', 'src="no-such-picture.png"')
    edit("readme-sections.html", 'href="cli.html#usage"', 'href="cli.html#no-such-anchor"')
    edit("tests.html", "</head>", '<script src="https://cdn.example.invalid/x.js"></script></head>')
    server = site_check.Server(broken)
    try:
        run = site_check.SiteCheck(browser, server.base, broken)
        for page in ("index.html", "readme-sections.html"):
            run.check_page(page)
    finally:
        server.close()
    found = "\n".join(run.problems)
    for what, needle in (("the broken link", "link no-such-page.html: no file"),
                         ("the broken anchor", "has no id 'no-such-anchor'"),
                         ("the broken image", "image no-such-picture.png: no file")):
        check(needle in found, "the checker did not report %s on the copy (it reported: %s)" % (what, found or "nothing"))
    static = site_check.static_offline(broken)
    check(any("cdn.example.invalid" in p for p in static), "the static check missed a <script src> on the network")
    print("e  a broken copy: %d problems reported, e.g. %s" % (len(run.problems), run.problems[:3]))
    print("   with a network script: %s" % static)
    shutil.rmtree(broken)


def main():
    missing = missing_tools()
    if missing:
        skip("test_docs_site", "%s missing (Debian: `make docs` installs mkdocs and mkdocs-material, "
             "`make check` / `make test` also chromium)" % ", ".join(missing))
    t0 = time.time()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    site = os.path.join(WORK, "site")
    dt = build(site)
    if not os.path.isfile(os.path.join(site, "index.html")):
        finish("test_docs_site")
    pages = site_check.site_pages(site)
    print("a  mkdocs build --strict: %d pages in %.1f s" % (len(pages), dt))
    static = site_check.static_offline(site)
    for p in static:
        fail(p)
    print("b  nothing from the network: %d problems" % len(static))

    server = site_check.Server(site)
    browser = site_check.Browser(shutil.which("chromium"), timeout=limit(30))
    try:
        run = site_check.SiteCheck(browser, server.base, site)
        t = time.time()
        for page in pages:
            run.check_page(page)
        results = {}
        for term, expected in SEARCHES:
            results[term] = run.search(term, expected, seconds=limit(20))
        for p in run.problems:
            fail(p)
        print("c  in Chromium (%.1f s): %s; %d problems" % (time.time() - t, ", ".join(
            "%d %s" % (v, k) for k, v in run.counts.items()), len(run.problems)))
        for term, found in results.items():
            print("   search '%s': %d pages: %s" % (term, len(found), ", ".join(found)))
        n = check_readme_sections(run)
        print("d  the old README's %d headings, each a heading of its new page" % n)
        log = browser.log()     # the real site's pages only (the broken copy's are meant to fail)
        prove_catches(site, browser)
    finally:
        browser.close()
        server.close()
    uncaught = [l for l in log.splitlines() if "Uncaught" in l or ":CONSOLE(" in l]
    check(not uncaught, "chromium's log has console lines: %s" % uncaught[:5])
    finish("test_docs_site", "the site builds offline and reads clean in Chromium (%.1f s)" % (time.time() - t0))


if __name__ == "__main__":
    main()
