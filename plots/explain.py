#!/usr/bin/python3
"""Where a study's time went: for every point, each resource's utilisation
over the run (link directions, pipelines, memory channels, read trackers,
IOMMU walkers) and the busiest, printed and drawn as one bar chart per point.
Usage: explain.py RESULTS_DIR [--top N] [--out DIR] [--no-figures]
(`hxsim explain` runs it). Bad input exits 2 with one line."""
import argparse
import json
import os
import sys

import common  # noqa: F401  (the house style)
import matplotlib.pyplot as plt


def fail(msg):
    sys.stderr.write('error: %s\n' % msg)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('dir')
    ap.add_argument('--top', type=int, default=8, help='resources listed per point (default 8)')
    ap.add_argument('--out', help='directory for the figures (default: DIR/explain)')
    ap.add_argument('--no-figures', action='store_true', help='print only')
    a = ap.parse_args()
    if a.top < 1:
        fail('--top: at least 1')
    path = os.path.join(a.dir, 'results.json')
    try:
        with open(path) as f:
            res = json.load(f)
    except FileNotFoundError:
        fail('%s: no such file (is %s a results directory of hxsim run?)' % (path, a.dir))
    except (OSError, ValueError) as e:
        fail('%s: %s' % (path, e))
    points = res.get('points') if isinstance(res, dict) else None
    if not points:
        fail('%s: no points' % path)
    out = a.out or os.path.join(a.dir, 'explain')
    if not a.no_figures:
        os.makedirs(out, exist_ok=True)
    for p in points:
        idx = p.get('point_index', points.index(p))
        setting = ', '.join('%s=%s' % (k, v) for k, v in p.get('point', {}).items()) or '(no sweep)'
        r = p.get('resources')
        if not r or not r.get('list'):
            fail('point %s has no resources (results of an older hxsim: rerun the study)' % idx)
        ranked = sorted(r['list'].items(), key=lambda kv: (-kv[1]['utilisation'], kv[0]))
        b = r['list'][r['busiest']]
        print('point %s: %s' % (idx, setting))
        print('  busiest: %s, %s, %.1f%% busy' % (r['busiest'], b['what'], 100 * b['utilisation']))
        for name, v in ranked[:a.top]:
            print('    %-28s %6.1f%%  %s%s' % (name, 100 * v['utilisation'], v['what'],
                                             '' if v['servers'] == 1 else ' (%d servers)' % v['servers']))
        if a.no_figures:
            continue
        top = ranked[:a.top][::-1]
        fig, ax = plt.subplots(figsize=(6.5, 0.35 * len(top) + 1.2))
        ax.barh([n for n, _ in top], [100 * v['utilisation'] for _, v in top],
                color=['C3' if n == r['busiest'] else 'C0' for n, _ in top])
        ax.set_xlim(0, 100)
        ax.set_xlabel('utilisation over the run (%)')
        ax.set_title('%s, point %s: busiest %s' % (res.get('study', ''), idx, r['busiest']), fontsize=8)
        ax.tick_params(axis='y', labelsize=7)
        fig.tight_layout()
        name = os.path.join(out, 'point_%s.png' % idx)
        fig.savefig(name)
        plt.close(fig)
    if not a.no_figures:
        print('figures: %s' % out)


main()
