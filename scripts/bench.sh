#!/usr/bin/env bash
# Measures candor against ripgrep and ast-grep — the targets of "Fast at project scale" — and
# prints one table (also written to target/bench/table.md). Takes several minutes; never run by
# CI (.ci/run runs scripts/test only).
#
#   - installs ripgrep and hyperfine with apt-get when missing, and ast-grep from PyPI (the
#     `ast-grep-cli` wheel) into its own venv, target/bench/venv;
#   - prepares the trees under target/bench/: the machine Python's standard library (`Lib`,
#     without site-packages and __pycache__), the cargo registry's sources after `cargo fetch`
#     (`registry`), and a generated repository of 20,000 files (`repo20k`);
#   - builds candor --release, runs the side-by-side comparisons with hyperfine, peak memory
#     with /usr/bin/time, `cargo bench` for the in-process figures, and examples/big_file.rs
#     (one big file: growth 4,000 → 16,000 → 64,000 calls, 5 MiB, 4 MB on one line, 100,000 calls)
#     and examples/sites_toggle.rs (a site left out of a 2,000-site rename, redrawn: < 50 ms).
#
# Usage: scripts/bench.sh [--quick]   (--quick: fewer runs, no cargo bench)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=$ROOT/target/bench
mkdir -p "$BENCH"
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
RUNS=15
[ $QUICK = 1 ] && RUNS=5

say() { printf '==> %s\n' "$*" >&2; }

# ---- tools -------------------------------------------------------------------------------------
missing=()
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
[ -x /usr/bin/time ] || missing+=(time)
command -v script >/dev/null 2>&1 || missing+=(bsdutils)
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  (apt-get update -qq && apt-get install -y -qq "${missing[@]}") >/dev/null
fi
if [ ! -x "$BENCH/venv/bin/ast-grep" ]; then
  say "ast-grep from PyPI (ast-grep-cli) into target/bench/venv"
  python3 -m venv "$BENCH/venv"
  "$BENCH/venv/bin/pip" install --quiet --disable-pip-version-check ast-grep-cli
fi
AST_GREP=$BENCH/venv/bin/ast-grep

# ---- trees -------------------------------------------------------------------------------------
if [ ! -d "$BENCH/Lib" ]; then
  STDLIB=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
  say "copying $STDLIB to target/bench/Lib (without site-packages and __pycache__)"
  mkdir -p "$BENCH/Lib"
  (cd "$STDLIB" && tar cf - --exclude=site-packages --exclude=__pycache__ .) | (cd "$BENCH/Lib" && tar xf -)
fi
if [ ! -d "$BENCH/registry" ]; then
  say "cargo fetch, then copying the registry's sources to target/bench/registry"
  cargo fetch --locked >/dev/null
  mkdir -p "$BENCH/registry"
  for index in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
    cp -r "$index". "$BENCH/registry/"
  done
fi
if [ ! -d "$BENCH/repo20k" ]; then
  say "generating target/bench/repo20k (20,000 files)"
  python3 - "$BENCH/repo20k" <<'EOF'
import os, sys
root = sys.argv[1]
for i in range(20000):
    d = f"{root}/pkg{i // 500:02d}/mod{(i // 50) % 10}"
    os.makedirs(d, exist_ok=True)
    if i % 2 == 0:
        open(f"{d}/f{i}.py", "w").write(
            f"def f{i}(a, b):\n    return a + b * {i}\n\n\nclass C{i}:\n    def m(self):\n        return f{i}(1, 2)\n")
    else:
        open(f"{d}/f{i}.rs", "w").write(
            f"pub fn f{i}(a: u32, b: u32) -> u32 {{\n    a + b * {i}\n}}\n\npub struct S{i};\n\nimpl S{i} {{\n    pub fn m(&self) -> u32 {{\n        f{i}(1, 2)\n    }}\n}}\n")
EOF
fi

say "cargo build --release"
cargo build --release --locked --quiet
CANDOR=$ROOT/target/release/candor

count() { find "$1" -type f -name "$2" | wc -l; }
say "trees: Lib $(count "$BENCH/Lib" '*.py') .py files ($(du -sh "$BENCH/Lib" | cut -f1)), registry $(count "$BENCH/registry" '*.rs') .rs files ($(du -sh "$BENCH/registry" | cut -f1)), repo20k $(find "$BENCH/repo20k" -type f | wc -l) files"
say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

# ---- measurements ------------------------------------------------------------------------------
ROWS=$BENCH/rows.tsv
: > "$ROWS"

# median (seconds) of each command of a hyperfine run, in order; HF_RUNS overrides the runs
hf() {
  local json=$BENCH/hf.json runs=${HF_RUNS:-$RUNS}
  hyperfine -N ${HF_FLAGS:-} --warmup 2 --runs "$runs" --export-json "$json" "$@" >/dev/null 2>&1
  python3 -c 'import json,sys; print(" ".join(str(r["median"]) for r in json.load(open(sys.argv[1]))["results"]))' "$json"
}
# row: target, what, ours (s), theirs (s), theirs name, goal ratio, goal kind (le: ours/theirs <= goal; ge: theirs/ours >= goal)
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$ROWS"; }

search() { # tree lang name
  local tree=$1 lang=$2 name=$3
  say "target 1: calls of \`$name\` in $tree"
  read -r ours rg < <(hf \
    "$CANDOR calls $name --root $BENCH/$tree --lang $lang" \
    "rg -w $name $BENCH/$tree")
  # ast-grep parses every file: seconds per run, so fewer runs. In Rust these names are mostly
  # methods, so its pattern is the method call; it exits 1 when nothing matches (-i).
  local pattern="$name(\$\$\$)"
  [ "$lang" = rust ] && pattern="\$R.$name(\$\$\$)"
  read -r sg < <(HF_RUNS=3 HF_FLAGS=-i hf "$AST_GREP run -p $pattern -l $lang $BENCH/$tree")
  row 1 "call sites of \`$name\` in $tree" "$ours" "$rg" "rg -w" 1.5 le
  row 1 "call sites of \`$name\` in $tree" "$ours" "$sg" "ast-grep" 2 ge
}
search Lib python dedent
search Lib python isinstance
search Lib python len
search registry rust unwrap
search registry rust push
search registry rust new

say "target 2: change signature of textwrap.dedent on Lib (dry run)"
ARGS='{"file_path":"textwrap.py","function_name":"dedent","new_parameters":[{"name":"text"},{"name":"width"}]}'
read -r ours rg < <(hf \
  "$CANDOR call refactor_change_signature '$ARGS' --root $BENCH/Lib --backend tree-sitter" \
  "rg -w dedent $BENCH/Lib")
row 2 "change_signature dry run, textwrap.dedent on Lib" "$ours" "$rg" "rg -w" 2 le

say "target 4: TUI start to first frame in repo20k (under script(1) for a terminal)"
read -r tui pty < <(hf \
  "script -qec 'stty cols 120 rows 40; env CANDOR_EXIT_AFTER_FIRST_FRAME=1 $CANDOR $BENCH/repo20k' /dev/null" \
  "script -qec 'stty cols 120 rows 40' /dev/null")
TUI_NET=$(python3 -c "print(max($tui - $pty, 0))")
row 4 "TUI start to first frame, 20,000 files (minus script's own $(python3 -c "print(f'{$pty*1000:.1f}')") ms)" "$TUI_NET" "" "" 0.100 abs

say "target 5: peak memory of the searches"
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
for spec in "Lib python len" "registry rust new" "registry rust unwrap"; do
  set -- $spec
  ours=$(rss "$CANDOR" calls "$3" --root "$BENCH/$1" --lang "$2")
  theirs=$(rss rg -w "$3" "$BENCH/$1")
  row 5 "peak memory, calls of \`$3\` in $1 (MB)" "$(python3 -c "print($ours/1024)")" "$(python3 -c "print($theirs/1024)")" "rg -w" 100 mb
done

say "target 6: one big file (examples/big_file.rs; figures with the load beside them in target/bench/big_file.txt)"
cargo build --release --locked --quiet --example big_file
: > "$BENCH/big_file.txt"
for mode in growth big oneline many; do
  [ $QUICK = 1 ] && [ $mode = growth ] && continue
  CANDOR_BIN=$CANDOR "$ROOT/target/release/examples/big_file" $mode | tee -a "$BENCH/big_file.txt" >&2
done

say "issue 26: leaving a site out of a 2,000-site rename in the TUI, key to drawn frame (examples/sites_toggle.rs; goal < 50 ms; in target/bench/sites_toggle.txt)"
cargo build --release --locked --quiet --example sites_toggle
"$ROOT/target/release/examples/sites_toggle" 2000 | tee "$BENCH/sites_toggle.txt" >&2

if [ $QUICK = 0 ]; then
  say "target 3 (and in-process figures): cargo bench"
  cargo bench --locked --bench preview >/dev/null 2>&1
  cargo bench --locked --bench search >/dev/null 2>&1
  est() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["median"]["point_estimate"] / 1e9)' "$ROOT/target/criterion/$1/new/estimates.json"; }
  for lang in rust python; do
    for tool in extract_function inline_function move_to_file change_signature; do
      row 3 "$lang preview: $tool, 10,000-line file, cached tree (cold: $(python3 -c "print(f'{$(est "preview_${lang}/${tool}_cold")*1000:.1f}')") ms)" "$(est "preview_${lang}/${tool}_cached")" "" "" 0.005 abs
    done
    row 3 "$lang preview screen, one frame at 120×40" "$(est "tui/frame_${lang}")" "" "" 0.002 abs
  done
  row 4 "TUI start to first frame, in process (engine, state, frame)" "$(est "tui/start_to_first_frame")" "" "" 0.100 abs
fi

# ---- table -------------------------------------------------------------------------------------
python3 - "$ROWS" > "$BENCH/table.md" <<'EOF'
import sys
def ms(s): return f"{float(s) * 1000:.1f} ms"
print("| target | measurement | ours | theirs | ratio | goal | met |")
print("|---|---|---:|---:|---:|---|---|")
for line in open(sys.argv[1]):
    target, what, ours, theirs, who, goal, kind = line.rstrip("\n").split("\t")
    ours_f, goal_f = float(ours), float(goal)
    if kind == "le":
        ratio = ours_f / float(theirs)
        print(f"| {target} | {what} | {ms(ours)} | {ms(theirs)} ({who}) | {ratio:.2f}× | ≤ {goal}× {who} | {'met' if ratio <= goal_f else 'not met'} |")
    elif kind == "ge":
        ratio = float(theirs) / ours_f
        print(f"| {target} | {what} | {ms(ours)} | {ms(theirs)} ({who}) | {ratio:.1f}× faster | ≥ {goal}× faster than {who} | {'met' if ratio >= goal_f else 'not met'} |")
    elif kind == "mb":
        print(f"| {target} | {what} | {ours_f:.0f} MB | {float(theirs):.0f} MB ({who}) | | < {goal} MB | {'met' if ours_f < goal_f else 'not met'} |")
    else:
        print(f"| {target} | {what} | {ms(ours)} | | | < {ms(goal)} | {'met' if ours_f < goal_f else 'not met'} |")
EOF
cat "$BENCH/table.md"
say "load average after measuring: $(cut -d' ' -f1-3 /proc/loadavg); table in target/bench/table.md"
