#!/usr/bin/env python3
"""Measure how much of a PTOAS test corpus `pto-as --check` accepts.

Usage: scripts/corpus-rate.py [--pto-as PATH] [--list-failures] DIR...

Every `*.pto` under each DIR is classified from its lit RUN lines:
  * negative by design: every RUN line runs the tool under `not`, or the file's
    CHECK lines expect an `error:` from a run that merges stderr, or it runs
    with -verify-diagnostics and annotates an `expected-error`, or it is a
    sample without RUN lines named `*_invalid.pto` (runop.sh expects those to
    fail) -- these are expected to be rejected;
  * positive: everything else. The profile is taken from `--pto-arch=a3|a5` of
    the first positive RUN line (else the module's pto.target_arch).
Files using `-split-input-file` are checked chunk by chunk (`// -----`), files
using lit's `split-file` part by part (`// --- name`).

Prints the positive pass rate, the negative rejection count, and with
--list-failures every positive failure with its first error.
Needs nothing but python3 and a built pto-as.
"""
import argparse, os, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

def run_lines(text):
    runs, cur = [], None
    for line in text.splitlines():
        m = re.match(r'\s*//\s*RUN:\s?(.*)$', line)
        if not m:
            if cur is not None:
                runs.append(cur); cur = None
            continue
        part = m.group(1).rstrip()
        if cur is None:
            cur = part
        else:
            cur += ' ' + part
        if cur.endswith('\\'):
            cur = cur[:-1]
        else:
            runs.append(cur); cur = None
    if cur is not None:
        runs.append(cur)
    return runs

def classify(path, text):
    runs = run_lines(text)
    pos = [r for r in runs if not re.match(r'\s*(not\s|!\s)', r)]
    neg = [r for r in runs if re.match(r'\s*(not\s|!\s)', r)]
    merged = any('2>&1' in r for r in pos)
    # FileCheck lines (any prefix) that expect a diagnostic from a run merging stderr
    error_checks = any(re.search(r"//\s*[A-Z][A-Z0-9_]*(?<!-NOT):.*\berror:", l) and not re.search(r"//\s*[A-Z0-9_]+-NOT:", l) for l in text.splitlines())
    # -verify-diagnostics files annotate the errors they expect in place
    verify_diags = any('-verify-diagnostics' in r for r in pos) and 'expected-error' in text
    # samples without RUN lines: runop.sh expects every `*_invalid` one to fail
    invalid_sample = not runs and os.path.basename(path).endswith('_invalid.pto')
    negative = (runs and not pos) or (error_checks and merged) or verify_diags or invalid_sample
    prof = None
    for r in pos or runs:
        m = re.search(r'--pto-arch[= ](a[0-9a-z]+)', r)
        if m:
            prof = {'a3': 'a2a3', 'a2': 'a2a3', 'a2a3': 'a2a3', 'a5': 'a5'}.get(m.group(1))
            break
    split = any('split-input-file' in r for r in runs)
    splitfile = any(re.search(r'\bsplit-file\b', r) for r in runs)
    return bool(negative), prof, split, splitfile

def parts(text, split, splitfile):
    if splitfile:
        out, cur, name = [], [], None
        for line in text.splitlines(keepends=True):
            m = re.match(r'//\s*---\s*(\S+)', line)
            if m:
                if name and name.endswith('.pto'):
                    out.append(''.join(cur))
                name, cur = m.group(1), []
            else:
                cur.append(line if name else '\n')
        if name and name.endswith('.pto'):
            out.append(''.join(cur))
        return out or [text]
    return [text]

def split_parts(text):
    """lit split-file: (name, text) per `// --- name` part, line numbers kept."""
    out, cur, name = [], [], None
    for line in text.splitlines(keepends=True):
        m = re.match(r'//\s*---\s*(\S+)', line)
        if m:
            if name:
                out.append((name, ''.join(cur)))
            name = m.group(1)
            cur = ['\n'] * (text[:text.index(line)].count('\n') + 1)
        elif name:
            cur.append(line)
    if name:
        out.append((name, ''.join(cur)))
    return out

def check(ptoas, path):
    text = open(path, encoding='utf-8', errors='replace').read()
    negative, prof, split, splitfile = classify(path, text)
    if splitfile:
        # each part is its own test: classified by the RUN lines that name it
        runs = [r for r in run_lines(text) if not re.search(r'\bsplit-file\b', r)]
        results = []
        for name, part in split_parts(text):
            if not name.endswith('.pto'):
                continue
            mine = [r for r in runs if re.search(r'%t/' + re.escape(name) + r'\b', r)]
            if not mine:
                continue
            pneg = all(re.match(r'\s*(not\s|!\s)', r) for r in mine)
            m = next((re.search(r'--pto-arch[= ](a[0-9a-z]+)', r) for r in mine if re.search(r'--pto-arch', r)), None)
            pprof = {'a3': 'a2a3', 'a2': 'a2a3', 'a5': 'a5'}.get(m.group(1)) if m else None
            results.append((pneg, run_one(ptoas, path, part, pprof, False)))
        if not results:
            return path, negative, True, ''
        neg = all(n for n, _ in results)
        # a file passes when its positive parts are accepted (negative: when rejected)
        if neg:
            # rejected when every part is rejected
            return path, True, any(r[0] for _, r in results), next((r[1] for _, r in results if r[1]), '')
        fails = [r for n, r in results if not n and not r[0]]
        return path, False, not fails, fails[0][1] if fails else ''
    ok, first = run_one(ptoas, path, text, prof, split)
    return path, negative, ok, first

def run_one(ptoas, path, text, prof, split):
    ok, first = True, ''
    for part in [text]:
        with tempfile.NamedTemporaryFile('w', suffix='.pto', delete=False) as f:
            f.write(part); tmp = f.name
        cmd = [ptoas, '--check', tmp]
        if prof: cmd += ['--profile', prof]
        if split: cmd.append('--split-input-file')
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = 99, 'timeout'
        os.unlink(tmp)
        if rc != 0:
            ok = False
            first = next((l for l in err.splitlines() if ': error: ' in l or 'timeout' in l or 'panicked' in l), err.strip()[:200])
            first = first.replace(tmp, os.path.basename(path))
            if rc not in (0, 1):
                first = f'[exit {rc}] ' + first
            break
    return ok, first

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pto-as', default=os.path.join(os.path.dirname(__file__), '..', 'target', 'release', 'pto-as'))
    ap.add_argument('--list-failures', action='store_true')
    ap.add_argument('--list-negatives', action='store_true')
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    files = sorted(os.path.join(r, f) for d in a.dirs for r, _, fs in os.walk(d) for f in fs if f.endswith('.pto'))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        res = list(ex.map(lambda p: check(a.pto_as, p), files))
    pos = [r for r in res if not r[1]]
    neg = [r for r in res if r[1]]
    pos_ok = sum(1 for r in pos if r[2])
    neg_rej = sum(1 for r in neg if not r[2])
    crashes = [r for r in res if r[3].startswith('[exit')]
    print(f'files: {len(res)}  positive: {len(pos)}  negative by design: {len(neg)}')
    print(f'positive accepted: {pos_ok}/{len(pos)} = {100.0*pos_ok/max(1,len(pos)):.2f}%')
    print(f'negative rejected: {neg_rej}/{len(neg)}')
    print(f'abnormal exits (crash/timeout): {len(crashes)}')
    if a.list_failures:
        for r in pos:
            if not r[2]:
                print(f'FAIL {r[0]}: {r[3]}')
    if a.list_negatives:
        for r in neg:
            print(('REJECTED ' if not r[2] else 'ACCEPTED ') + f'{r[0]}: {r[3]}')
    return 1 if crashes else 0

if __name__ == '__main__':
    sys.exit(main())
