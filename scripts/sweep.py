#!/usr/bin/env python3
"""Tries candor's heuristic refactors on a real project and checks what the warnings promised.

For random requests of the tools (extract, inline, move, change signature, rename, extract
variable, inline variable) (random functions, random line ranges) on a copy of a
project, it applies each result that candor accepts (`dry_run: false`), runs the project's own
check (`cargo check`, `python -m compileall`, or a command you give), then `candor undo`, and
verifies that every file is back byte for byte. It prints, per tool: requests, typed refusals,
applies, checks passed, checks failed, and how many of the failed ones candor had flagged with
a warning or error finding beforehand. Never run by CI; a development tool.

  scripts/sweep.py --root /tmp/some-crate-copy --lang rust --trials 60 [--seed 1]
  scripts/sweep.py --root /tmp/pkg-copy --lang python --check 'python -m pytest -q -x'

Work on a copy: candor writes into the project (and undoes it).
"""

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
CANDOR = os.environ.get("CANDOR", str(HERE / "target" / "release" / "candor"))


def snapshot(root: Path) -> dict:
    out = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if rel.parts and rel.parts[0] in (".candor", "target", "__pycache__", ".git", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache"):
            continue
        if "__pycache__" in rel.parts:
            continue
        if p.is_file():
            out[str(rel)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def candor_call(root: Path, tool: str, args: dict, backend: str) -> dict:
    run = subprocess.run(
        [CANDOR, "call", tool, json.dumps(args), "--root", str(root), "--backend", backend],
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"success": False, "error": {"code": "NOT JSON", "message": run.stdout + run.stderr}}


def run_check(check: str, root: Path, limit: int = 600) -> subprocess.CompletedProcess:
    """The project's check; one that runs past `limit` seconds (a result that makes the tests loop
    forever) failed, and its whole process group is ended."""
    proc = subprocess.Popen(check, shell=True, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limit)
        return subprocess.CompletedProcess(check, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        return subprocess.CompletedProcess(check, 124, out, err + f"\nFAILED: the check ran over {limit} s (a loop?) and was ended")


def top_level_split(params: str) -> list:
    """The parameters of a one-line list, split at the commas outside brackets (`Either<L, R>`)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(params):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}" and depth > 0 and not (ch == ">" and params[i - 1:i] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(params[start:i])
            start = i + 1
    parts.append(params[start:])
    return parts


def functions(path: Path, lang: str):
    pattern = r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)" if lang == "rust" else r"^\s*(?:async\s+)?def\s+(\w+)"
    names = []
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = re.match(pattern, line)
        if m:
            names.append((m.group(1), number))
    return names


EXPRESSION = re.compile(r"\w+(?:\.\w+)*\([^()\n]*\)|\w+(?:\.\w+)+|\w+ [-+*/%] \w+")


def expression_request(path: Path, rel: str, line: int, rng: random.Random, name: str):
    """An expression on one of the ten lines after a function's header (a call, an attribute
    chain or a binary operation, by a regular expression: the engine refuses what is not one)."""
    lines = path.read_text(errors="replace").splitlines()
    spots = []
    for number in range(line + 1, min(line + 11, len(lines) + 1)):
        for m in EXPRESSION.finditer(lines[number - 1]):
            spots.append((number, m.start() + 1, m.end() + 1))
    if not spots:
        return None
    number, start, end = rng.choice(spots)
    return {"file_path": rel, "start_line": number, "start_column": start, "end_line": number,
            "end_column": end, "new_name": name, "replace_all": rng.random() < 0.5}


def local_request(path: Path, rel: str, line: int, rng: random.Random, lang: str):
    """A local bound in the twenty lines after a function's header, at its binding."""
    pattern = re.compile(r"^\s*let\s+(?:mut\s+)?(\w+)\b" if lang == "rust" else r"^\s*(\w+)\s*=[^=]")
    lines = path.read_text(errors="replace").splitlines()
    spots = []
    for number in range(line + 1, min(line + 21, len(lines) + 1)):
        m = pattern.match(lines[number - 1])
        if m:
            spots.append((number, m.start(1) + 1))
    if not spots:
        return None
    number, column = rng.choice(spots)
    return {"file_path": rel, "line": number, "column": column}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, type=Path)
    ap.add_argument("--lang", required=True, choices=["rust", "python"])
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", help="the project's check command (default: cargo check / compileall)")
    ap.add_argument("--tools", default="extract,inline,move,change_signature",
                    help="comma-separated subset of extract,inline,move,change_signature,rename,extract_variable,inline_variable,safe_delete,introduce_parameter")
    ap.add_argument("--verify", action="store_true",
                    help="let candor check each apply with the project's checkers first (default: off, so the sweep measures the findings a result carries before any check)")
    ap.add_argument("--backend", default="tree-sitter", help="auto, lsp or tree-sitter (default: tree-sitter)")
    opts = ap.parse_args()
    if not Path(CANDOR).exists():
        print(f"{CANDOR} not found: run `cargo build --release` first (or set CANDOR)", file=sys.stderr)
        return 2
    root = opts.root.resolve()
    tools = [t.strip() for t in opts.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in ("extract", "inline", "move", "change_signature", "rename", "extract_variable", "inline_variable", "safe_delete", "introduce_parameter")]
    if unknown or not tools:
        print(f"--tools: unknown {unknown}; use extract,inline,move,change_signature", file=sys.stderr)
        return 2
    rng = random.Random(opts.seed)
    ext = ".rs" if opts.lang == "rust" else ".py"
    check = opts.check or ("cargo check -q --offline" if opts.lang == "rust" else f"{sys.executable} -m compileall -q .")
    files = sorted(p for p in root.rglob("*" + ext) if "target" not in p.relative_to(root).parts and not p.name.startswith("."))
    files = [p for p in files if functions(p, opts.lang)]
    if not files:
        print("no functions found", file=sys.stderr)
        return 2
    first = subprocess.run(check, shell=True, cwd=root, capture_output=True)
    if first.returncode != 0:
        print(f"the check fails before any refactor: {check}\n{first.stderr.decode()[-2000:]}", file=sys.stderr)
        return 2

    stats = defaultdict(lambda: defaultdict(int))
    refusals = defaultdict(list)
    samples = defaultdict(list)
    problems = []
    for trial in range(opts.trials):
        path = rng.choice(files)
        rel = str(path.relative_to(root))
        fns = functions(path, opts.lang)
        name, line = rng.choice(fns)
        tool = rng.choice(tools)
        if tool == "extract":
            start = line + rng.randint(1, 6)
            args = {"file_path": rel, "start_line": start, "end_line": start + rng.randint(0, 3), "new_name": f"swept_{trial}"}
            full = "refactor_extract_function"
        elif tool == "inline":
            args = {"file_path": rel, "function_name": name, "line": line}
            full = "refactor_inline_function"
        elif tool == "extract_variable":
            args = expression_request(path, rel, line, rng, f"swept_{trial}")
            if args is None:
                continue
            full = "refactor_extract_variable"
        elif tool == "inline_variable":
            args = local_request(path, rel, line, rng, opts.lang)
            if args is None:
                continue
            full = "refactor_inline_variable"
        elif tool == "rename":
            args = {"file_path": rel, "symbol_name": name, "line": line, "new_name": f"swept_{trial}"}
            full = "refactor_rename_symbol"
        elif tool == "safe_delete":
            args = {"file_path": rel, "symbol_name": name, "line": line}
            full = "refactor_safe_delete"
        elif tool == "introduce_parameter":
            # A literal (a number or a short string) in the first lines of the function's body.
            lines = path.read_text(errors="replace").splitlines()
            found = None
            for number in range(line + 1, min(line + 12, len(lines) + 1)):
                m = re.search(r"(?<![\w.])(\d+(?:\.\d+)?|\"[^\"\\]{0,20}\")(?![\w.])", lines[number - 1])
                text = lines[number - 1]
                docstring = '"' * 3 in text or "'" * 3 in text
                if m and not docstring and not text.lstrip().startswith(("#", "//", "assert")):
                    found = (number, m.start() + 1, m.end() + 1)
                    break
            if not found:
                continue
            number, start, end = found
            args = {"file_path": rel, "start_line": number, "start_column": start, "end_line": number,
                    "end_column": end, "new_name": f"swept_{trial}"}
            full = "refactor_introduce_parameter"
        elif tool == "move":
            target = str(Path(rel).parent / f"swept_{trial}{ext}")
            if opts.lang == "rust":
                others = [f for f in files if f.parent == path.parent and f != path]
                if not others:
                    continue
                target = str(rng.choice(others).relative_to(root))
            args = {"file_path": rel, "symbol_name": name, "line": line, "target_file": target}
            full = "refactor_move_to_file"
        else:
            text = path.read_text(errors="replace").splitlines()[line - 1]
            m = re.search(r"\((.*)\)", text)
            params = [p.strip() for p in (top_level_split(m.group(1)) if m else []) if p.strip()]
            new = []
            for p in params:
                if p in ("self", "&self", "&mut self", "mut self", "cls") or p.startswith(("*", "/")):
                    continue
                pname, _, ptype = p.partition(":")
                pname = pname.strip().split("=")[0].strip()
                entry = {"name": pname}
                if opts.lang == "rust" and ptype.strip():
                    entry["type"] = ptype.strip()
                new.append(entry)
            if new and rng.random() < 0.5:
                new.pop()
            else:
                new.append({"name": "swept_extra", "type": "i32"} if opts.lang == "rust" else {"name": "swept_extra", "default": "None"})
            args = {"file_path": rel, "function_name": name, "line": line, "new_parameters": new}
            full = "refactor_change_signature"
        stats[tool]["requests"] += 1
        before = snapshot(root)
        args["dry_run"] = False
        # What a result says before any check is what the sweep measures: candor's own
        # checkers run only with --verify.
        args["verify"] = bool(opts.verify)
        result = candor_call(root, full, args, opts.backend)
        if not result.get("success"):
            code = result.get("error", {}).get("code", "?")
            stats[tool]["refused"] += 1
            refusals[(tool, code)].append(result.get("error", {}).get("message", ""))
            if code in ("NOT JSON", "internal"):
                problems.append(f"{tool} {args}: untyped failure {result}")
            if snapshot(root) != before:
                problems.append(f"{tool} {args}: refused but files changed")
            continue
        if not result.get("data", {}).get("applied"):
            stats[tool]["not applied"] += 1
            continue
        stats[tool]["applied"] += 1
        findings = result["data"].get("findings", [])
        flagged = any(f["severity"] in ("warning", "error") for f in findings)
        checked = run_check(check, root)
        ok = checked.returncode == 0
        warned = [f"{f['severity']} {f['file']}:{f['line']} {f['message']}" for f in findings if f["severity"] != "info"]
        samples[tool].append((ok, warned[:2], (checked.stdout + checked.stderr).strip().splitlines()[-1:] if not ok else []))
        if ok:
            stats[tool]["check passed"] += 1
            stats[tool]["passed, flagged anyway"] += flagged
        else:
            stats[tool]["check failed"] += 1
            if flagged:
                stats[tool]["failed, flagged"] += 1
            else:
                said = [l for l in (checked.stdout + checked.stderr).splitlines() if l.startswith("error") or "Error" in l or "FAILED" in l]
                problems.append(f"{tool} {json.dumps(args)}: the check failed and no finding warned: {said[:3]}")
        undo = subprocess.run([CANDOR, "undo", "--root", str(root)], capture_output=True, text=True)
        after = snapshot(root)
        if undo.returncode != 0 or after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            problems.append(f"{tool} {args}: undo did not restore the files: {undo.stderr.strip()} {changed[:5]}")
            stats[tool]["undo mismatches"] += 1
        else:
            stats[tool]["undone byte for byte"] += 1

    for tool in stats:
        stats[tool]["failed, not flagged"] = stats[tool]["check failed"] - stats[tool]["failed, flagged"]
    keys = ["requests", "refused", "applied", "check passed", "check failed", "failed, flagged", "failed, not flagged", "passed, flagged anyway", "undone byte for byte", "undo mismatches"]
    print("| tool | " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for tool in tools:
        print(f"| {tool} | " + " | ".join(str(stats[tool][k]) for k in keys) + " |")
    print("\nrefusals (tool, code: count, one message):")
    for (tool, code), messages in sorted(refusals.items()):
        print(f"  {tool} {code}: {len(messages)}, e.g. {messages[0][:160]}")
    print("\napplied (check ok?, first warnings, last line of a failed check):")
    for tool, items in samples.items():
        for ok, warned, tail in items[:4]:
            print(f"  {tool} ok={ok} {[w[:150] for w in warned]} {tail}")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if any("undo" in p or "untyped" in p or "refused but" in p for p in problems) else 0


if __name__ == "__main__":
    sys.exit(main())
