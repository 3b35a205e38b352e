#!/usr/bin/env bash
# Figures for issue 22 items 1 and 2 (the warm store and the persistent index), beside `rg -w`
# and the machine's load: change signature of textwrap.dedent (dry run) on a copy of the
# machine's Python standard library as the CPython `Lib` stand-in — cold without an index, with
# a warm index, and the second call of one `candor mcp` session —; `candor calls len` /
# `isinstance` with a warm index; a Rust rename of `is_empty` in a copy of syn, serde and
# regex-syntax from the cargo registry; peak RSS; the index's size against the source bytes.
# The heuristic backend (tree-sitter) throughout: the figures are candor's own engine, not rope's.
#
# Usage: scripts/bench_index.sh [RUNS]   (CANDOR_BIN: the binary, default target/release/candor;
#        BENCH_DIR: where the trees are copied, default /tmp/candor-bench-index)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
BIN=${CANDOR_BIN:-${CARGO_TARGET_DIR:-target}/release/candor}
WORK=${BENCH_DIR:-/tmp/candor-bench-index}
export CANDOR_BACKEND=tree-sitter XDG_CONFIG_HOME=$WORK/no-user-config
for needed in rg "$BIN"; do
  if ! command -v "$needed" >/dev/null 2>&1; then
    echo "bench_index.sh: $needed not found (the figures are ratios to \`rg -w\`: install ripgrep; build candor with \`cargo build --release\`)" >&2
    exit 2
  fi
done
mkdir -p "$WORK"
STDLIB=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
if [ ! -d "$WORK/Lib" ]; then
  mkdir -p "$WORK/Lib"
  (cd "$STDLIB" && tar cf - --exclude=site-packages --exclude=dist-packages --exclude=__pycache__ .) | (cd "$WORK/Lib" && tar xf -)
fi
if [ ! -d "$WORK/rs" ]; then
  mkdir -p "$WORK/rs"
  for crate in syn-2.0.119 serde-1.0.229 regex-syntax-0.8.12; do
    cp -r "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$crate" "$WORK/rs/"
  done
fi
LIB=$WORK/Lib
RS=$WORK/rs

load() { cut -d' ' -f1 /proc/loadavg; }
# The median wall time of RUNS runs of "$@", in ms (output discarded).
ms() {
  local times=() start end
  for _ in $(seq "$RUNS"); do
    start=$(date +%s%N); "$@" >/dev/null 2>&1 || true; end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"
}
# Building the index makes `.candor/` in the root, which moves the root directory's stamp: for
# the racy window after that (2 s) the scan does not trust the walk's listing and walks, as it
# does after any file is added or removed. "Warm" is the state after that: wait it out.
settle() { sleep 2.5; }
row() { # name ms rg_ms
  printf '%-58s %7s ms  %6s× rg   (load %s)\n' "$1" "$2" "$(python3 -c "print(f'{$2/max($3,1):.2f}')")" "$(load)"
}
# RUNS pairs, each the text search REF (one string) and then "$@": the median wall time of each
# and the median of the pairs' ratios, as "ms rg_ms ratio". A machine whose speed drifts during
# the bench (a VM's neighbours) slows both runs of a pair alike: the pairs' ratio holds where two
# medians taken minutes apart straddle a target by a third.
paired() { # REF CMD...
python3 - "$RUNS" "$@" <<'PY'
import shlex, statistics, subprocess, sys, time
runs, ref, cmd = int(sys.argv[1]), shlex.split(sys.argv[2]), sys.argv[3:]
def wall(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000
pairs = [(wall(ref), wall(cmd)) for _ in range(runs)]
ours = statistics.median(p[1] for p in pairs)
rg = statistics.median(p[0] for p in pairs)
ratio = statistics.median(p[1] / max(p[0], 0.001) for p in pairs)
print(f"{ours:.0f} {rg:.0f} {ratio:.2f}")
PY
}
row_paired() { # name REF CMD...
  local name=$1 ours rg ratio
  shift
  read -r ours rg ratio < <(paired "$@")
  printf '%-58s %7s ms  %6s× rg   (paired: rg %s ms; load %s)\n' "$name" "$ours" "$ratio" "$rg" "$(load)"
}

DEDENT='{"file_path":"textwrap.py","function_name":"dedent","new_parameters":[{"name":"text"},{"name":"strip","default":"False"}],"dry_run":true}'
echo "Lib: $(find "$LIB" -name '*.py' | wc -l) .py files, $(find "$LIB" -name '*.py' -print0 | du -cb --files0-from=- | tail -1 | cut -f1) bytes; rust tree: $(find "$RS" -name '*.rs' | wc -l) .rs files"

rg_dedent=$(ms rg -w dedent -t py "$LIB")
row "rg -w dedent (Lib)" "$rg_dedent" "$rg_dedent"
rm -rf "$LIB/.candor"
RG_DEDENT="rg -w dedent -t py $LIB"
row_paired "change signature dedent, dry run, no index" "$RG_DEDENT" \
  "$BIN" call refactor_change_signature "$DEDENT" --root "$LIB"
"$BIN" index --root "$LIB" >/dev/null 2>&1
settle
# The first call after the index is built computes the per-file facts and keeps them beside the
# index (.candor/index/facts/); the next ones read them.
first_facts=$(RUNS=1 ms "$BIN" call refactor_change_signature "$DEDENT" --root "$LIB")
row "change signature dedent, warm index, facts not kept yet" "$first_facts" "$rg_dedent"
row_paired "change signature dedent, dry run, warm index" "$RG_DEDENT" \
  "$BIN" call refactor_change_signature "$DEDENT" --root "$LIB"
row_paired "same, heaps not advised as huge pages (CANDOR_HUGE_PAGES=0)" "$RG_DEDENT" \
  env CANDOR_HUGE_PAGES=0 "$BIN" call refactor_change_signature "$DEDENT" --root "$LIB"

# `candor mcp` sessions, each the same call 1 + 10 times: the wall time of the first and the
# median of the next ten, as the client sees them, and their ratio; the medians over SESSIONS
# sessions (default 5: one session's first call is a single sample). Twice: with no facts on disk
# before each session (the first call is cold: it judges every candidate), then with the facts
# the sessions left (the first call of a session is then warm itself, and the ratio means less).
SESSIONS=${SESSIONS:-5}
mcp_session() { # ROOT TOOL ARGS [FRESH: remove the facts before each session]
python3 - "$BIN" "$1" "$2" "$3" "$SESSIONS" "${4:-0}" <<'PY'
import json, shutil, statistics, subprocess, sys, time
bin, root, tool, args = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
sessions, fresh = int(sys.argv[5]), sys.argv[6] == "1"
def session():
  if fresh:
    shutil.rmtree(root + "/.candor/index/facts", ignore_errors=True)
  p = subprocess.Popen([bin, "mcp", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
  def send(msg):
      p.stdin.write(json.dumps(msg) + "\n"); p.stdin.flush()
  def answer():
      while True:
          msg = json.loads(p.stdout.readline())
          if "id" in msg:
              return msg
  send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
  answer()
  send({"jsonrpc": "2.0", "method": "notifications/initialized"})
  times = []
  for i in range(1, 12):
      start = time.perf_counter()
      send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": args}})
      reply = answer()
      assert "result" in reply and not reply["result"].get("isError"), str(reply)[:300]
      times.append((time.perf_counter() - start) * 1000)
  p.stdin.close(); p.wait()
  return times[0], sorted(times[1:])[5]
runs = [session() for _ in range(sessions)]
first = statistics.median(r[0] for r in runs)
second = statistics.median(r[1] for r in runs)
ratio = statistics.median(r[1] / max(r[0], 1) for r in runs)
print(f"{first:.1f} {second:.1f} {ratio:.2f}")
PY
}
read -r first second ratio < <(mcp_session "$LIB" refactor_change_signature "$DEDENT" 1)
row "mcp session, first call (warm index, no facts on disk)" "$first" "$rg_dedent"
row "mcp session, next calls (median of 10)" "$second" "$rg_dedent"
echo "  next / first = $ratio (median over $SESSIONS sessions)"
read -r first second ratio < <(mcp_session "$LIB" refactor_change_signature "$DEDENT")
row "mcp session, first call (facts on disk)" "$first" "$rg_dedent"
row "mcp session, next calls (median of 10)" "$second" "$rg_dedent"
echo "  next / first = $ratio (median over $SESSIONS sessions)"

for name in len isinstance; do
  rg_ms=$(ms rg -w "$name" -t py "$LIB")
  row "rg -w $name (Lib)" "$rg_ms" "$rg_ms"
  row_paired "candor calls $name, warm index" "rg -w $name -t py $LIB" \
    "$BIN" calls "$name" --lang python --root "$LIB"
done

RENAME='{"file_path":"syn-2.0.119/src/punctuated.rs","symbol_name":"is_empty","new_name":"is_void","dry_run":true}'
rg_rs=$(ms rg -w is_empty -t rust "$RS")
row "rg -w is_empty (syn+serde+regex-syntax)" "$rg_rs" "$rg_rs"
rm -rf "$RS/.candor"
RG_RS="rg -w is_empty -t rust $RS"
row_paired "rename is_empty, dry run, no index" "$RG_RS" \
  "$BIN" call refactor_rename_symbol "$RENAME" --root "$RS"
"$BIN" index --root "$RS" >/dev/null 2>&1
settle
row_paired "rename is_empty, dry run, warm index" "$RG_RS" \
  "$BIN" call refactor_rename_symbol "$RENAME" --root "$RS"
row_paired "same, heaps not advised as huge pages (CANDOR_HUGE_PAGES=0)" "$RG_RS" \
  env CANDOR_HUGE_PAGES=0 "$BIN" call refactor_rename_symbol "$RENAME" --root "$RS"
read -r first second ratio < <(mcp_session "$RS" refactor_rename_symbol "$RENAME")
row "rename is_empty, mcp session, first call" "$first" "$rg_rs"
row "rename is_empty, mcp session, next calls (median of 10)" "$second" "$rg_rs"

rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
echo "peak RSS, change signature with warm index: $(rss "$BIN" call refactor_change_signature "$DEDENT" --root "$LIB") KB (load $(load))"
mv "$LIB/.candor/index" "$LIB/.candor/index.off"
echo "peak RSS, change signature without index: $(rss "$BIN" call refactor_change_signature "$DEDENT" --root "$LIB") KB (load $(load))"
mv "$LIB/.candor/index.off" "$LIB/.candor/index"
rm -rf "$LIB/.candor/index"
start=$(date +%s%N); "$BIN" index --root "$LIB" >/dev/null 2>&1; end=$(date +%s%N)
echo "first index build of Lib: $(( (end - start) / 1000000 )) ms (load $(load))"
src=$(find "$LIB" -name '*.py' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
idx=$(stat -c %s "$LIB/.candor/index/index.bin")
echo "index size: $idx bytes for $src source bytes ($(python3 -c "print(f'{100*$idx/$src:.1f}')")%)"
"$BIN" call refactor_change_signature "$DEDENT" --root "$LIB" >/dev/null 2>&1
if [ -d "$LIB/.candor/index/facts" ]; then
  facts=$(du -sb "$LIB/.candor/index/facts" | cut -f1); facts_disk=$(du -sk "$LIB/.candor/index/facts" | cut -f1)
  echo "facts after one dedent call: $("$BIN" index --status --root "$LIB" 2>/dev/null | sed -n 's/^facts[^:]*: \([0-9]* entries in [0-9]* packs\).*/\1/p'), $facts bytes ($facts_disk KB of disk)"
fi
