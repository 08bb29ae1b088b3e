#!/usr/bin/python3
"""What-if beyond S002's two sockets, on four Sapphire Rapids sockets joined
every pair to every other (full) or each to its two neighbours (ring).
Left: a 64 B read by a core of socket 0 of a line in the DRAM, or Modified
in an L2, of socket 1, 2 or 3 (s002_socket_graph). Middle: CC-NIC with its
engine cores on socket 1 or 2, minimum latency and peak rate
(s002_nic_far). Right: read bandwidth of lines homed on socket 2, from
socket 0's cores or every socket's, with 16 or 64 message credits a class
on each link end (s002_socket_bw). Predictions: nothing measured to
compare."""
from common import args, need, plt, points, save

res, out = args()
lat = need(points(res, 's002_socket_graph'), 's002_socket_graph')
nic = need(points(res, 's002_nic_far'), 's002_nic_far')
bw = need(points(res, 's002_socket_bw'), 's002_socket_bw')

GRAPHS = [('full', 'full graph', 'C0'), ('ring', 'ring', 'C3')]
CASES = [('dram', 'DRAM'), ('l2', 'L2 (M)')]
HOLDERS = [1, 2, 3]
NIC_SOCKETS = [1, 2]


def find(pts, metric, **want):
    for p in pts:
        q = p['point']
        if all(str(q.get(k)) == str(v) or (isinstance(v, int) and float(q.get(k, -1)) == v) for k, v in want.items()):
            return p['metrics'][metric]
    return None


fig, (ax, bx, cx) = plt.subplots(1, 3, figsize=(12.5, 2.9), gridspec_kw={'width_ratios': [3, 2, 2]})
fig.subplots_adjust(wspace=0.55)
width = 0.38
labels = ['%s\nsocket %d' % (src_label, h) for _, src_label in CASES for h in HOLDERS]
for k, (graph, label, color) in enumerate(GRAPHS):
    xs, ys = [], []
    for i, (src, h) in enumerate((src, h) for src, _ in CASES for h in HOLDERS):
        v = find(lat, 'lat.median_ns', **{'topology.nodes.host.sockets.graph': graph, 'workloads.0.from': src,
                                          'workloads.0.holder': h})
        if v is not None:
            xs.append(i + (k - 0.5) * width)
            ys.append(v)
    ax.bar(xs, ys, width, color=color, label=label)
ax.set_xticks(range(len(labels)))
ax.set_xticklabels(labels, fontsize=6)
ax.set_ylabel('64 B read latency (ns)')
ax.set_title('a line on socket 1, 2 or 3, read from socket 0')
ax.legend(fontsize=6)

lat_ax = bx
rate_ax = bx.twinx()
for k, (graph, label, color) in enumerate(GRAPHS):
    for i, s in enumerate(NIC_SOCKETS):
        base = {'topology.nodes.host.sockets.graph': graph, 'topology.nodes.host.coherent_nic.socket': s}
        v = find(nic, 'nic.min_ns', **base, **{'workloads.0.mode': 'pingpong'})
        r = find(nic, 'nic.Mpps', **base, **{'workloads.0.mode': 'peak'})
        if v is not None:
            lat_ax.bar(i + (k - 0.5) * width, v / 1000, width, color=color, label=label if i == 0 else None)
        if r is not None:
            rate_ax.plot([2.2 + i + (k - 0.5) * width], [r], 'o', color=color)
lat_ax.set_xticks([0, 1, 2.2, 3.2])
lat_ax.set_xticklabels(['min latency\nNIC on 1', 'min latency\nNIC on 2', 'peak\nNIC on 1', 'peak\nNIC on 2'], fontsize=6)
lat_ax.set_ylabel('minimum latency (us, bars)')
rate_ax.set_ylabel('peak rate (Mpps, dots)')
rate_ax.set_ylim(bottom=0)
rate_ax.grid(False)
lat_ax.set_title('CC-NIC, 64 B packets')
lat_ax.legend(fontsize=6, loc='upper left')
CASES_BW = [([0], 16, 'socket 0\n16 credits'), ([0], 64, 'socket 0\n64 credits'),
            ([0, 1, 2, 3], 16, 'all sockets\n16 credits'), ([0, 1, 2, 3], 64, 'all sockets\n64 credits')]
for k, (graph, label, color) in enumerate(GRAPHS):
    xs, ys = [], []
    for i, (src, credits, _) in enumerate(CASES_BW):
        for p in bw:
            q = p['point']
            if (q.get('topology.nodes.host.sockets.graph') == graph and [int(x) for x in q.get('workloads.0.from', [])] == src
                    and int(q.get('topology.nodes.host.sockets.link_credits', 0)) == credits):
                xs.append(i + (k - 0.5) * width)
                ys.append(p['metrics']['bw.GBps'])
    cx.bar(xs, ys, width, color=color, label=label)
cx.set_xticks(range(len(CASES_BW)))
cx.set_xticklabels([c[2] for c in CASES_BW], fontsize=6)
cx.set_ylabel('read bandwidth (GB/s)')
cx.set_title('read bandwidth, lines on socket 2')
cx.legend(fontsize=6)
fig.suptitle('Four sockets with Sapphire Rapids parameters (predictions)', fontsize=9, y=1.03)
save(fig, out, 's002_socket_graph')
