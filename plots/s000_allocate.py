#!/usr/bin/python3
"""S000, a what-if beside experiment 1 (a prediction: nothing measured):
CCIX reads and writes from the FPGA that keep no copy in the request
agent's system cache (ReadOnce; a whole-line WriteUnique) against allocating
ones (ReadShared; ReadUnique, the write merged into the arrived line), vs
size, per board; and the non-allocating latency as a share of the
allocating one."""
from common import args, need, plt, points, save, size_axes, size_of

res, out = args()
pts = need(points(res, 's000_allocate'), 's000_allocate')
BOARDS = (('au280', 'AU280'), ('vck5000', 'VCK5000'))


def series(board, allocate, op):
    return sorted((size_of(p['point']['workloads.0.size']), p['metrics']['lat.median_ns']) for p in pts
                  if p['meta']['platform'] == 's000_n1sdp_' + board
                  and str(p['point'].get('workloads.0.allocate')).lower() == allocate
                  and p['point'].get('workloads.0.op') == op)


boards = [(b, name) for b, name in BOARDS if any(series(b, a, op) for a in ('true', 'false') for op in ('rd', 'wr'))]
fig, axes = plt.subplots(1, len(boards) + 1, figsize=(3.6 * (len(boards) + 1), 2.8), squeeze=False)
fig.subplots_adjust(wspace=0.3)
for ax, (b, name) in zip(axes[0], boards):
    for allocate, op, style, label in (('true', 'rd', 'C0-o', 'read, ReadShared'), ('false', 'rd', 'C0--x', 'read, ReadOnce'),
                                       ('true', 'wr', 'C2-s', 'write, ReadUnique'), ('false', 'wr', 'C2--+', 'write, WriteUnique')):
        data = series(b, allocate, op)
        if data:
            ax.plot([s for s, _ in data], [v for _, v in data], style, ms=3, label=label)
    size_axes(ax, 'S000: allocating or not (%s, prediction)' % name)
ax = axes[0][-1]
for (b, name), color in zip(boards, ('C0', 'C3')):
    for op, style in (('rd', '-o'), ('wr', '--s')):
        yes, no = dict(series(b, 'true', op)), dict(series(b, 'false', op))
        xs = sorted(set(yes) & set(no))
        if xs:
            ax.plot(xs, [100.0 * no[x] / yes[x] for x in xs], color + style, ms=3,
                    label='%s %s' % (name, 'read' if op == 'rd' else 'write'))
size_axes(ax, 'S000: non-allocating over allocating', ylabel='latency (% of allocating)', ylog=False)
save(fig, out, 's000_allocate')
