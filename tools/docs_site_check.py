#!/usr/bin/python3
"""The built documentation site (`make docs`: build/site/) checked as a reader's browser sees it.

usage: tools/docs_site_check.py SITE_DIR [--static]

  static   no page loads anything from the network: no http(s) or protocol-relative URL in any
           <script src>, <link href> or CSS @import of the built HTML and CSS (Material's fonts
           are off: `font: false`)
  browser  (unless --static) the site served by Python's http.server on a free port of 127.0.0.1
           and every page opened in Debian's headless Chromium, driven through its DevTools
           protocol over a pipe (--remote-debugging-pipe; no extra package): no console error,
           uncaught exception, failed or >= 400 request, nor any request off 127.0.0.1 (host
           names other than 127.0.0.1 do not even resolve in it); every internal link (href)
           resolves to a file of the site and its #anchor to an id of the page it names; every
           image resolves to a file and is decoded by the browser (naturalWidth > 0); the search
           (Material's `?q=TERM`) lists the expected page.
Exits 1 with one line per problem. tests/test_docs_site.py builds the site, runs these checks and
proves they catch a broken link, anchor and image on a copy.
"""
import functools
import glob
import html.parser
import http.server
import json
import os
import re
import select
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
    "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps", "--no-pings",
    "--disable-domain-reliability", "--disable-client-side-phishing-detection",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--enable-logging=stderr", "--v=0", "--window-size=1280,900",
]


# ---------------------------------------------------------------------------------------------
# static: nothing from the network


class _Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs, self.styles, self._in_style = [], [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.refs.append(("script src", a["src"]))
        elif tag == "link" and a.get("href"):
            self.refs.append(("link href", a["href"]))
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)


def remote(url):
    return bool(re.match(r"^\s*(https?:)?//", url, re.I))


def static_offline(site):
    """Problems: (file, what) for every script, link or @import that would reach the network."""
    problems = []
    for path in sorted(glob.glob(os.path.join(site, "**", "*.html"), recursive=True)):
        p = _Refs()
        p.feed(open(path, encoding="utf-8", errors="replace").read())
        rel = os.path.relpath(path, site)
        problems += ["%s: <%s> %s is on the network" % (rel, kind, url) for kind, url in p.refs if remote(url)]
        for css in p.styles:
            problems += ["%s: <style> @import %s is on the network" % (rel, u) for u in css_imports(css) if remote(u)]
    for path in sorted(glob.glob(os.path.join(site, "**", "*.css"), recursive=True)):
        text = open(path, encoding="utf-8", errors="replace").read()
        problems += ["%s: @import %s is on the network" % (os.path.relpath(path, site), u)
                     for u in css_imports(text) if remote(u)]
    return problems


def css_imports(css):
    return [m.group(1) or m.group(2) for m in
            re.finditer(r"@import\s+(?:url\(\s*['\"]?([^'\")\s]+)|['\"]([^'\"]+))", css)]


# ---------------------------------------------------------------------------------------------
# serving the site on 127.0.0.1


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server:
    """Python's http.server over ROOT on a free port of 127.0.0.1, in a thread."""

    def __init__(self, root):
        handler = functools.partial(_Quiet, directory=root)
        socketserver.TCPServer.allow_reuse_address = True
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = "http://127.0.0.1:%d/" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# ---------------------------------------------------------------------------------------------
# Chromium through the DevTools protocol over a pipe (fd 3: commands in, fd 4: messages out)


class Browser:
    def __init__(self, chromium="chromium", timeout=30.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="lidarsim-chromium-")
        to_r, self._to = os.pipe()
        self._from, from_w = os.pipe()
        cmd = ["sh", "-c", 'exec "$@" 3<&%d 4>&%d' % (to_r, from_w), "sh", chromium,
               "--user-data-dir=" + self.profile] + CHROMIUM_FLAGS + ["about:blank"]
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, pass_fds=(to_r, from_w), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.stderr)
        os.close(to_r)
        os.close(from_w)
        self._buf, self._id, self.events = b"", 0, []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable", session=True)

    def _read(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.time()
            if left <= 0 or self.proc.poll() is not None:
                return None
            r, _, _ = select.select([self._from], [], [], min(left, 0.5))
            if r:
                chunk = os.read(self._from, 1 << 20)
                if not chunk:
                    return None
                self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg.decode("utf-8"))

    def call(self, method, params=None, session=False, timeout=None):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to, json.dumps(msg).encode("utf-8") + b"\0")
        deadline = time.time() + (timeout or self.timeout)
        while True:
            m = self._read(deadline)
            if m is None:
                raise RuntimeError("chromium did not answer %s within %.0f s (exit %s): %s"
                                   % (method, timeout or self.timeout, self.proc.poll(), self.log()[-800:]))
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def pump(self, seconds):
        """Collect events for a while."""
        deadline = time.time() + seconds
        while True:
            m = self._read(deadline)
            if m is None:
                return
            if "method" in m:
                self.events.append(m)

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def open(self, url, settle=0.3):
        """Navigate and wait for the load event, then until no request has started for `settle` s;
        the events of this page are returned."""
        self.events = []
        self.call("Page.navigate", {"url": url}, session=True)
        deadline = time.time() + self.timeout
        while not any(e["method"] == "Page.loadEventFired" for e in self.events):
            if time.time() > deadline:
                raise RuntimeError("%s: no load event within %.0f s" % (url, self.timeout))
            self.pump(0.1)
        while True:
            n = len([e for e in self.events if e["method"] == "Network.requestWillBeSent"])
            self.pump(settle)
            if len([e for e in self.events if e["method"] == "Network.requestWillBeSent"]) == n:
                return list(self.events)

    def log(self):
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to)
        os.close(self._from)
        shutil.rmtree(self.profile, ignore_errors=True)


def page_errors(events, base):
    """Console errors, exceptions, failed requests and requests off the site, from a page's events."""
    errors = []
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            errors.append("uncaught exception: %s" % (d.get("exception", {}).get("description") or d.get("text")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description")))
                                                                     for a in p.get("args", []))))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append("console error: %s %s" % (p["entry"].get("text"), p["entry"].get("url", "")))
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if not (url.startswith(base) or url.startswith(("data:", "blob:", "about:"))):
                errors.append("request off the site: %s" % url)
        elif m == "Network.loadingFailed" and not p.get("canceled"):
            errors.append("request failed: %s" % p.get("errorText"))
        elif m == "Network.responseReceived" and p.get("response", {}).get("status", 200) >= 400:
            errors.append("HTTP %d: %s" % (p["response"]["status"], p["response"].get("url")))
    return errors


PAGE_DATA = """JSON.stringify({
  links: Array.from(document.querySelectorAll('a[href]')).map(a => [a.getAttribute('href'), a.href]),
  images: Array.from(document.querySelectorAll('img')).map(i => [i.getAttribute('src'), i.src, i.complete && i.naturalWidth > 0]),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
  headings: Array.from(document.querySelectorAll('h1[id], h2[id], h3[id], h4[id], h5[id], h6[id]')).map(e => e.id)
})"""


class SiteCheck:
    """Open pages of a site served at BASE (its files in ROOT) and check what they link to."""

    def __init__(self, browser, base, root):
        self.browser, self.base, self.root = browser, base, root
        self.pages = {}      # site path -> {"ids", "headings", "links", "images", "errors"}
        self.problems = []
        self.counts = {"pages": 0, "links": 0, "anchors": 0, "images": 0, "console errors": 0}

    def site_path(self, url):
        """The site file a URL names ('' for the site's root), or None when it is off the site."""
        if not url.startswith(self.base):
            return None
        path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)[len(urllib.parse.urlsplit(self.base).path):]
        if path == "" or path.endswith("/"):
            path += "index.html"
        return path

    def load(self, path):
        if path not in self.pages:
            events = self.browser.open(self.base + path)
            data = json.loads(self.browser.evaluate(PAGE_DATA))
            data["errors"] = page_errors(events, self.base)
            self.pages[path] = data
        return self.pages[path]

    def check_page(self, path):
        data = self.load(path)
        self.counts["pages"] += 1
        for err in data["errors"]:
            self.counts["console errors"] += 1
            self.problems.append("%s: %s" % (path, err))
        for raw, url in data["links"]:
            target = self.site_path(url)
            if target is None:
                continue    # another site (a paper's DOI, a specification): not followed
            self.counts["links"] += 1
            file = os.path.join(self.root, target)
            if not os.path.isfile(file):
                self.problems.append("%s: link %s: no file %s in the site" % (path, raw, target))
                continue
            frag = urllib.parse.unquote(urllib.parse.urlsplit(url).fragment)
            if frag and target.endswith(".html"):
                self.counts["anchors"] += 1
                if frag not in self.load(target)["ids"]:
                    self.problems.append("%s: link %s: %s has no id '%s'" % (path, raw, target, frag))
        for raw, url, decoded in data["images"]:
            self.counts["images"] += 1
            target = self.site_path(url)
            if target is None or not os.path.isfile(os.path.join(self.root, target)):
                self.problems.append("%s: image %s: no file in the site" % (path, raw))
            elif not decoded:
                self.problems.append("%s: image %s: the browser could not show it" % (path, raw))

    def search(self, term, expected, seconds=20.0):
        """The results Material's search lists for TERM (its `?q=`), and a problem unless one of
        them is the page EXPECTED."""
        self.browser.open(self.base + "index.html?q=" + urllib.parse.quote(term))
        deadline, found = time.time() + seconds, []
        while time.time() < deadline:
            found = self.browser.evaluate(
                "Array.from(document.querySelectorAll('.md-search-result__list a')).map(a => a.href)") or []
            if found:
                break
            self.browser.pump(0.25)
        pages = sorted({self.site_path(u.split("#")[0]) for u in found})
        if expected not in pages:
            self.problems.append("search '%s': %d results (%s), not the page %s"
                                 % (term, len(found), ", ".join(pages[:8]), expected))
        return pages


def site_pages(site):
    return sorted(os.path.relpath(p, site) for p in glob.glob(os.path.join(site, "**", "*.html"), recursive=True)
                  if os.path.relpath(p, site) != "404.html")


def main(argv):
    site = os.path.abspath(argv[1])
    problems = static_offline(site)
    if "--static" not in argv:
        server = Server(site)
        browser = Browser(shutil.which("chromium") or "chromium")
        try:
            check = SiteCheck(browser, server.base, site)
            for page in site_pages(site):
                check.check_page(page)
            check.search("retroreflector", "materials.html")
            problems += check.problems
            print("docs_site_check: %s" % ", ".join("%d %s" % (v, k) for k, v in check.counts.items()))
        finally:
            browser.close()
            server.close()
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    print("docs_site_check: %s: %d problem(s)" % (site, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
