#!/usr/bin/python3
"""Every relative link in the project's Markdown resolves: the file (or folder) exists in the
tree, and a #fragment names a heading of the target as GitHub renders its anchor. Moving a
section out of the README, or a file to another folder, fails here with the file, line and
link — not later, for a reader who follows it.

Usage: check_links.py REPO_ROOT  (exit 0: all resolve; 1: the broken ones are listed)"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def github_anchor(heading):
    """GitHub's slug: markup removed, lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


def lines_outside_fences(path):
    inside = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield number, line


def anchors_of(path, cache={}):
    if path not in cache:
        seen = {}
        found = set()
        for _, line in lines_outside_fences(path):
            m = HEADING.match(line)
            if not m:
                continue
            slug = github_anchor(m.group(2))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
        cache[path] = found
    return cache[path]


def broken_links(root, markdown_files):
    problems = []
    for rel in markdown_files:
        path = os.path.join(root, rel)
        for number, line in lines_outside_fences(path):
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                    continue
                file_part, _, fragment = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                where = f"{rel}:{number}: {target}"
                if not os.path.exists(dest):
                    problems.append(f"{where}: no such file {os.path.relpath(dest, root)}")
                elif fragment and dest.endswith(".md") and fragment not in anchors_of(dest):
                    problems.append(f"{where}: no heading #{fragment} in {os.path.relpath(dest, root)}")
    return problems


def self_test():
    """The checker itself finds a missing file, a missing heading and a GitHub anchor with code."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "a.md"), "w") as f:
            f.write("# A\n## In-place restarts (`--restarts`)\n[ok](#in-place-restarts---restarts) [x](#nope)"
                    " [y](b.md) [z](a.md#a) `[code](gone.md)`\n```\n[fenced](gone.md)\n```\n")
        got = broken_links(root, ["a.md"])
    want = ["a.md:3: #nope: no heading #nope in a.md", "a.md:3: b.md: no such file b.md"]
    if got != want:
        print(f"self-test: expected {want}, got {got}", file=sys.stderr)
        return False
    return True


def main():
    if not self_test():
        return 1
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    files = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
                           check=True, capture_output=True, text=True).stdout.split()
    files = [f for f in files if os.path.exists(os.path.join(root, f))]
    if not files:
        print("no Markdown files found: is REPO_ROOT the project's root?", file=sys.stderr)
        return 1
    problems = broken_links(root, files)
    for p in problems:
        print(p)
    print(f"{len(files)} Markdown files, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
