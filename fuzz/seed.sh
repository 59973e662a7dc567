#!/usr/bin/env bash
# Fills fuzz/corpus/{parse,decode} (gitignored) with seed inputs: the kernels
# embedded in asm/tests/*.rs, plus optionally the small .pto files of a PTOAS
# checkout (`fuzz/seed.sh /path/to/PTOAS/test`), and their assembled .ptobin.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cargo build --quiet --manifest-path "$root/Cargo.toml" -p pto-asm --bin pto-as
pto_as="$root/target/debug/pto-as"
mkdir -p "$here/corpus/parse" "$here/corpus/decode"
python3 - "$root" "$here/corpus/parse" <<'PY'
import re, sys, pathlib
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for f in sorted((root / "asm" / "tests").glob("*.rs")):
    for k, m in enumerate(re.findall(r'r#"(.*?)"#', f.read_text(), re.S)):
        if "module" in m or "func.func" in m:
            (out / f"own_{f.stem}_{k}.pto").write_text(m)
PY
if [[ $# -gt 0 ]]; then
    i=0
    while IFS= read -r f; do
        i=$((i + 1))
        cp "$f" "$here/corpus/parse/ext$i.pto"
    done < <(find "$1" -name '*.pto' -size -4k | sort | head -200)
fi
for f in "$here"/corpus/parse/*.pto; do
    "$pto_as" "$f" -o "$here/corpus/decode/$(basename "$f" .pto).ptobin" >/dev/null 2>&1 || true
done
echo "seeds: $(ls "$here/corpus/parse" | wc -l) parse, $(ls "$here/corpus/decode" | wc -l) decode"
