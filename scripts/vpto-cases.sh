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
for k in $(find "$cases" -name kernel.pto | sort); do
  d=$(dirname "$k"); rel=${d#"$cases"/}
  w="$work/$rel"; rm -rf "$w"; mkdir -p "$w"; cp -r "$d/." "$w/"
  # shared helpers next to the case directories (golden.py/compare.py
  # import them from their parent directory)
  for h in "$(dirname "$d")"/_*.py; do [ -f "$h" ] && cp "$h" "$(dirname "$w")/"; done
  msg=$(cd "$w" && timeout 120 "$pto_run" case . --golden-script --check warn -q 2>&1)
  rc=$?
  m=$(echo "$msg" | grep -E "runtime fault|differs|cannot|error|Error|failed|expected" | head -1 | cut -c1-200)
  echo "$rc $rel :: $m" >> "$results"
done
# per category: vmi_new, kernels, micro-op/<sub>, onboard-only
awk '{ split($2, p, "/"); c = (p[1] == "micro-op") ? p[1] "/" p[2] : p[1];
       n[c]++; if ($1 == 0) ok[c]++; tn++; if ($1 == 0) tok++ }
     END { for (c in n) printf "%-40s %d/%d\n", c, ok[c], n[c]; printf "%-40s %d/%d\n", "total", tok, tn }' \
  "$results" | sort
echo "per-case results (exit code, case, first error): $results"
