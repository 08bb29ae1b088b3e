#!/usr/bin/python3
"""Where a study's time went. For every point: each timed measurement's
latency broken down by stage (the mean over its transactions, adding up to
its mean latency), and each resource's utilisation over the run (link
directions, pipelines, memory channels, read trackers, IOMMU walkers) with
the busiest; printed, and drawn as one figure per point (stacked bars of
the breakdowns above the resource bars). A study with breakdowns also gets
breakdown.png: one stacked bar per point and measurement, side by side.
Usage: explain.py RESULTS_DIR [--top N] [--out DIR] [--no-figures]
(`hxsim explain` runs it). Bad input exits 2 with one line."""
import argparse
import json
import os
import signal
import sys

import common  # noqa: F401  (the house style)
import matplotlib.pyplot as plt


def fail(msg):
    sys.stderr.write('error: %s\n' % msg)
    sys.exit(2)


def stack(ax, bars, colours, horizontal):
    """Stacked bars, one per (label, [(stage, ns)]), stages in their order;
    a stage nobody spent time in is left out of the legend."""
    labels = [lb for lb, _ in bars]
    pos = list(range(len(bars)))
    base = [0.0] * len(bars)
    for st, c in colours.items():
        vals = [dict(stages).get(st, 0.0) for _, stages in bars]
        if not any(v > 0 for v in vals):
            continue
        if horizontal:
            ax.barh(pos, vals, left=base, color=c, label=st)
        else:
            ax.bar(pos, vals, bottom=base, color=c, label=st)
        base = [b + v for b, v in zip(base, vals)]
    if horizontal:
        ax.set_yticks(pos)
        ax.set_yticklabels(labels, fontsize=7)
        ax.set_xlabel('mean latency (ns)')
    else:
        ax.set_xticks(pos)
        ax.set_xticklabels(labels, fontsize=6, rotation=90)
        ax.set_ylabel('mean latency (ns)')
    ax.legend(fontsize=6, loc='upper left', bbox_to_anchor=(1.01, 1.0), frameon=False)


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
    colours = {}  # one colour per stage, in the order hxsim lists them
    study_bars = []  # (label, stages) of every point's breakdowns
    for p in points:
        idx = p.get('point_index', points.index(p))
        setting = ', '.join('%s=%s' % (k, v) for k, v in p.get('point', {}).items()) or '(no sweep)'
        r = p.get('resources')
        if not r or not r.get('list'):
            fail('point %s has no resources (results of an older hxsim: rerun the study)' % idx)
        ranked = sorted(r['list'].items(), key=lambda kv: (-kv[1]['utilisation'], kv[0]))
        b = r['list'][r['busiest']]
        bds = p.get('breakdowns') or {}
        print('point %s: %s' % (idx, setting))
        point_bars = []  # (measurement, stages) of this point
        for m, bd in sorted(bds.items()):
            stages = [(st['stage'], st['mean_ns']) for st in bd['stages']]
            point_bars.append((m.split('.', 1)[-1], stages))
            for st, _ in stages:
                k = len(colours)
                colours.setdefault(st, plt.cm.tab10(k) if k < 10 else plt.cm.tab20((2 * (k - 10) + 1) % 20))
            print('  %s: %.1f ns mean over %d transactions' % (m, bd['mean_ns'], bd['transactions']))
            for st, ns in stages:
                if ns > 0:
                    print('    %-28s %8.1f ns  %5.1f%%' % (st, ns, 100 * ns / bd['mean_ns'] if bd['mean_ns'] else 0))
            label = ', '.join(str(v) for v in p.get('point', {}).values()) or str(idx)
            study_bars.append((label if len(bds) == 1 else '%s: %s' % (label, m.split('.', 1)[-1]), stages))
        print('  busiest: %s, %s, %.1f%% busy' % (r['busiest'], b['what'], 100 * b['utilisation']))
        for name, v in ranked[:a.top]:
            print('    %-28s %6.1f%%  %s%s' % (name, 100 * v['utilisation'], v['what'],
                                             '' if v['servers'] == 1 else ' (%d servers)' % v['servers']))
        if a.no_figures:
            continue
        top = ranked[:a.top][::-1]
        rows = len(point_bars)
        if rows:
            fig, (bx, ax) = plt.subplots(2, 1, figsize=(6.5, 0.35 * (len(top) + rows) + 2.4),
                                         gridspec_kw={'height_ratios': [rows + 1.5, len(top) + 1]})
            stack(bx, point_bars, colours, horizontal=True)
            bx.set_title('%s, point %s: where the time of each timed transaction went' % (res.get('study', ''), idx),
                         fontsize=8)
        else:
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
    if study_bars and not a.no_figures:
        fig, ax = plt.subplots(figsize=(max(6.5, 0.45 * len(study_bars) + 2), 4))
        stack(ax, study_bars, colours, horizontal=False)
        ax.set_title('%s: where the time went, per point' % res.get('study', ''), fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, 'breakdown.png'))
        plt.close(fig)
    if not a.no_figures:
        print('figures: %s' % out)


# Output piped into a reader that stops early (`| head`) ends quietly.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
main()
