#!/usr/bin/env bash
# Runs every PTOAS `test/vpto/cases/**` directory (kernel.pto + golden.py
# [+ compare.py]) through `pto-run case DIR --golden-script`, each on a scratch
# copy, and prints the pass count per category.
#
# Usage: scripts/vpto-cases.sh <PTOAS>/test/vpto/cases [PTO_RUN] [WORK_DIR]
# Needs python3 + numpy and a built pto-run (default target/release/pto-run).
set -u
cases=${1:?usage: scripts/vpto-cases.sh <PTOAS>/test/vpto/cases [PTO_RUN] [WORK_DIR]}
pto_run=$(realpath "${2:-target/release/pto-run}")
work=${3:-/tmp/ptovm-vpto-cases}
results="$work/results.txt"
mkdir -p "$work"; : > "$results"

# A case whose main.cpp pto-run cannot trace (buffers set up through helper
# structs) and whose golden.py names its files after the kernel's parameters:
# the `__global__` declaration in launch.cpp names parameter K, and golden.py
# wrote NAME.bin (and golden_NAME.bin for outputs). Bind those to vK.bin /
# golden_vK.bin (the files give the sizes), run, copy each output back to
# NAME.bin and let compare.py judge, as the on-board flow does. Any parameter
# without its NAME.bin leaves the case as it was.
bind_by_launch_names() {
  local dir=$1 pairs out rc
  pairs=$(cd "$dir" && python3 - <<'PY'
import pathlib, re
src = re.sub(r"//[^\n]*", "", pathlib.Path("launch.cpp").read_text())
m = re.search(r"__global__[^(;]*?\b\w+\s*\(([^)]*)\)", src, re.S)
names = [re.findall(r"\w+", p)[-1] for p in m.group(1).split(",")] if m else []
if names and all(pathlib.Path(f"{n}.bin").is_file() for n in names):
    for k, n in enumerate(names, 1):
        print(k, n)
PY
)
  if [ -z "$pairs" ]; then echo "$msg"; return 2; fi
  while read -r k n; do
    cp "$dir/$n.bin" "$dir/v$k.bin"
    [ -f "$dir/golden_$n.bin" ] && cp "$dir/golden_$n.bin" "$dir/golden_v$k.bin"
  done <<< "$pairs"
  out=$(cd "$dir" && timeout 120 "$pto_run" case . --out-dir . --check warn -q 2>&1); rc=$?
  if [ $rc -le 1 ] && [ -f "$dir/compare.py" ]; then
    while read -r k n; do
      [ -f "$dir/golden_$n.bin" ] && cp "$dir/v$k.bin" "$dir/$n.bin"
    done <<< "$pairs"
    out="$out"$'\n'$(cd "$dir" && python3 compare.py 2>&1); rc=$?
  fi
  echo "$out"; return $rc
}
for k in $(find "$cases" -name kernel.pto | sort); do
  d=$(dirname "$k"); rel=${d#"$cases"/}
  w="$work/$rel"; rm -rf "$w"; mkdir -p "$w"; cp -r "$d/." "$w/"
  # shared helpers next to the case directories (golden.py/compare.py
  # import them from their parent directory)
  for h in "$(dirname "$d")"/_*.py; do [ -f "$h" ] && cp "$h" "$(dirname "$w")/"; done
  msg=$(cd "$w" && timeout 120 "$pto_run" case . --golden-script --check warn -q 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && echo "$msg" | grep -q "cannot size" && [ -f "$w/launch.cpp" ]; then
    msg=$(bind_by_launch_names "$w"); rc=$?
  fi
  m=$(echo "$msg" | grep -E "runtime fault|differs|cannot|error|Error|failed|expected" | head -1 | cut -c1-200)
  echo "$rc $rel :: $m" >> "$results"
done
# per category: vmi_new, kernels, micro-op/<sub>, onboard-only
awk '{ split($2, p, "/"); c = (p[1] == "micro-op") ? p[1] "/" p[2] : p[1];
       n[c]++; if ($1 == 0) ok[c]++; tn++; if ($1 == 0) tok++ }
     END { for (c in n) printf "%-40s %d/%d\n", c, ok[c], n[c]; printf "%-40s %d/%d\n", "total", tok, tn }' \
  "$results" | sort
echo "per-case results (exit code, case, first error): $results"
