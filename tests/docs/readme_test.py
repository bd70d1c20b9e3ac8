#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The README's quotes of the example run, and every relative link of the documentation.

    readme_test.py ROOT               check the repository at ROOT (exit 0: all good, 1: not)
    readme_test.py --self-test ROOT   check that the check fails when it should (exit 0: it does)

What is checked, in README.md and docs/*.md (and results/README.md, results/examples/README.md
when they exist):

* Quotes. A fenced block right after a marker line

      <!-- quoted from results/examples/jack_test-64/summary.txt -->

  (the path relative to ROOT) is a quote of that file: every non-empty line of the block must be
  a line of the file (trailing whitespace ignored), or failing that an exact part of one, and
  the lines must come in the file's order. README.md must have at least one such quote.
* Images. Every image README.md embeds from results/examples/ exists and is a PNG.
* Links. Every relative link and image ([text](path), ![alt](path)) outside code resolves to a
  file or folder, from the folder of the file that holds it; a #fragment must name a heading
  (GitHub's anchors) or an <a id> of the target file.
* Nothing cites "../shared" or the external design note (DESIGN_NOTE below; neither is in the
  repository).

Standard library only; registered with CTest in tests/docs/CMakeLists.txt.
"""

import os
import re
import shutil
import sys
import tempfile

MARKER = re.compile(r"^\s*<!--\s*quoted from\s+(\S+)\s*-->\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
# [text](target) or ![alt](target); target up to whitespace (an optional "title" follows).
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)
# The external design note's file name, spelt in two parts so that a grep of the repository for
# it finds no citation here either.
DESIGN_NOTE = "DESIGN" + ".md"
FORBIDDEN = ("../shared", DESIGN_NOTE)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def doc_files(root):
    """The documentation files checked, relative to root."""
    files = ["README.md"]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        files += sorted("docs/" + f for f in os.listdir(docs) if f.endswith(".md"))
    for extra in ("results/README.md", "results/examples/README.md"):
        if os.path.isfile(os.path.join(root, extra)):
            files.append(extra)
    return files


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")


def prose_lines(lines):
    """(line number, text) of the lines outside fenced code, inline code blanked out."""
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield n, re.sub(r"`[^`]*`", lambda c: " " * len(c.group(0)), line)


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link: its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(lines):
    found, seen = set(), {}
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if m:
            fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
            continue
        if fence is not None:
            continue
        h = HEADING.match(line)
        if h:
            s = slug(h.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            found.add(s if k == 0 else "%s-%d" % (s, k))
        for a in HTML_ANCHOR.findall(line):
            found.add(a)
    return found


def check_quotes(root, rel, lines, errors):
    """Every marked block against its file. Returns the number of marked blocks."""
    count = 0
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        count += 1
        where = "%s:%d" % (rel, i + 1)
        source_rel = m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or not FENCE.match(lines[j]):
            errors.append("%s: the quote marker of %s is not followed by a fenced block"
                          % (where, source_rel))
            i = j
            continue
        fence = FENCE.match(lines[j]).group(1)
        k = j + 1
        block = []
        while k < len(lines) and not lines[k].lstrip().startswith(fence):
            block.append((k + 1, lines[k]))
            k += 1
        if k >= len(lines):
            errors.append("%s: the quoted block of %s is not closed" % (where, source_rel))
        i = k + 1
        source = os.path.normpath(os.path.join(root, source_rel))
        if not os.path.isfile(source):
            errors.append("%s: quotes %s, which does not exist" % (where, source_rel))
            continue
        src = [l.rstrip() for l in read_lines(source)]
        if not any(text.strip() for _, text in block):
            errors.append("%s: the quote of %s is empty" % (where, source_rel))
        pos = 0  # the quote's lines must come in the file's order
        for n, text in block:
            q = text.rstrip()
            if not q.strip():
                continue
            hit = next((p for p in range(pos, len(src)) if src[p] == q), None)
            if hit is None:
                hit = next((p for p in range(pos, len(src)) if q.strip() and q in src[p]), None)
            if hit is None:
                anywhere = any(q == s or q in s for s in src)
                errors.append("%s:%d: quoted line %s %s %s" % (
                    rel, n, "is out of order in" if anywhere else "is not in", source_rel,
                    "" if anywhere else "(changed or retyped?)") + "\n    quoted: %r" % q)
                continue
            pos = hit + 1
    return count


def check_links(root, rel, lines, errors, anchor_cache):
    base = os.path.dirname(os.path.join(root, rel))
    for n, text in prose_lines(lines):
        for s in FORBIDDEN:
            if s in text:
                errors.append("%s:%d: cites %r, which is not in the repository" % (rel, n, s))
        for m in LINK.finditer(text):
            target = m.group(3)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            full = os.path.normpath(os.path.join(base, path)) if path else os.path.join(root, rel)
            shown = "%s:%d: %s %r" % (rel, n, "image" if m.group(1) else "link", target)
            if path.startswith("/"):
                errors.append(shown + " is an absolute path")
                continue
            if not os.path.realpath(full).startswith(os.path.realpath(root) + os.sep):
                errors.append(shown + " points outside the repository")
                continue
            if not os.path.exists(full):
                errors.append(shown + " does not exist (%s)" % os.path.relpath(full, root))
                continue
            if fragment:
                if not full.endswith(".md") or not os.path.isfile(full):
                    errors.append(shown + " has an anchor, but is not a Markdown file")
                    continue
                if full not in anchor_cache:
                    anchor_cache[full] = anchors(read_lines(full))
                if fragment not in anchor_cache[full]:
                    errors.append(shown + " names no heading of %s" % os.path.relpath(full, root))


def check_example_images(root, lines, errors):
    """README's images from results/examples/: present and PNG."""
    for n, text in prose_lines(lines):
        for m in LINK.finditer(text):
            if not m.group(1):
                continue
            path = os.path.normpath(m.group(3).partition("#")[0])
            if not path.startswith(os.path.join("results", "examples") + os.sep):
                continue
            full = os.path.join(root, path)
            if not os.path.isfile(full):
                errors.append("README.md:%d: embeds %s, which does not exist" % (n, path))
                continue
            with open(full, "rb") as f:
                if f.read(8) != PNG_MAGIC:
                    errors.append("README.md:%d: embeds %s, which is not a PNG" % (n, path))


def check(root):
    """All errors found under root (an empty list when all is good)."""
    errors = []
    anchor_cache = {}
    if not os.path.isfile(os.path.join(root, "README.md")):
        return ["%s: no README.md" % root]
    for rel in doc_files(root):
        lines = read_lines(os.path.join(root, rel))
        quotes = check_quotes(root, rel, lines, errors)
        if rel == "README.md":
            if quotes == 0:
                errors.append("README.md: no <!-- quoted from ... --> block (the example's "
                              "summary must be quoted, and checked)")
            check_example_images(root, lines, errors)
        check_links(root, rel, lines, errors, anchor_cache)
    return errors


def report(root):
    errors = check(root)
    for e in errors:
        print("readme_test: " + e)
    if errors:
        print("readme_test: FAILED, %d problem(s) in %s" % (len(errors), root))
        return 1
    files = doc_files(root)
    print("readme_test: OK: %d files; every quote matches its file, every link resolves"
          % len(files))
    return 0


# --- the self-test: a copy of what the check reads, one fault at a time ---------------------

def files_read(root):
    """Every file and folder the check reads: the documents, quoted files, link targets."""
    wanted = set(doc_files(root))
    for rel in doc_files(root):
        lines = read_lines(os.path.join(root, rel))
        for line in lines:
            m = MARKER.match(line)
            if m:
                wanted.add(os.path.normpath(m.group(1)))
        base = os.path.dirname(rel)
        for _, text in prose_lines(lines):
            for m in LINK.finditer(text):
                path = m.group(3).partition("#")[0]
                if path and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", path):
                    wanted.add(os.path.normpath(os.path.join(base, path)))
    return sorted(w for w in wanted if not w.startswith(".."))


def copy_tree(root, dest):
    for rel in files_read(root):
        src = os.path.join(root, rel)
        dst = os.path.join(dest, rel)
        if os.path.isdir(src):
            os.makedirs(dst, exist_ok=True)
        elif os.path.isfile(src):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)


def first_quoted_line_with_digit(root):
    """(document, line index, quoted file) of the first quoted line holding a digit."""
    lines = read_lines(os.path.join(root, "README.md"))
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        k = i + 2
        while k < len(lines) and not FENCE.match(lines[k]):
            if re.search(r"\d", lines[k]):
                return "README.md", k, m.group(1)
            k += 1
    return None


def change_digit(line):
    """The line with its last digit changed (9 -> 8, else + 1)."""
    m = list(re.finditer(r"\d", line))[-1]
    d = m.group(0)
    return line[:m.start()] + ("8" if d == "9" else str(int(d) + 1)) + line[m.end():]


def edit_line(path, index, new):
    lines = read_lines(path)
    lines[index] = new
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def self_test(root):
    failures = []
    with tempfile.TemporaryDirectory(prefix="readme_test.") as tmp:
        pristine = os.path.join(tmp, "pristine")
        copy_tree(root, pristine)
        errors = check(pristine)
        if errors:
            print("self-test: the unchanged copy does not pass:\n  " + "\n  ".join(errors))
            return 1
        print("self-test: the unchanged copy passes")
        found = first_quoted_line_with_digit(pristine)
        if found is None:
            print("self-test: README.md quotes no line with a figure")
            return 1
        doc, index, quoted = found

        def case(name, mutate, expect):
            work = os.path.join(tmp, re.sub(r"\W+", "-", name))
            shutil.copytree(pristine, work)
            mutate(work)
            errors = check(work)
            text = "\n".join(errors)
            if errors and all(e in text for e in expect):
                print("self-test: detected: %s\n    %s" % (name, "\n    ".join(errors)))
            else:
                failures.append(name)
                print("self-test: NOT DETECTED: %s (errors: %r)" % (name, errors))

        original = read_lines(os.path.join(pristine, doc))[index]
        changed = change_digit(original)
        case("a figure changed in README.md's quote (line %d)" % (index + 1),
             lambda w: edit_line(os.path.join(w, doc), index, changed),
             ["%s:%d: quoted line" % (doc, index + 1), repr(changed.rstrip())])

        src_lines = [l.rstrip() for l in read_lines(os.path.join(pristine, quoted))]
        src_index = src_lines.index(original.rstrip()) if original.rstrip() in src_lines else None
        if src_index is None:
            failures.append("locating the quoted line in %s" % quoted)
        else:
            case("the same figure changed in %s (a regenerated example)" % quoted,
                 lambda w: edit_line(os.path.join(w, quoted), src_index,
                                     change_digit(read_lines(os.path.join(w, quoted))[src_index])),
                 ["%s:%d: quoted line" % (doc, index + 1)])

        readme = read_lines(os.path.join(pristine, "README.md"))
        images = [m.group(3) for _, t in prose_lines(readme) for m in LINK.finditer(t)
                  if m.group(1) and m.group(3).startswith("results/examples/")]
        if images:
            case("an embedded plot missing (%s)" % images[0],
                 lambda w: os.remove(os.path.join(w, images[0])), [images[0]])
        else:
            failures.append("README.md embeds no image from results/examples/")

        def break_link(w):
            with open(os.path.join(w, "README.md"), "a", encoding="utf-8") as f:
                f.write("\nSee [the gone page](docs/no-such-page.md).\n")
        case("a broken relative link", break_link, ["docs/no-such-page.md"])

        def break_anchor(w):
            with open(os.path.join(w, "README.md"), "a", encoding="utf-8") as f:
                f.write("\nSee [a gone section](README.md#no-such-section).\n")
        case("a broken anchor", break_anchor, ["#no-such-section"])

        def cite_design(w):
            with open(os.path.join(w, "README.md"), "a", encoding="utf-8") as f:
                f.write("\nAs " + DESIGN_NOTE + " says.\n")
        case("a citation of the design note", cite_design, [DESIGN_NOTE])

        def drop_markers(w):
            p = os.path.join(w, "README.md")
            lines = [l for l in read_lines(p) if not MARKER.match(l)]
            with open(p, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
        case("README.md's quote markers removed", drop_markers, ["no <!-- quoted from"])
    if failures:
        print("self-test: FAILED: not detected: " + "; ".join(failures))
        return 1
    print("self-test: OK: every injected fault was detected")
    return 0


def main(argv):
    args = [a for a in argv[1:] if a != "--self-test"]
    if len(args) != 1 or not os.path.isdir(args[0]):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = os.path.abspath(args[0])
    return self_test(root) if "--self-test" in argv[1:] else report(root)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
