#!/usr/bin/python3
"""S000, a what-if beside experiment 1 on the AU280 (a prediction: nothing
measured): CCIX reads and writes from the FPGA that keep no copy in the
request agent's system cache (ReadOnce; a whole-line WriteUnique) against
allocating ones (ReadShared; ReadUnique with the write merged into the
arrived line, or MakeUnique, the line taken without its data), vs size;
and each one's latency as a share of the allocating read or ReadUnique
write."""
from common import args, need, plt, points, save, size_axes, size_of

res, out = args()
pts = need(points(res, 's000_allocate'), 's000_allocate')
# (op, allocate, full-line writes): style, label
MODES = ((('rd', 'true', 'read_unique'), 'C0-o', 'read, ReadShared'),
         (('rd', 'false', 'read_unique'), 'C0--x', 'read, ReadOnce'),
         (('wr', 'true', 'read_unique'), 'C2-s', 'write, ReadUnique'),
         (('wr', 'true', 'make_unique'), 'C1-.^', 'write, MakeUnique'),
         (('wr', 'false', 'read_unique'), 'C2--+', 'write, WriteUnique'))


def series(op, allocate, writes):
    return sorted((size_of(p['point']['workloads.0.size']), p['metrics']['lat.median_ns']) for p in pts
                  if p['point'].get('workloads.0.op') == op
                  and str(p['point'].get('workloads.0.allocate')).lower() == allocate
                  and p['point'].get('topology.nodes.au280.ccix_ra.full_line_writes', 'read_unique') == writes)


fig, axes = plt.subplots(1, 2, figsize=(7.4, 2.8), squeeze=False)
fig.subplots_adjust(wspace=0.3)
ax, share = axes[0]
for key, style, label in MODES:
    data = series(*key)
    if data:
        ax.plot([s for s, _ in data], [v for _, v in data], style, ms=3, label=label)
    base = dict(series(key[0], 'true', 'read_unique'))
    mine = dict(data)
    xs = sorted(set(base) & set(mine))
    if xs and key[1:] != ('true', 'read_unique'):
        share.plot(xs, [100.0 * mine[x] / base[x] for x in xs], style, ms=3, label=label)
size_axes(ax, 'S000: allocating or not (AU280, prediction)')
size_axes(share, 'S000: against the allocating transfer', ylabel='latency (% of allocating)', ylog=False)
save(fig, out, 's000_allocate')
