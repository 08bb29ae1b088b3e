#!/usr/bin/python3
"""S000, a what-if on the AU280 (a prediction: nothing measured): the
FPGA streams reads and writes through lines never touched before, into a
system cache of unlimited or finite capacity, allocating (ReadShared;
ReadUnique) or keeping no copy (ReadOnce; WriteUnique): latency vs size,
reads left, writes right."""
from common import args, need, plt, points, save, size_axes, size_of

res, out = args()
pts = need(points(res, 's000_streaming'), 's000_streaming')
SC = 'topology.nodes.au280.ccix_ra.sc_size'
# (system cache, allocate): style, label
MODES = ((('0B', 'true'), 'C0-o', 'unlimited SC, allocating'),
         (('0B', 'false'), 'C0--x', 'unlimited SC, no copy'),
         (('64KiB', 'true'), 'C3-s', '64 KiB SC, allocating'),
         (('64KiB', 'false'), 'C3--+', '64 KiB SC, no copy'))
TITLES = {'rd': 'S000 streaming reads (AU280)', 'wr': 'S000 streaming writes (AU280)'}


def series(op, sc, allocate):
    return sorted((size_of(p['point']['workloads.0.size']), p['metrics']['lat.median_ns']) for p in pts
                  if p['point'].get('workloads.0.op') == op and str(p['point'].get(SC)) == sc
                  and str(p['point'].get('workloads.0.allocate')).lower() == allocate)


fig, axes = plt.subplots(1, 2, figsize=(7.4, 2.8), squeeze=False)
fig.subplots_adjust(wspace=0.3)
for ax, op in zip(axes[0], ('rd', 'wr')):
    for key, style, label in MODES:
        data = series(op, *key)
        if data:
            ax.plot([s for s, _ in data], [v for _, v in data], style, ms=3, label=label)
    size_axes(ax, TITLES[op])
fig.suptitle('allocating: ReadShared, ReadUnique; no copy: ReadOnce, WriteUnique (prediction)', fontsize=8)
save(fig, out, 's000_streaming')
