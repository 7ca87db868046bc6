"""MkDocs hook (mkdocs.yml `hooks:`): the docs are written in GitHub's Markdown (CommonMark), where
a list may follow a paragraph line and nest by the width of its marker ("- " = 2 spaces), and where
a fence or a table may follow a paragraph line. Python-Markdown, which MkDocs uses, wants a blank
line before those blocks and 4 spaces a nesting level. This hook rewrites each page's Markdown for
Python-Markdown before it is rendered (the files themselves are not changed): blank lines before a
list, a table or a fence that follows text, and list items, their continuation lines and fences
inside them re-indented to 4 spaces a level. Text inside fences is never touched.
"""
import re

ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])(\s+)(.*)$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)")


def commonmark_to_python_markdown(text):
    out = []
    stack = []          # per open list item: its content column in the source
    fence = None        # (closing marker, source indent, output indent) while inside a fence
    prev_blank = True
    block_starts_with_item = False
    for line in text.split("\n"):
        if fence is not None:
            marker, src, dst = fence
            body = line[src:] if line[:src].strip() == "" else line.lstrip()
            out.append((" " * dst + body) if line.strip() else "")
            if line.strip().startswith(marker) and line.strip().strip(marker[0]) == "":
                fence = None
            prev_blank = False
            continue
        if not line.strip():
            out.append("")
            prev_blank = True
            continue
        if prev_blank:
            block_starts_with_item = False
        indent = len(line) - len(line.lstrip(" "))
        m = ITEM.match(line)
        f = FENCE.match(line)
        if m and not f:
            in_list = bool(stack)
            while stack and indent < stack[-1]:
                stack.pop()
            if not prev_blank and (not in_list or not block_starts_with_item):
                out.append("")      # a list that follows a paragraph line, or an item that
                prev_blank = True   # follows a block of the item before it (a fence, a paragraph)
            if prev_blank:
                block_starts_with_item = True
            depth = len(stack)
            stack.append(indent + len(m.group(2)) + len(m.group(3)))
            out.append(" " * (4 * depth) + line.lstrip())
        else:
            if stack and indent == 0 and prev_blank:
                stack = []          # a block after the list ends it
            while len(stack) > 1 and 0 < indent < stack[-1]:
                stack.pop()         # the continuation of a shallower item
            dst = 4 * len(stack) if stack else indent
            if f:
                if not stack and not prev_blank:
                    out.append("")  # a fence that follows a paragraph or an HTML comment line
                fence = (f.group(2), indent, dst)
                out.append(" " * dst + line.lstrip())
            else:
                if not stack and line.lstrip().startswith("|") and not prev_blank and out \
                        and not out[-1].lstrip().startswith("|"):
                    out.append("")  # a table that follows a paragraph line
                out.append(" " * dst + line.lstrip() if stack else line)
        prev_blank = False
    return "\n".join(out)


def on_page_markdown(markdown, **kwargs):
    return commonmark_to_python_markdown(markdown)
