#!/usr/bin/python3
"""What-if beyond S002's two sockets: a 64 B read by a core of socket 0 of a
line in the DRAM, or Modified in an L2, of socket 1, 2 or 3, on four
Sapphire Rapids sockets joined every pair to every other (full) or each to
its two neighbours (ring). A prediction: nothing measured to compare."""
from common import args, need, plt, points, save

res, out = args()
pts = need(points(res, 's002_socket_graph'), 's002_socket_graph')

GRAPHS = [('full', 'full graph', 'C0'), ('ring', 'ring', 'C3')]
CASES = [('dram', 'DRAM'), ('l2', 'L2 (M)')]
HOLDERS = [1, 2, 3]


def value(graph, src, holder):
    for p in pts:
        q = p['point']
        if (q.get('topology.nodes.host.sockets.graph') == graph and q.get('workloads.0.from') == src
                and float(q.get('workloads.0.holder')) == holder):
            return p['metrics']['lat.median_ns']
    return None


fig, ax = plt.subplots(figsize=(5.6, 2.9))
width = 0.38
labels = []
for c, (src, src_label) in enumerate(CASES):
    for h in HOLDERS:
        labels.append('%s\nsocket %d' % (src_label, h))
for k, (graph, label, color) in enumerate(GRAPHS):
    xs, ys = [], []
    i = 0
    for src, _ in CASES:
        for h in HOLDERS:
            v = value(graph, src, h)
            if v is not None:
                xs.append(i + (k - 0.5) * width)
                ys.append(v)
            i += 1
    ax.bar(xs, ys, width, color=color, label=label + ' (model)')
ax.set_xticks(range(len(labels)))
ax.set_xticklabels(labels, fontsize=6)
ax.set_ylabel('64 B read latency (ns)')
ax.set_title('Four sockets (SPR parameters): latency by where the line is (prediction)')
ax.legend(fontsize=6)
save(fig, out, 's002_socket_graph')
