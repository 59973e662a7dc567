#!/usr/bin/env bash
# Fills fuzz/corpus/{parse,decode,run,npy} (gitignored) with seed inputs and writes
# fuzz/run.dict (gitignored), the dictionary of the `run` target.
#
#   fuzz/seed.sh [DIR...]
#
# parse: the kernels embedded in asm/tests/*.rs, plus the small .pto files under
# every DIR (e.g. a PTOAS checkout's test/); decode: their assembled .ptobin.
# run: the conformance kernels, examples/**/*.pto, the kernels embedded in
# vm/tests/*.rs, and every .pto under each DIR of at most 16 KiB.
# npy: small arrays of every element type numpy writes for ptovm, C and
# Fortran order, both byte orders, format versions 1 to 3 (needs numpy).
# run.dict: every op name and alias of the isa-spec table, plus the `pto.`,
# `#pto.` and `!pto.` words and `key=` attributes the seed kernels use.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cargo build --quiet --manifest-path "$root/Cargo.toml" -p pto-asm --bin pto-as
pto_as="${CARGO_TARGET_DIR:-$root/target}/debug/pto-as"
mkdir -p "$here/corpus/parse" "$here/corpus/decode" "$here/corpus/run"
python3 - "$root" "$here/corpus/parse" "$here/corpus/run" <<'PY'
import re, sys, pathlib
root, out, run = (pathlib.Path(a) for a in sys.argv[1:4])
for f in sorted((root / "asm" / "tests").glob("*.rs")):
    for k, m in enumerate(re.findall(r'r#"(.*?)"#', f.read_text(), re.S)):
        if "module" in m or "func.func" in m:
            (out / f"own_{f.stem}_{k}.pto").write_text(m)
for f in sorted((root / "vm" / "tests").glob("*.rs")):
    for k, m in enumerate(re.findall(r'r#"(.*?)"#', f.read_text(), re.S)):
        if "func.func" in m:
            (run / f"vm_{f.stem}_{k}.pto").write_text(m)
for d in ("conformance/cases", "examples"):
    for f in sorted((root / d).rglob("*.pto")):
        name = "_".join(f.relative_to(root).parts).replace("/", "_")
        (run / name).write_bytes(f.read_bytes())
PY
i=0
for d in "$@"; do
    while IFS= read -r f; do
        i=$((i + 1))
        [[ $(stat -c %s "$f") -lt 4096 ]] && cp "$f" "$here/corpus/parse/ext$i.pto"
        cp "$f" "$here/corpus/run/ext$i.pto"
    done < <(find "$d" -name '*.pto' -size -16k | sort)
done
for f in "$here"/corpus/parse/*.pto; do
    "$pto_as" "$f" -o "$here/corpus/decode/$(basename "$f" .pto).ptobin" >/dev/null 2>&1 || true
done
python3 - "$root" "$here/corpus/run" "$here/run.dict" <<'PY'
import re, sys, pathlib
root, run, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
words = set()
table = (root / "isa-spec" / "src" / "table.rs").read_text()
for m in re.finditer(r'^\s*[A-Z]\w*: ("[^"]+")(?: \[([^\]]*)\])?,', table, re.M):
    words.add(m.group(1).strip('"'))
    for a in re.findall(r'"([^"]+)"', m.group(2) or ""):
        words.add(a)
for f in run.glob("*.pto"):
    t = f.read_text(errors="replace")
    words.update(re.findall(r'[#!]?pto\.[A-Za-z_][\w.]*', t))
    words.update(re.findall(r'(?<=[<{,( ])[a-z_][a-z0-9_]*=', t))
    words.update(re.findall(r'![a-z]+\.?[a-z_]*<', t))
for w in ("0x7fffffff", "-1", "65536", "4294967296", "9223372036854775807",
          "-9223372036854775808", "2147483648", "?", "index", "i64", "i32",
          "f16", "f32", "bf16", "i8", "u8", "%c0", "arith.constant"):
    words.add(w)
words = sorted(w for w in words if 0 < len(w) <= 64 and '"' not in w and "\\" not in w)
out.write_text("".join(f'"{w}"\n' for w in words))
print(f"dictionary: {len(words)} words")
PY
mkdir -p "$here/corpus/npy"
python3 - "$here/corpus/npy" <<'PY'
import sys, pathlib
import numpy as np
from numpy.lib import format as npf
out = pathlib.Path(sys.argv[1])
k = 0
for dt in ("<f4", ">f4", "<f2", "<f8", "|i1", "|u1", "<i2", ">u2", "<i4", "<u4", "<i8", ">u8", "|b1"):
    for shape in ((), (3,), (2, 3), (2, 1, 3), (0, 4)):
        a = (np.arange(int(np.prod(shape))) % 7).astype(dt).reshape(shape)
        for order, version in (("C", (1, 0)), ("F", (1, 0)), ("C", (2, 0)), ("F", (3, 0))):
            k += 1
            with open(out / f"seed{k}.npy", "wb") as f:
                npf.write_array(f, np.asarray(a, order=order), version=version)
PY
echo "seeds: $(ls "$here/corpus/parse" | wc -l) parse, $(ls "$here/corpus/decode" | wc -l) decode, $(ls "$here/corpus/run" | wc -l) run, $(ls "$here/corpus/npy" | wc -l) npy"
