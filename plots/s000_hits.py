#!/usr/bin/python3
"""S000 experiment 3: latency of reads and writes that hit the device's
cache (the AU280's one-level system cache, the VCK5000's L2 in its CPM),
against the same transfers missing it and going to the host, vs size, per
board; the measured small-transfer hit latencies as markers."""
from common import args, need, plt, points, reference, save, size_axes, size_of

res, out = args()
ref = reference('s000_ccix')
pts = need(points(res, 's000_hits'), 's000_hits')
BOARDS = (('au280', 'AU280'), ('vck5000', 'VCK5000'))


def series(board, pattern, op):
    return sorted((size_of(p['point']['workloads.0.size']), p['metrics']['lat.median_ns']) for p in pts
                  if p['meta']['platform'] == 's000_n1sdp_' + board
                  and p['point'].get('workloads.0.pattern') == pattern and p['point'].get('workloads.0.op') == op)


boards = [(b, name) for b, name in BOARDS if any(series(b, 'hit', op) or series(b, 'warm', op) for op in ('rd', 'wr'))]
fig, axes = plt.subplots(1, len(boards) + 1, figsize=(3.6 * (len(boards) + 1), 2.8), squeeze=False)
fig.subplots_adjust(wspace=0.3)
for ax, (b, name) in zip(axes[0], boards):
    for pattern, op, style, label in (('hit', 'rd', 'C0-o', 'read, cache hit'), ('hit', 'wr', 'C2-s', 'write, cache hit'),
                                      ('warm', 'rd', 'C0--o', 'read, miss to host'), ('warm', 'wr', 'C2--s', 'write, miss to host')):
        data = series(b, pattern, op)
        if data:
            ax.plot([s for s, _ in data], [v for _, v in data], style, ms=3, label=label)
    for op, mark in (('read', 'kx'), ('write', 'k+')):
        rid = 's000.exp3.hit.%s.%s' % (b, op)
        if rid in ref:
            ax.plot([64], [ref[rid]['value']], mark, label='measured %s hit' % op)
    size_axes(ax, 'S000: device-cache hits (%s)' % name)
# The boards' hits side by side: the VCK5000's longer path to its cache
# against its faster line rate.
ax = axes[0][-1]
for (b, name), color in zip(boards, ('C0', 'C3')):
    for op, style in (('rd', '-o'), ('wr', '--s')):
        data = series(b, 'hit', op)
        if data:
            ax.plot([s for s, _ in data], [v for _, v in data], color + style, ms=3, label='%s %s hit' % (name, 'read' if op == 'rd' else 'write'))
size_axes(ax, 'S000: hits, one board against the other')
save(fig, out, 's000_hits')
