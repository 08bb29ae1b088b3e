#!/usr/bin/python3
"""S002: latency of a 64 B read by a core of socket 0, by where the line is
(uncached in local or remote DRAM, in the local or remote LLC, Modified in
another core's L2 on the same or the other socket) and where it is homed,
on Ice Lake and Sapphire Rapids; the measured remote-L2 figures as
markers."""
from common import args, need, plt, points, reference, save

res, out = args()
ref = reference('s002_ccnic')
pts = need(points(res, 's002_latency'), 's002_latency')

CASES = [(('dram', 'local', 'holder'), 'local\nDRAM'), (('dram', 'remote', 'holder'), 'remote\nDRAM'),
         (('llc', 'local', 'holder'), 'local\nLLC'), (('llc', 'remote', 'holder'), 'remote\nLLC'),
         (('l2', 'local', 'holder'), 'local L2\n(M)'), (('l2', 'remote', 'holder'), 'remote L2 (M)\nremote-homed'),
         (('l2', 'remote', 'reader'), 'remote L2 (M)\nreader-homed')]
MEASURED = [c[0] for c in CASES].index(('l2', 'remote', 'holder'))  # the case S002 measured
PLATFORMS = [('icx', 'Ice Lake', 'C0'), ('spr', 'Sapphire Rapids', 'C3')]


def value(platform, case):
    for p in pts:
        q = p['point']
        if (q.get('topology', '').endswith('s002_%s.yaml' % platform) and q.get('workloads.0.op') == 'rd'
                and (q.get('workloads.0.from'), q.get('workloads.0.holder'), q.get('workloads.0.home')) == case):
            return p['metrics']['lat.median_ns']
    return None


fig, ax = plt.subplots(figsize=(6.4, 2.9))
width = 0.38
for k, (plat, label, color) in enumerate(PLATFORMS):
    xs, ys = [], []
    for i, (case, _) in enumerate(CASES):
        v = value(plat, case)
        if v is not None:
            xs.append(i + (k - 0.5) * width)
            ys.append(v)
    ax.bar(xs, ys, width, color=color, label=label + ' (model)')
    rid = 's002.remote_l2_m.' + plat
    if rid in ref:
        ax.plot([MEASURED + (k - 0.5) * width], [ref[rid]['value']], 'k_', ms=14, mew=2, label='measured' if k == 0 else None)
ax.set_xticks(range(len(CASES)))
ax.set_xticklabels([c[1] for c in CASES], fontsize=6)
ax.set_ylabel('64 B read latency (ns)')
ax.set_title('S002: latency by cache state and homing')
ax.legend(fontsize=6)
save(fig, out, 's002_latency')
