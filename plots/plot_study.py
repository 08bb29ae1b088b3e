#!/usr/bin/python3
"""Any study's sweep as a figure: one metric against one swept parameter,
one curve per value of the other swept parameters (or of --group alone).
Usage: plot_study.py RESULTS_DIR --x PATH --y METRIC [--group PATH] [--out FILE] [--logx] [--logy]
(`hxsim plot` runs it). Bad input exits 2 with one line naming what exists."""
import argparse
import json
import os
import re
import sys

import common  # noqa: F401  (the house style)
import matplotlib.pyplot as plt


def fail(msg):
    sys.stderr.write('error: %s\n' % msg)
    sys.exit(2)


SIZE = re.compile(r'^\s*([0-9]+(?:\.[0-9]*)?)\s*(B|KB|MB|GB|KiB|MiB|GiB|TiB)\s*$')
SCALE = {'B': 1, 'KB': 1e3, 'MB': 1e6, 'GB': 1e9, 'KiB': 1024, 'MiB': 1024 ** 2, 'GiB': 1024 ** 3, 'TiB': 1024 ** 4}


def as_number(v):
    """A swept value as a number where it is one: sizes with a unit ('4KiB')
    in bytes; other text is not."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    m = SIZE.match(v) if isinstance(v, str) else None
    return float(m.group(1)) * SCALE[m.group(2)] if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('dir')
    ap.add_argument('--x', required=True, help='a swept parameter path (a key of each point)')
    ap.add_argument('--y', required=True, help='a metric name (see results.json points[].metrics)')
    ap.add_argument('--group', help='draw one curve per value of this swept path (default: of every other swept path)')
    ap.add_argument('--out', help='the figure file (default: DIR/plot_<y>_vs_<x>.png)')
    ap.add_argument('--logx', action='store_true')
    ap.add_argument('--logy', action='store_true')
    a = ap.parse_args()

    path = os.path.join(a.dir, 'results.json')
    try:
        with open(path) as f:
            res = json.load(f)
    except OSError as e:
        fail('%s: %s (run the study first: hxsim run STUDY -o %s)' % (path, e.strerror, a.dir))
    except ValueError as e:
        fail('%s: not a results file: %s' % (path, e))
    pts = res.get('points', [])
    if not pts:
        fail('%s: no finished point to draw' % path)
    swept = sorted({k for p in pts for k in p.get('point', {})})
    metrics = sorted({k for p in pts for k in p.get('metrics', {})})
    if a.x not in swept:
        fail("--x %s: not a swept parameter of this study; swept: %s" % (a.x, ', '.join(swept) or '(none)'))
    if a.y not in metrics:
        fail("--y %s: no such metric; metrics: %s" % (a.y, ', '.join(metrics)))
    if a.group and a.group not in swept:
        fail("--group %s: not a swept parameter; swept: %s" % (a.group, ', '.join(swept)))
    others = [a.group] if a.group else [k for k in swept if k != a.x]
    unit = next((p.get('units', {}).get(a.y) for p in pts if p.get('units', {}).get(a.y)), '')

    curves = {}
    for p in pts:
        if a.y not in p.get('metrics', {}):
            continue
        key = tuple((k, json.dumps(p['point'].get(k))) for k in others)
        curves.setdefault(key, []).append((p['point'][a.x], p['metrics'][a.y]))
    numeric = all(as_number(x) is not None for c in curves.values() for x, _ in c)
    labels = []
    fig, ax = plt.subplots(figsize=(4.5, 3.0))
    for key, c in sorted(curves.items()):
        if numeric:
            c.sort(key=lambda xy: as_number(xy[0]))
            xs = [as_number(x) for x, _ in c]
        else:
            # Text values (sizes with units, names): in sweep order, as categories.
            labels = labels or [str(x) for x, _ in c]
            xs = [labels.index(str(x)) if str(x) in labels else len(labels) for x, _ in c]
        ax.plot(xs, [y for _, y in c], marker='o',
                label=', '.join('%s=%s' % (k, json.loads(v)) for k, v in key) or None)
    if not numeric:
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=30, ha='right')
    sizes = numeric and any(isinstance(x, str) for c in curves.values() for x, _ in c)
    ax.set_xlabel('%s [B]' % a.x if sizes else a.x)
    ax.set_ylabel('%s [%s]' % (a.y, unit) if unit else a.y)
    ax.set_title(res.get('study', ''))
    if a.logx and numeric:
        ax.set_xscale('log')
    if a.logy:
        ax.set_yscale('log')
    if any(k for k in curves):
        ax.legend()
    out = a.out or os.path.join(a.dir, 'plot_%s_vs_%s.png' % (re.sub(r'[^A-Za-z0-9_.-]', '_', a.y),
                                                              re.sub(r'[^A-Za-z0-9_.-]', '_', a.x)))
    try:
        fig.savefig(out)
    except OSError as e:
        fail('--out %s: %s' % (out, e.strerror))
    print(out)


if __name__ == '__main__':
    main()
