#!/usr/bin/env python3
"""The shape measures of the source tree (issue 12), from the repository root:

  scripts/shape.py kinds [DIR...]      grammar node-kind string literals per file (default: src
                                       minus src/lang): a string literal whose text is a named
                                       node kind of tree-sitter-rust or tree-sitter-python, in a
                                       file that handles syntax trees (it mentions `tree_sitter::`,
                                       `Node<` or `.kind()`), outside `#[cfg(test)] mod tests` and
                                       `tests.rs` files.
  scripts/shape.py files [N] [DIR...]  source files over N lines (default 1000).
  scripts/shape.py fns [N] [DIR...]    functions over N lines (default 150), from the `fn` line to
                                       its closing brace (rustfmt layout).

The grammars' node-types.json come from the cargo registry (run `cargo fetch` first)."""
import collections
import glob
import json
import os
import re
import sys

GRAMMARS = ["tree-sitter-rust-0.24.2", "tree-sitter-python-0.25.0"]


def rust_files(dirs):
    for d in dirs:
        if d.endswith(".rs"):
            yield d
        else:
            yield from sorted(glob.glob(os.path.join(d, "**", "*.rs"), recursive=True))


def node_kinds():
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    kinds = set()
    for grammar in GRAMMARS:
        found = glob.glob(os.path.join(home, "registry", "src", "*", grammar, "src", "node-types.json"))
        if not found:
            sys.exit(f"{grammar} not found in the cargo registry: run `cargo fetch`")
        for entry in json.load(open(found[0])):
            if entry["named"]:
                kinds.add(entry["type"])
    return kinds


def kinds_command(dirs):
    dirs = dirs or ["src"]
    kinds = node_kinds()
    literal = re.compile(r'"((?:[^"\\]|\\.)*)"')
    per_file = collections.Counter()
    for path in rust_files(dirs):
        if path.startswith("src/lang/") and dirs == ["src"]:
            continue
        if path.endswith("tests.rs"):
            continue
        text = open(path).read()
        if not ("tree_sitter::" in text or "Node<" in text or ".kind()" in text):
            continue
        text = text.split("#[cfg(test)]\nmod tests")[0]
        for line in text.splitlines():
            if line.lstrip().startswith("//"):
                continue
            per_file[path] += sum(1 for m in literal.finditer(line) if m.group(1) in kinds)
    total = sum(per_file.values())
    for path, count in per_file.most_common():
        if count:
            print(f"{count:5} {path}")
    print(f"{total:5} total")


def files_command(limit, dirs):
    for path in rust_files(dirs or ["src"]):
        count = sum(1 for _ in open(path))
        if count > limit:
            print(f"{count:5} {path}")


FN = re.compile(r"^(\s*)(pub(\([^)]*\))?\s+)?((const|async|unsafe|extern\s+\"C\")\s+)*fn\s+(\w+)")


def fns_command(limit, dirs):
    for path in rust_files(dirs or ["src"]):
        lines = open(path).read().splitlines()
        for i, line in enumerate(lines):
            m = FN.match(line)
            if not m:
                continue
            indent = m.group(1)
            end = None
            for j in range(i, len(lines)):
                stripped = lines[j].rstrip()
                if j == i and stripped.endswith(";"):
                    break
                if lines[j].startswith(indent + "}") and lines[j][len(indent) + 1:].strip() in ("", ";", ")", ","):
                    end = j
                    break
                if j > i and lines[j].startswith(indent) and not lines[j][len(indent):len(indent) + 1].isspace() \
                        and lines[j].strip() and FN.match(lines[j]) and len(FN.match(lines[j]).group(1)) == len(indent):
                    break
            if end is not None and end - i + 1 > limit:
                print(f"{end - i + 1:5} {path}:{i + 1} {m.group(6)}")


def main():
    args = sys.argv[1:]
    if not args or args[0] not in ("kinds", "files", "fns"):
        sys.exit(__doc__)
    command, rest = args[0], args[1:]
    if command == "kinds":
        kinds_command(rest)
        return
    limit = int(rest[0]) if rest and rest[0].isdigit() else (1000 if command == "files" else 150)
    rest = rest[1:] if rest and rest[0].isdigit() else rest
    (files_command if command == "files" else fns_command)(limit, rest)


if __name__ == "__main__":
    main()
