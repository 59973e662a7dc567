#!/usr/bin/env python3
"""Run PTOAS `test/samples` kernels that ship numpy golden scripts through ptovm.

Usage: scripts/ptoas-samples.py [--pto-run PATH] [--work DIR] [--int-defaults FILE]
                                SAMPLES_DIR [NAME_FILTER...]

PTOAS's sample golden scripts (`<case>_golden.py`, using the samples'
`validation_runtime.py`) read a `main.cpp` and an `outputs.txt` that the PTOAS
toolchain generates from the compiled kernel. This script writes equivalent
files from the `.pto` kernel itself, so the goldens can run without the
toolchain:

  * every pointer argument vK gets `size_t elemCount_vK = N;` with N the
    extent of the tensor views built on it (constant shapes and strides; for
    a view of runtime shape, the elements its constant partitions reach; for
    an argument the kernel never uses, 32 x 32, the toolchain's default),
    `fileSize_vK = elemCount_vK * sizeof(HOST_TYPE)` and a `ReadFile` line;
  * every integer/index argument gets `int32_t vK = 1;` (the toolchain's
    default; per-case values from `--int-defaults`, a Python file defining
    CASE_INT_SCALAR_DEFAULTS like PTOAS's generate_testcase.py); when the
    golden script then fails (the toolchain also grows buffers to cover
    partitions outside the kernel's views), the case is retried with 0;
  * outputs.txt lists the arguments some `tstore` writes through its views
    (none: the last pointer argument, as the toolchain does).

Samples with an `npu_validation/` directory (main.cpp + golden.py shipped,
several Launch* calls) are replayed as a host program: each launch runs one
`.pto` of the sample with pto-run, device buffers passed between launches as
files, then the directory's compare.py judges the result.

Each case runs in a scratch copy (--work, default /tmp/ptoas-samples):
golden script, then `pto-run case DIR`, then the sample's `<case>_compare.py`
when there is one. Prints one line per kernel and a summary. Nothing is
written into the samples directory. Needs python3 + numpy and a built pto-run.
"""
import argparse, importlib.util, os, re, shutil, subprocess, sys
from pathlib import Path

HOST = {
    'f32': 'float', 'f16': 'aclFloat16', 'bf16': 'bfloat16_t', 'f64': 'double',
    'i8': 'int8_t', 'ui8': 'uint8_t', 'u8': 'uint8_t', 'i16': 'int16_t',
    'ui16': 'uint16_t', 'u16': 'uint16_t', 'i32': 'int32_t', 'ui32': 'uint32_t',
    'u32': 'uint32_t', 'i64': 'int64_t', 'ui64': 'uint64_t', 'u64': 'uint64_t',
}


def entry_function(text):
    """(name, [(arg, type)]) of the kernel's entry function."""
    funcs = []
    for m in re.finditer(r'func\.func\s+(?:private\s+)?@(\w+)\s*\(', text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {'(': 1, ')': -1}.get(text[i], 0)
            i += 1
        params = text[m.end():i - 1]
        tail = text[i:i + 200]
        args = []
        for p in re.finditer(r'(%[\w.$-]+)\s*:\s*((?:![\w.]+(?:<[^>]*>)?)|\w+)', params):
            args.append((p.group(1), p.group(2)))
        funcs.append((m.group(1), args, 'pto.entry' in tail or 'pto.kernel' in tail))
    marked = [f for f in funcs if f[2]]
    f = (marked or funcs or [(None, [], False)])[0]
    return f[0], f[1]


def constants(text):
    out = {}
    for m in re.finditer(r'(%[\w.$-]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:\s*(index|i\d+)', text):
        out[m.group(1)] = int(m.group(2))
    return out


def operands(blob):
    return [x.strip() for x in blob.split(',') if x.strip()]


def analyse(text, scalars):
    """Per pointer argument: element extent, and which arguments are written."""
    env = dict(constants(text))
    env.update(scalars)
    view_arg, extents = {}, {}
    for m in re.finditer(
            r'(%[\w.$-]+)\s*=\s*pto\.make_tensor_view\s+(%[\w.$-]+)\s*,\s*shape\s*=\s*\[([^\]]*)\]\s*,\s*strides\s*=\s*\[([^\]]*)\]',
            text):
        view, arg, shape, strides = m.groups()
        view_arg[view] = arg
        try:
            sh = [env[x] if x.startswith('%') else int(x) for x in operands(shape)]
            st = [env[x] if x.startswith('%') else int(x) for x in operands(strides)]
        except (KeyError, ValueError):
            continue
        n = 1 + sum((a - 1) * b for a, b in zip(sh, st)) if all(a > 0 for a in sh) else 0
        extents[arg] = max(extents.get(arg, 0), n)
    # a view of runtime shape but constant strides: the elements its
    # constant-shaped partitions reach (as PTOAS's generate_testcase.py sizes
    # such buffers from what the kernel accesses)
    reach = {}
    for m in re.finditer(
            r'(%[\w.$-]+)\s*=\s*pto\.make_tensor_view\s+(%[\w.$-]+)\s*,\s*shape\s*=\s*\[[^\]]*\]\s*,\s*strides\s*=\s*\[([^\]]*)\]',
            text):
        view, arg, strides = m.groups()
        try:
            st = [env[x] if x.startswith('%') else int(x) for x in operands(strides)]
        except (KeyError, ValueError):
            continue
        for p in re.finditer(
                r'pto\.partition_view\s+' + re.escape(view) + r'\s*,\s*offsets\s*=\s*\[([^\]]*)\]\s*,\s*sizes\s*=\s*\[([^\]]*)\]',
                text):
            try:
                off = [env[x] if x.startswith('%') else int(x) for x in operands(p.group(1))]
                sz = [env[x] if x.startswith('%') else int(x) for x in operands(p.group(2))]
            except (KeyError, ValueError):
                continue
            if len(off) == len(sz) == len(st) and all(a > 0 for a in sz):
                n = 1 + sum((o + a - 1) * b for o, a, b in zip(off, sz, st))
                reach[arg] = max(reach.get(arg, 0), n)
    for arg, n in reach.items():
        extents.setdefault(arg, n)
    # partition views (and chains of them) lead back to an argument
    for _ in range(4):
        for m in re.finditer(r'(%[\w.$-]+)\s*=\s*pto\.(?:partition_view|subview)\s+(%[\w.$-]+)', text):
            if m.group(2) in view_arg:
                view_arg[m.group(1)] = view_arg[m.group(2)]
    written = set()
    for m in re.finditer(r'pto\.tstore\s+ins\([^)]*\)\s*outs\(\s*(%[\w.$-]+)', text):
        if m.group(1) in view_arg:
            written.add(view_arg[m.group(1)])
    return extents, written


WORKSPACE_BYTES = 4096
UNUSED_ELEMS = 32 * 32


def workspace_only(text, arg):
    """True when `arg` is used only as a prefetch context's workspace."""
    uses = re.findall(re.escape(arg) + r'(?![\w.$-])', text)
    ctx = re.findall(r'make_prefetch_async_context\(\s*' + re.escape(arg) + r'(?![\w.$-])', text)
    # the definition in the signature, plus context uses only
    return len(ctx) > 0 and len(uses) == 1 + len(ctx)


def build_case(kernel, golden, work, int_defaults):
    text = kernel.read_text()
    name, args = entry_function(text)
    if not name:
        return None, 'no function in the kernel'
    case = kernel.stem
    defaults = int_defaults.get(case, {})
    scalar_vals, lines, reads, launch = {}, [], [], []
    for k, (arg, ty) in enumerate(args, 1):
        v = f'v{k}'
        if ty in ('index',) or re.fullmatch(r'i(8|16|32|64)', ty):
            val = int(defaults.get(v, 1))
            scalar_vals[arg] = val
            lines.append(f'    int32_t {v} = {val};')
            launch.append(v)
    extents, written = analyse(text, scalar_vals)
    for k, (arg, ty) in enumerate(args, 1):
        v = f'v{k}'
        m = re.match(r'!pto\.ptr<(\w+)', ty)
        if not m:
            if arg not in scalar_vals:
                return None, f'argument {arg} has type {ty}, which the generated main.cpp cannot pass'
            continue
        host = HOST.get(m.group(1))
        if host is None:
            return None, f'argument {arg}: no host type for {m.group(1)}'
        n = extents.get(arg)
        workspace = not n and workspace_only(text, arg)
        if workspace:
            # a prefetch context's workspace: ptovm models no L2 and never
            # reads it, so any size does; the golden script writes no file
            n = WORKSPACE_BYTES // SIZEOF.get(host, 1)
        if not n and not re.search(re.escape(arg) + r'(?![\w.$-])', text.split(arg, 1)[1]):
            # never used after the signature: PTOAS's generator gives such a
            # buffer its default logical size, 32 x 32 elements
            n = UNUSED_ELEMS
        if not n:
            return None, f'argument {arg}: no constant-shaped tensor view says how big it is'
        lines.append(f'    size_t elemCount_{v} = {n};')
        lines.append(f'    size_t fileSize_{v} = elemCount_{v} * sizeof({host});')
        if not workspace:
            reads.append(f'    ReadFile("./{v}.bin", fileSize_{v}, {v}Host, fileSize_{v});')
    launch_args = []
    for k, (arg, ty) in enumerate(args, 1):
        launch_args.append(f'v{k}' if arg in scalar_vals else f'v{k}Device')
    outputs = [f'v{k}' for k, (arg, _) in enumerate(args, 1) if arg in written]
    pointers = [f'v{k}' for k, (arg, ty) in enumerate(args, 1) if ty.startswith('!pto.ptr<')]
    if not outputs and pointers:
        # nothing stores: PTOAS's generator then takes the last pointer as
        # the output (the golden expects it unchanged)
        outputs = pointers[-1:]
    if not outputs:
        return None, 'no argument is written by a tstore (outputs.txt would be empty)'
    d = work / kernel.parent.name / case
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    shutil.copy(kernel, d / 'kernel.pto')
    # the golden script and the helpers it imports, next to it
    shutil.copy(golden, d / 'golden.py')
    for helper in list(golden.parent.glob('*_lib.py')) + [golden.parent.parent / 'validation_runtime.py']:
        if helper.is_file():
            shutil.copy(helper, d / helper.name)
    compare = golden.parent / golden.name.replace('_golden.py', '_compare.py')
    if compare.is_file():
        shutil.copy(compare, d / 'compare.py')
    main = ['// generated by ptovm scripts/ptoas-samples.py from kernel.pto', 'int main() {']
    main += lines + reads
    main.append(f'    Launch{name}({", ".join(launch_args + ["stream"])});')
    main.append('}')
    (d / 'main.cpp').write_text('\n'.join(main) + '\n')
    (d / 'outputs.txt').write_text('\n'.join(outputs) + '\n')
    return d, None


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, f'timed out after {timeout}s'


SIZEOF = {'float': 4, 'int32_t': 4, 'uint32_t': 4, 'aclFloat16': 2, 'half': 2,
          'bfloat16_t': 2, 'int16_t': 2, 'uint16_t': 2, 'int8_t': 1, 'uint8_t': 1,
          'int64_t': 8, 'uint64_t': 8, 'double': 8}


def size_expr(expr, env):
    e = re.sub(r'sizeof\((\w+)\)', lambda m: str(SIZEOF.get(m.group(1), 4)), expr)
    for k, v in env.items():
        e = re.sub(rf'\b{k}\b', str(v), e)
    if not re.fullmatch(r'[\d\s*+()-]+', e):
        raise ValueError(f'cannot evaluate size {expr!r}')
    return int(eval(e))


def host_program(sample, d, pto_run, timeout):
    """Replays an npu_validation main.cpp: every Launch* call runs one .pto
    kernel of the sample through pto-run, device buffers kept as files."""
    text = (d / 'main.cpp').read_text()
    body = text[text.index('int main'):]
    env, sizes = {}, {}
    for m in re.finditer(r'size_t\s+(\w+)\s*=\s*([^;]+);', body):
        env[m.group(1)] = size_expr(m.group(2), env)
    scalars = {m.group(1): int(m.group(2)) for m in re.finditer(r'int32_t\s+(\w+)\s*=\s*(-?\d+);', body)}
    host_file = {m.group(2): m.group(1) for m in re.finditer(r'ReadFile\("\./(\w+)\.bin",\s*\w+,\s*(\w+)', body)}
    for m in re.finditer(r'aclrtMalloc\(\(void \*\*\)&(\w+),\s*([^,]+),', body):
        sizes[m.group(1)] = size_expr(m.group(2), env)
    dev = {}
    for dv, n in sizes.items():
        f = d / f'dev_{dv}.bin'
        f.write_bytes(bytes(n))
        dev[dv] = f
    for m in re.finditer(r'aclrtMemcpy\((\w+),\s*[^,]+,\s*(\w+),\s*[^,]+,\s*ACL_MEMCPY_HOST_TO_DEVICE', body):
        dv, hv = m.groups()
        if hv in host_file and dv in dev:
            dev[dv].write_bytes((d / f'{host_file[hv]}.bin').read_bytes())
    kernels = {}
    for k in sample.glob('*.pto'):
        for fm in re.finditer(r'func\.func\s+(?:private\s+)?@(\w+)', k.read_text()):
            kernels.setdefault(fm.group(1).lower(), (k, fm.group(1)))
    for m in re.finditer(r'\bLaunch(\w+)\(([^;]*)\);', body):
        name, args = m.group(1), [x.strip() for x in m.group(2).split(',')][:-1]
        if name.lower() not in kernels:
            return 'skip', f'no .pto in {sample.name} defines @{name}'
        kfile, fname = kernels[name.lower()]
        cmd = [pto_run, str(kfile), '--entry', fname, '--check', 'warn', '-q']
        outs = []
        for i, a in enumerate(args, 1):
            if a in dev:
                cmd += ['--arg', f'v{i}={dev[a]}']
                nf = d / f'dev_{a}.out.bin'
                outs.append((nf, dev[a]))
                cmd += ['--out', f'v{i}={nf}']
            elif a in scalars:
                cmd += ['--arg', f'v{i}={scalars[a]}']
            else:
                cmd += ['--arg', f'v{i}={a}']
        rc, out = run(cmd, d, timeout)
        if rc != 0:
            last = [l for l in out.strip().splitlines() if l.startswith(('pto-run', str(kfile)))]
            return {1: 'mismatch', 2: 'bad-input', 3: 'fault', 4: 'limit'}.get(rc, f'exit-{rc}'), \
                f'{kfile.name} @{fname}: ' + (last[-1] if last else out.strip()[-200:])[:200]
        for nf, f in outs:
            nf.replace(f)
    # device -> host -> files the compare script reads
    d2h = {m.group(1): m.group(2) for m in re.finditer(r'aclrtMemcpy\((\w+),\s*[^,]+,\s*(\w+),\s*[^,]+,\s*ACL_MEMCPY_DEVICE_TO_HOST', body)}
    for m in re.finditer(r'WriteFile\("\./(\w+)\.bin",\s*(\w+)', body):
        out_name, hv = m.groups()
        if hv in d2h and d2h[hv] in dev:
            (d / f'{out_name}.bin').write_bytes(dev[d2h[hv]].read_bytes())
    return 'pass', ''


def validation_samples(root, work, pto_run, timeout, filters):
    rows = []
    for nv in sorted(root.glob('*/npu_validation')):
        label = f'{nv.parent.name}/npu_validation'
        if filters and not any(f in label for f in filters):
            continue
        if not (nv / 'main.cpp').is_file() or not (nv / 'golden.py').is_file():
            continue
        d = work / nv.parent.name / 'npu_validation'
        if d.exists():
            shutil.rmtree(d)
        shutil.copytree(nv, d)
        rc, out = run([sys.executable, 'golden.py'], d, timeout)
        if rc != 0:
            rows.append((label, 'golden-failed', out.strip().splitlines()[-1][:160] if out.strip() else ''))
            continue
        try:
            verdict, msg = host_program(nv.parent, d, pto_run, timeout)
        except (ValueError, OSError) as e:
            verdict, msg = 'skip', str(e)
        if verdict == 'pass' and (d / 'compare.py').is_file():
            crc, cout = run([sys.executable, 'compare.py'], d, timeout)
            if crc != 0:
                verdict, msg = 'compare-failed', cout.strip().splitlines()[-1][:200] if cout.strip() else ''
        rows.append((label, verdict, msg))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('samples')
    ap.add_argument('filters', nargs='*')
    ap.add_argument('--pto-run', default='target/release/pto-run')
    ap.add_argument('--work', default='/tmp/ptoas-samples')
    ap.add_argument('--int-defaults', help='a .py file defining CASE_INT_SCALAR_DEFAULTS')
    ap.add_argument('--timeout', type=int, default=600)
    a = ap.parse_args()
    pto_run = str(Path(a.pto_run).resolve())
    int_defaults = {}
    if a.int_defaults:
        spec = importlib.util.spec_from_file_location('ptoas_gen', a.int_defaults)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        int_defaults = getattr(mod, 'CASE_INT_SCALAR_DEFAULTS', {})
    root, work = Path(a.samples), Path(a.work)
    rows = []
    for golden in sorted(root.glob('*/*_golden.py')):
        case = golden.name[:-len('_golden.py')]
        kernel = golden.parent / f'{case}.pto'
        label = f'{golden.parent.name}/{case}'
        if a.filters and not any(f in label for f in a.filters):
            continue
        if not kernel.is_file():
            continue  # a Python builder sample: needs the PTOAS Python bindings
        d, why = build_case(kernel, golden, work, int_defaults)
        if d is None:
            rows.append((label, 'skip', why))
            continue
        rc, out = run([sys.executable, 'golden.py'], d, a.timeout)
        note = ''
        if rc != 0 and 'int32_t' in (d / 'main.cpp').read_text():
            # the toolchain's default scalar (1) can place a partition outside
            # the kernel's own tensor views; 0 keeps every access inside them
            zero = {f'v{k}': 0 for k in range(1, 64)}
            d, why = build_case(kernel, golden, work, {case: zero})
            rc, out = run([sys.executable, 'golden.py'], d, a.timeout)
            note = '(scalar arguments 0) '
        if rc != 0:
            rows.append((label, 'golden-failed', out.strip().splitlines()[-1][:160] if out.strip() else f'exit {rc}'))
            continue
        rc, out = run([pto_run, 'case', '.', '--out-dir', '.', '--check', 'warn', '-q'], d, a.timeout)
        lines = out.strip().splitlines()
        last = [l for l in lines if 'runtime fault' in l] or \
            [l for l in lines if l.startswith(('pto-run', 'kernel.pto', './'))]
        msg = (last[-1] if last else out.strip()[-160:])[:200]
        verdict = {0: 'pass', 1: 'mismatch', 2: 'bad-input', 3: 'fault', 4: 'limit'}.get(rc, f'exit-{rc}')
        if rc == 0 and (d / 'compare.py').is_file():
            crc, cout = run([sys.executable, 'compare.py'], d, a.timeout)
            if crc != 0:
                verdict, msg = 'compare-failed', cout.strip().splitlines()[-1][:200] if cout.strip() else ''
        rows.append((label, verdict, note + ('' if verdict == 'pass' else msg)))
    rows += validation_samples(root, work, pto_run, a.timeout, a.filters)
    for label, verdict, msg in rows:
        print(f'{verdict:<14} {label}  {msg}')
    n = len(rows)
    ok = sum(1 for r in rows if r[1] == 'pass')
    print(f'\n{ok}/{n} sample kernels pass')


if __name__ == '__main__':
    main()
