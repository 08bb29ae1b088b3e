"""Shared helpers for the figure scripts: read results and reference files,
and a paper-like style. Scripts read only results/report files and the
reference data in validation/reference."""
import json
import os
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

plt.rcParams.update({
    'font.family': 'serif', 'font.size': 9, 'axes.titlesize': 9, 'axes.labelsize': 9,
    'legend.fontsize': 7.5, 'xtick.labelsize': 8, 'ytick.labelsize': 8, 'lines.linewidth': 1.3,
    'lines.markersize': 5, 'axes.grid': True, 'grid.alpha': 0.3, 'figure.dpi': 150,
    'savefig.bbox': 'tight',
})


def args():
    if len(sys.argv) != 3:
        sys.exit('usage: %s RESULTS_DIR OUT_DIR' % sys.argv[0])
    os.makedirs(sys.argv[2], exist_ok=True)
    return sys.argv[1], sys.argv[2]


def points(results_dir, study):
    """The points of a study run (results/<study>/results.json), or None."""
    p = os.path.join(results_dir, study, 'results.json')
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)['points']


def reference(name):
    with open(os.path.join(ROOT, 'validation', 'reference', name + '.json')) as f:
        return {r['id']: r for r in json.load(f)['records']}


def size_of(v):
    """Bytes of a size string as written in studies: 64B, 4KiB, 1MiB."""
    s = str(v)
    for unit, f in (('KiB', 1024), ('MiB', 2**20), ('GiB', 2**30), ('B', 1)):
        if s.endswith(unit):
            return int(float(s[:-len(unit)]) * f)
    return int(float(s))


def size_axes(ax, title, ylabel='latency (ns)', ylog=True, legend_size=6):
    """A transfer-size x axis (log 2), a latency y axis (log unless `ylog`
    is false), the title and the legend."""
    ax.set_xscale('log', base=2)
    if ylog:
        ax.set_yscale('log')
    ax.set_xlabel('transfer size (B)')
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=legend_size)


def save(fig, out_dir, name):
    for ext in ('png', 'pdf'):
        fig.savefig(os.path.join(out_dir, name + '.' + ext))
    plt.close(fig)
    print('wrote', os.path.join(out_dir, name + '.png'))


def need(pts, study):
    if not pts:
        sys.exit('no results for %s: run it first (hxsim run configs/%s.yaml -o RESULTS_DIR/%s)' % (study, study, study))
    return pts
