#!/usr/bin/env python3
"""Writes BENCHMARKS.md from criterion's results of one `cargo bench -p pto-benches` run.

Usage: cargo bench -p pto-benches && python3 benches/report.py > BENCHMARKS.md
"""
import json, os, platform, re, subprocess, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'target', 'criterion')

def median(group, fn):
    p = os.path.join(root, group, fn, 'new', 'estimates.json')
    try:
        return json.load(open(p))['median']['point_estimate']  # ns
    except OSError:
        return None

def paired(group):
    """The paired speed-ups the e2e bench wrote to target/paired (see `paired` in benches/jit.rs)."""
    p = os.path.join(root, '..', 'paired', group + '.json')
    try:
        with open(p) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return 'n/a'
    return ' / '.join(f"{d[m]['median']:.1f}x [{d[m]['min']:.1f}-{d[m]['max']:.1f}]" for m in ('off', 'warn'))


def fmt_t(ns):
    if ns is None:
        return 'n/a'
    if ns < 1e3:
        return f'{ns:.0f} ns'
    if ns < 1e6:
        return f'{ns/1e3:.2f} µs'
    return f'{ns/1e6:.2f} ms'

def cpu():
    """The model name, with the CPU family/model, the widest vector ISA the
    native kernels use and the L1 data cache per core where Linux says
    (a model name such as "AMD EPYC" covers several core generations)."""
    info = {}
    try:
        for l in open('/proc/cpuinfo'):
            k, _, v = l.partition(':')
            info.setdefault(k.strip(), v.strip())
    except OSError:
        return platform.processor()
    name = info.get('model name', platform.processor())
    flags = info.get('flags', '').split()
    isa = 'AVX-512F' if 'avx512f' in flags else 'AVX2+FMA' if 'avx2' in flags and 'fma' in flags else 'no AVX2'
    extra = [f"family {info.get('cpu family', '?')}, model {info.get('model', '?')}", isa]
    try:
        for d in sorted(os.listdir('/sys/devices/system/cpu/cpu0/cache')):
            c = os.path.join('/sys/devices/system/cpu/cpu0/cache', d)
            if open(os.path.join(c, 'level')).read().strip() == '1' and \
                    open(os.path.join(c, 'type')).read().strip() == 'Data':
                extra.append(f"{open(os.path.join(c, 'size')).read().strip()} L1d per core")
    except OSError:
        pass
    return f"{name} ({', '.join(extra)})"

def matmul_isa():
    """What `pto_jit::matmul_isa` picks on this host, from /proc/cpuinfo."""
    try:
        flags = next(l for l in open('/proc/cpuinfo') if l.startswith('flags')).split()
    except (OSError, StopIteration):
        return 'see pto_jit::matmul_isa'
    if 'avx512f' in flags:
        return 'avx512f'
    return 'avx2+fma (6 x 16 blocks)' if 'avx2' in flags and 'fma' in flags else 'scalar'

out = ['# Benchmarks', '',
       f'One run of `cargo bench -p pto-benches` on {cpu()} ({os.cpu_count()} cores), medians. '
       'Ratios compare numbers from the same run.', '']
def thr_mb(group, fn):
    p = os.path.join(root, group, fn, 'new', 'benchmark.json')
    try:
        b = json.load(open(p))
        n = b['throughput']['Bytes']
    except (OSError, KeyError, TypeError):
        return 'n/a'
    t = median(group, fn)
    return f'{n / t * 1e3:.1f} MB/s ({fmt_t(t)} for {n/1e6:.2f} MB)' if t else 'n/a'

out += ['## Assembler', '', '| stage | throughput |', '|---|---|',
        f'| parse + verify (text) | {thr_mb("asm", "parse+verify")} |',
        f'| encode (binary size) | {thr_mb("asm", "encode")} |',
        f'| decode (binary size) | {thr_mb("asm", "decode")} |', '']
def numpy_ns(stmt, setup, number=2000):
    """Median of 7 timeit repeats of `stmt`, in ns per call (None without numpy).

    numpy's BLAS runs on one thread, as ptovm does (set before numpy is
    first imported; an explicit setting in the environment wins)."""
    os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')
    os.environ.setdefault('OMP_NUM_THREADS', '1')
    try:
        import timeit
        import numpy  # noqa: F401
        t = timeit.repeat(stmt, setup='import numpy as np\n' + setup, number=number, repeat=7)
        return sorted(t)[3] / number * 1e9
    except Exception:
        return None

np_ops = {
    'tadd': 'np.add(a, b, out=d)',
    'tmul': 'np.multiply(a, b, out=d)',
    'tmuls': 'np.multiply(a, np.float32(1.5), out=d)',
    'texp': 'np.exp(a, out=d)',
}
out += ['## One tile op: interpreter vs JIT vs numpy', '',
        'numpy runs the same operation on float32 arrays of the same shape, in place (`out=`), '
        'timed by `benches/report.py` right after the criterion run.', '',
        '| op | interpreter | JIT | numpy | JIT speed-up | JIT throughput | JIT vs numpy |', '|---|---|---|---|---|---|---|']
for n in (64, 128):
    setup = (f'a = np.random.default_rng(1).uniform(-2, 2, ({n}, {n})).astype(np.float32)\n'
             f'b = a.copy()\nd = np.empty_like(a)')
    for op in ('tadd', 'tmul', 'tmuls', 'texp'):
        g = f'exec_{op}_{n}x{n}_f32'
        i, j = median(g, 'interp'), median(g, 'jit')
        npt = numpy_ns(np_ops[op], setup)
        ratio = f'{i/j:.0f}x' if i and j else 'n/a'
        thr = f'{n*n/j:.2f} Gelem/s' if j else 'n/a'
        vs = f'{npt/j:.1f}x' if npt and j else 'n/a'
        out.append(f'| {op.upper()} {n}x{n} f32 | {fmt_t(i)} | {fmt_t(j)} | {fmt_t(npt)} | {ratio} | {thr} | {vs} |')
out += ['', '## A fused tile chain: t = a - b; t = exp(t); d = t * c', '',
        'The three ops back to back on PIPE_V: the interpreter op by op, the single-op JIT regions one by one, '
        'and one fused chain (one dispatch; t and d both stored). A chain with an f32 exp runs in parts, block by '
        'block: the exp on the wide single-op path, the ops between exps as one loop with intermediates in '
        'registers; the old one-loop body (its exp on Cranelift\'s 4 lanes) is shown for comparison. '
        'numpy: `np.exp(a - b) * c` with preallocated outputs.', '',
        '| tiles | interpreter | JIT op by op | fused chain | one-loop chain (old) | numpy | fused vs op by op | fused vs interpreter | fused vs numpy |',
        '|---|---|---|---|---|---|---|---|---|']
for n in (64, 128):
    setup = (f'a = np.random.default_rng(1).uniform(-2, 2, ({n}, {n})).astype(np.float32)\n'
             f'b = a.copy()\nc = a.copy()\nt = np.empty_like(a)\nd = np.empty_like(a)')
    g = f'exec_chain_sub_exp_mul_{n}x{n}_f32'
    i, j, f = median(g, 'interp'), median(g, 'jit'), median(g, 'fused')
    npt = numpy_ns('np.subtract(a, b, out=t); np.exp(t, out=t); np.multiply(t, c, out=d)', setup)
    r = lambda x, y: f'{x/y:.1f}x' if x and y else 'n/a'
    o = median(g, 'fused_one_loop')
    out.append(f'| {n}x{n} f32 | {fmt_t(i)} | {fmt_t(j)} | {fmt_t(f)} | {fmt_t(o)} | {fmt_t(npt)} | {r(j, f)} | {r(i, f)} | {r(npt, f)} |')
out += ['', 'Without exp, `t = a - b; t = t * c; d = t + a`: one fused loop against the single-op regions one by one.', '',
        '| tiles | JIT op by op | fused chain | fused vs op by op |', '|---|---|---|---|']
for n, dt, g in ((64, 'f32', 'exec_chain_sub_mul_add_64x64_f32'), (128, 'f32', 'exec_chain_sub_mul_add_128x128_f32')):
    j, f = median(g, 'jit'), median(g, 'fused')
    out.append(f'| {n}x{n} {dt} | {fmt_t(j)} | {fmt_t(f)} | {r(j, f)} |')
np_more = {
    ('trowsum', 'f32'): 'np.sum(a, axis=1, out=r)',
    ('tcvt', 'f32-f16'): "np.copyto(h, a, casting='unsafe')",
    ('tadd', 'f16'): 'np.add(h, h, out=h2)',
    ('tmul', 'f16'): 'np.multiply(h, h, out=h2)',
    ('texp', 'f16'): 'np.exp(h, out=h2)',
}
out += ['', '## Reductions, conversions and f16 tiles: interpreter vs JIT vs numpy', '',
        'TROWSUM sums each row of an f32 tile into an Nx1 column-major tile (in f64, left to right, as the '
        'interpreter; numpy sums in float32 pairwise); TCVT converts f32 to f16 (round to nearest even); f16 '
        'TADD/TMUL/TEXP compute in f32 and round to f16. numpy: the same operation on arrays of the same shape and type.', '',
        '| op | interpreter | JIT | numpy | JIT speed-up | JIT throughput | JIT vs numpy |', '|---|---|---|---|---|---|---|']
for n in (64, 128):
    setup = (f'a = np.random.default_rng(1).uniform(-2, 2, ({n}, {n})).astype(np.float32)\n'
             f'r = np.empty({n}, np.float32)\nh = a.astype(np.float16)\nh2 = np.empty_like(h)')
    for (op, dt), stmt in np_more.items():
        g = f'exec_{op}_{n}x{n}_{dt}'
        i, j = median(g, 'interp'), median(g, 'jit')
        npt = numpy_ns(stmt, setup)
        ratio = f'{i/j:.0f}x' if i and j else 'n/a'
        thr = f'{n*n/j:.2f} Gelem/s' if j else 'n/a'
        vs = f'{npt/j:.1f}x' if npt and j else 'n/a'
        out.append(f'| {op.upper()} {n}x{n} {dt} | {fmt_t(i)} | {fmt_t(j)} | {fmt_t(npt)} | {ratio} | {thr} | {vs} |')
out += ['', '## Column and arg reductions, 16-bit reductions, pow, f16 log and a fused f16 chain (64x64)', '',
        'TCOLSUM sums each column of an f32 tile in f64, top to bottom (numpy: float32 pairwise); TPOW is tile ^ tile '
        'on f32 (bases in (0, 8], exponents in [-4, 4]; computed in f64, rounded once); TLOG on f16 lanes (looked up in a table the region builds of its own results once it has been asked for 65,536 elements, during the warm-up); the f16 chain '
        'is t = a - b; t = exp(t); d = t * c on f16 tiles, each op rounded to f16, interpreted op by op vs one fused region. '
        'The arg reductions keep the first of equal values (as the interpreter does); f16 sums are accumulated in f64 and '
        'rounded once (numpy: f16 pairwise); TPOW i32 wraps.', '',
        '| op | interpreter | JIT | numpy | JIT speed-up | JIT vs numpy |', '|---|---|---|---|---|---|']
setup64 = ('a = np.random.default_rng(1).uniform(0.01, 8, (64, 64)).astype(np.float32)\n'
           'b = np.random.default_rng(2).uniform(-4, 4, (64, 64)).astype(np.float32)\n'
           'd = np.empty_like(a)\nr = np.empty(64, np.float32)\nh = a.astype(np.float16)\nh2 = np.empty_like(h)\n'
           'hb = b.astype(np.float16)\nhc = h.copy()\nht = np.empty_like(h)\nhr = np.empty(64, np.float16)\n'
           'ia = np.random.default_rng(3).integers(-4, 5, (64, 64)).astype(np.int32)\n'
           'ib = np.random.default_rng(4).integers(0, 13, (64, 64)).astype(np.int32)\nic = np.empty_like(ia)')
for g, fn, name, stmt in (
        ('breadth_tcolsum_64x64_f32', 'jit', 'TCOLSUM 64x64 f32', 'np.sum(a, axis=0, out=r)'),
        ('breadth_tpow_64x64_f32', 'jit', 'TPOW 64x64 f32', 'np.power(a, b, out=d)'),
        ('breadth_tlog_64x64_f16', 'jit', 'TLOG 64x64 f16', 'np.log(h, out=h2)'),
        ('breadth_chain_sub_exp_mul_64x64_f16', 'fused', 'sub-exp-mul chain 64x64 f16 (fused)',
         'np.subtract(h, hb, out=ht); np.exp(ht, out=ht); np.multiply(ht, hc, out=h2)'),
        ('breadth_trowargmax_64x64_f32', 'jit', 'TROWARGMAX 64x64 f32 (i32 index)', 'np.argmax(a, axis=1)'),
        ('breadth_tcolargmax_64x64_f32', 'jit', 'TCOLARGMAX 64x64 f32 (i32 index)', 'np.argmax(a, axis=0)'),
        ('breadth_trowsum_64x64_f16', 'jit', 'TROWSUM 64x64 f16', 'np.sum(h, axis=1, out=hr)'),
        ('breadth_tcolsum_64x64_f16', 'jit', 'TCOLSUM 64x64 f16', 'np.sum(h, axis=0, out=hr)'),
        ('breadth_tpow_64x64_i32', 'jit', 'TPOW 64x64 i32 (exponents 0..12)', 'np.power(ia, ib, out=ic)')):
    i, j = median(g, 'interp'), median(g, fn)
    npt = numpy_ns(stmt, setup64)
    out.append(f'| {name} | {fmt_t(i)} | {fmt_t(j)} | {fmt_t(npt)} | ' + (f'{i/j:.0f}x' if i and j else 'n/a')
               + ' | ' + (f'{npt/j:.1f}x' if npt and j else 'n/a') + ' |')
c = median('compile', 'region_tadd_f32')
out += ['', f'JIT compile time per region (TADD f32): {fmt_t(c)}.', '']
out += ['## TMATMUL 64^3 and 128^3: interpreter vs native matrix region', '',
        f'Kernel ISA on this machine: {os.environ.get("PTOVM_MATMUL_ISA", matmul_isa())}. '
        'The native region reads an f32 A (ZZ) where it lies, through its row and column offset tables (an f16 A '
        'is widened to row-major f32 first), transposes B (ZN) into 16-column panels 8 x 8 blocks at a time, and '
        'runs one FMA per k in k order (bit-identical to the interpreter) on the NZ accumulator where it lies; the '
        'bare kernel column is the same kernel on a row-major A, B already in panels and a C in 16-column panels. '
        'i8 operands '
        'are packed to row-major i32 and accumulate with wrapping sums (exact in any order; GOP/s in the GFLOP/s '
        'column).', '',
        '| shape | inputs | interpreter | native region | speed-up | native GFLOP/s | bare kernel GFLOP/s | numpy GFLOP/s (f32 `a @ b`, one BLAS thread) |', '|---|---|---|---|---|---|---|---|']
for n in (64, 128):
    mm_np = numpy_ns('a @ b', f'a = np.ones(({n}, {n}), np.float32)\nb = np.ones(({n}, {n}), np.float32)', 500)
    for dt in ('f32', 'f16', 'i8'):
        g = f'exec_tmatmul_{n}x{n}x{n}_{dt}'
        i, j, k = median(g, 'interp'), median(g, 'jit'), median(g, 'kernel')
        fl = 2 * n ** 3
        npg = f'{fl/mm_np:.1f}' if mm_np and dt == 'f32' else '—'
        out.append(f'| {n}^3 | {dt} | {fmt_t(i)} | {fmt_t(j)} | ' + (f'{i/j:.0f}x' if i and j else 'n/a') + ' | '
                   + (f'{fl/j:.1f}' if j else 'n/a') + ' | ' + (f'{fl/k:.1f}' if k else '—') + f' | {npg} |')
out += ['']
out += ['## Cube `mad` 64^3 and 128^3: interpreter vs native path', '',
        'The micro-level multiply (`pto.mad`, L0A x L0B -> L0C, NZ operands as `mte_l1_l0a`/`mte_l1_l0b` leave them): '
        'the interpreter reads and writes element by element; the native path reads an f32 A where it lies in L0A '
        '(an f16 or bf16 A is widened to row-major f32) and transposes B out of its N x K NZ form straight into 16-column '
        'panels (f16 and bf16 widened on the way), and runs the same matrix kernel (one FMA per k '
        "in k order, the interpreter's bits) on the NZ accumulator where it lies (a saturating mad goes through a "
        'copy, which it checks for overflow first); i8 operands accumulate in i32 with wrapping sums, exact '
        'in any order.', '',
        '| shape | inputs | interpreter | native | speed-up | native GFLOP/s (i8: GOP/s) |', '|---|---|---|---|---|---|']
for n in (64, 128):
    for dt in ('f32', 'f16', 'bf16', 'i8'):
        g = f'exec_mad_{n}x{n}x{n}_{dt}'
        i, j = median(g, 'interp'), median(g, 'jit')
        fl = 2 * n ** 3
        out.append(f'| {n}^3 | {dt} | {fmt_t(i)} | {fmt_t(j)} | ' + (f'{i/j:.0f}x' if i and j else 'n/a') + ' | '
                   + (f'{fl/j:.1f}' if j else 'n/a') + ' |')
out += ['']
out += ['## Whole kernels through the machine', '',
        'Each run includes placing the arguments in a fresh GM and reading them back.', '',
        '| kernel | interpreter, check=off | interpreter, check=warn | JIT, check=off | JIT, check=warn | JIT speed-up (off / warn) |', '|---|---|---|---|---|---|']
for g, name in (('kernel_vadd32x32', 'vadd 32x32 f32 once (examples/vadd.pto)'),
                ('kernel_vadd_loop64x64x64', '64 tiles of 64x64 f32 vadd (benches/kernels/vadd_loop.pto)')):
    vals = [median(g, k) for k in ('interp_check=off', 'interp_check=warn', 'jit_check=off', 'jit_check=warn')]
    sp = (f'{vals[0]/vals[2]:.1f}x / {vals[1]/vals[3]:.1f}x' if all(vals) else 'n/a')
    out.append(f'| {name} | ' + ' | '.join(fmt_t(v) for v in vals) + f' | {sp} |')
g = 'vm_pingpong256'
vals = [median(g, k) for k in ('inorder_check=off', 'inorder_check=warn', 'timed_check=off', 'timed_check=warn')]
out += ['', '## Scheduler and checker (vector micro-op kernel, 256 double-buffered tiles)', '',
        '| inorder, check=off | inorder, check=warn | timed, check=off | timed, check=warn | checker overhead (inorder / timed) |', '|---|---|---|---|---|',
        '| ' + ' | '.join(fmt_t(v) for v in vals) + ' | ' +
        (f'{vals[1]/vals[0]:.2f}x / {vals[3]/vals[2]:.2f}x' if all(vals) else 'n/a') + ' |']
out += ['', '## Vector scopes (`pto.vecscope` loops)', '',
        'benches/kernels/vscope_{vadd,vexp,f16sel}.pto: a loop of vlds, vadd (or vexp), vsts under a plt_b32 tail mask '
        'over 4096 f32 (16 KiB per operand) in UB, run 32 times per kernel. Per scope run = (kernel with 32 runs '
        '- kernel with 0 runs) / 32, so the DMA and setup around the scope cancel out. vscope_vmi.pto is the same '
        'kind of loop in VMI ops (`pto.vmi.vload`, `vadd`, `vbrc`, `vmul`, `vstore` on 256-lane vectors under a '
        '`create_mask` tail; all native); vscope_vmicvt.pto converts 4096 f16 to f32 with a VMI `vcvt` (native too), '
        'then multiplies and adds; vscope_reduce.pto computes vcadd(x * x) + vcmax(y) for each 64-lane row '
        '(reductions across lanes, run by the compiled code in Rust since session 22); vscope_softmax.pto is a row '
        'softmax in micro-ops (vcmax, vdup, vexpdif, vcadd, vdiv), bit-exact: exp as the interpreter computes it. '
        'The check=warn columns subtract the check=off kernel with 0 runs. The paired column (as in the end-to-end '
        'table below) times the same per-scope work, 32 runs minus 0, in alternating interpreter and JIT batches, '
        '31 rounds per checker mode (with check=warn on both kernels), and gives the median ratio and the range of '
        'the rounds.', '',
        '| scope | interpreter | JIT | JIT speed-up | JIT Gelem/s | interpreter, check=warn | JIT, check=warn | speed-up (warn) | paired speed-up, median [range] (off / warn) |',
        '|---|---|---|---|---|---|---|---|---|']
labels = {'f16sel': (8192, 'f16sel 8192 x f16 (vadd, vcmps, vsel)'),
          'vmi': (4096, 'VMI 4096 x f32 (vadd, vbrc, vmul)'),
          'vmicvt': (4096, 'VMI 4096 x f16 -> f32 (vcvt, vmul, vadd)'),
          'reduce': (4096, 'reduce 4096 x f32 (vmul, vcadd, vcmax, vadd)'),
          'softmax': (4096, 'softmax 4096 x f32 (vcmax, vdup, vexpdif, vcadd, vdiv)')}
for name in ('vadd', 'vexp', 'f16sel', 'vmi', 'vmicvt', 'reduce', 'softmax'):
    g = f'kernel_vscope_{name}16k'
    elems, label = labels.get(name, (4096, f'{name} 4096 x f32'))
    i0, i32_, iw = median(g, 'interp_check=off_x0'), median(g, 'interp_check=off_x32'), median(g, 'interp_check=warn_x32')
    j0, j32, jw = median(g, 'jit_check=off_x0'), median(g, 'jit_check=off_x32'), median(g, 'jit_check=warn_x32')
    if all(v is not None for v in (i0, i32_, iw, j0, j32, jw)):
        i, j = (i32_ - i0) / 32, (j32 - j0) / 32
        iwp, jwp = (iw - i0) / 32, (jw - j0) / 32
        out.append(f'| {label} | {fmt_t(i)} | {fmt_t(j)} | {i/j:.0f}x | {elems/j:.2f} | '
                   f'{fmt_t(iwp)} | {fmt_t(jwp)} | {iwp/jwp:.0f}x | {paired(g)} |')
    else:
        out.append(f'| {name} | n/a | n/a | n/a | n/a | n/a | n/a | n/a | {paired(g)} |')
def scope_compile(name):
    """Compile time and code size of the kernel's vector scope, from `pto-run --stats`."""
    exe = os.path.join(os.path.dirname(root), 'release', 'pto-run')
    kern = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kernels', f'vscope_{name}.pto')
    try:
        r = subprocess.run([exe, kern, '--jit', 'always', '--stats', '--arg', 'reps=1'],
                           capture_output=True, text=True, timeout=120)
        for l in r.stderr.splitlines():
            m = re.search(r'compiled \((\d+) bytes, (\d+) us\)', l)
            if m:
                return f'{int(m.group(2))/1000:.1f} ms ({m.group(1)} bytes of code)'
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        pass
    return 'n/a (build target/release/pto-run first)'
out += ['', 'Compile time of the vector scope (one region, `pto-run --jit always --stats`, release build): '
        + '; '.join(f'{n}: {scope_compile(n)}' for n in ('vadd', 'vexp', 'f16sel', 'vmi', 'vmicvt', 'reduce', 'softmax')) + '.']
out += ['', '## End-to-end kernels', '',
        'Whole runs (GM set up from the arguments, the outputs starting as zeroed GM (`Arg::Zeros`, what `pto-run --arg NAME=zeros:...` '
        'passes), every instruction, checker, read-back of the outputs into the '
        'same result vectors each run, as `run_kernel_reading_into` lets a caller that runs a kernel repeatedly do; like '
        '`pto-run`, inputs are not copied back out of GM). softmax and rmsnorm: 1024x64 f32 in 16-row '
        'tiles (benches/kernels/{softmax,rmsnorm}_rows.pto); pingpong: the double-buffered seed '
        '(examples/sync/03_pingpong_set_wait.pto) over 256 tiles of 256 f32, a vector scope per tile, and the same '
        'pipeline over the same 65536 f32 in 64 tiles of 1024 f32 (benches/kernels/pingpong_4k.pto): the per-tile '
        'synchronization is the same, so the pair shows how the speed-up depends on the work per sync; '
        'matmul + epilogue: '
        'examples/mixed_matmul_relu.pto (cube matmul, cross-core semaphore, vector bias + relu on two subblocks).', '',
        'The four time columns are criterion medians, each measured over its own few seconds; this host\'s speed '
        'drifts by up to ~30% from one to the next, and a ratio of two of them moves as much. The paired column '
        'times the same runs in alternating batches right after (one interpreter batch between two JIT batches, '
        'each at least ~3 ms, 31 rounds per checker mode) and gives the median ratio with the range of the rounds: '
        'the speed-up that drift between tiers does not move.', '',
        '| kernel | interpreter, check=off | interpreter, check=warn | JIT, check=off | JIT, check=warn | JIT speed-up (off / warn) | paired speed-up, median [range] (off / warn) |',
        '|---|---|---|---|---|---|---|']
for g, name in (('e2e_softmax1024x64', 'softmax 1024x64 f32'), ('e2e_rmsnorm1024x64', 'rmsnorm 1024x64 f32'),
                ('e2e_pingpong256x256', 'double-buffered vector pipeline, 256 tiles of 1 KiB'),
                ('e2e_pingpong64x1024', 'double-buffered vector pipeline, 64 tiles of 4 KiB'),
                ('e2e_matmul_bias_relu32x64x32', 'matmul 32x64x32 f16 + vector bias/relu')):
    vals = [median(g, k) for k in ('interp_check=off', 'interp_check=warn', 'jit_check=off', 'jit_check=warn')]
    sp = (f'{vals[0]/vals[2]:.1f}x / {vals[1]/vals[3]:.1f}x' if all(vals) else 'n/a')
    out.append(f'| {name} | ' + ' | '.join(fmt_t(v) for v in vals) + f' | {sp} | {paired(g)} |')
out += ['']
print('\n'.join(out))
