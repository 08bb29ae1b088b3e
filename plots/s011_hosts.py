#!/usr/bin/python3
"""S011: every pcie-bench host with the IOMMU off and everything on socket 0
(Broadwell: also memory and control on socket 1): latency and bandwidth vs
transfer size, simulated (lines) and measured (circles); BW_DMA_RW, which
the shared data do not hold, is the model's prediction alone."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s011_hosts')
lat = need(points(res, 's011_hosts_lat'), 's011_hosts_lat')
bw = need(points(res, 's011_hosts_bw'), 's011_hosts_bw')
SYSTEMS = [('snb-Xeon-E5-2630_dell-t620', 'SNB E5-2630'), ('ib-Xeon-E5-2620v2_dell-t620-s0-s0-s0', 'IVB E5-2620 v2'),
           ('hsw-Xeon-E5-2637v3_supermicro', 'HSW E5-2637 v3'), ('hsw-Xeon-E3-1226v3_fujitsu-tx1310', 'HSW E3-1226 v3'),
           ('bdw-Xeon-E5-2630v4-dell-t430-s0-s0-s0', 'BDW E5-2630 v4'),
           ('bdw-Xeon-E5-2630v4-dell-t430-s0-s1-s1', 'BDW, memory+control socket 1')]


def settings(system):
    # A system's platform and sockets, as its reference records carry them.
    c = next(r['conditions'] for r in ref.values() if r['conditions']['system'] == system)
    return c['platform'], c['node'] == 'far', c['host_node'] == 'far'


def curve(pts, system, op, metric):
    host, far_memory, far_control = settings(system)
    xs = []
    for p in pts:
        pt = p['point']
        if (pt.get('topology', '').endswith('s011_%s.yaml' % host) and not pt.get('topology.nodes.host.iommu.enabled')
                and (pt.get('workloads.0.node') == 'far') == far_memory
                and (pt.get('workloads.0.host_node') == 'far') == far_control
                and pt.get('workloads.0.op') == op and metric in p['metrics']):
            xs.append((size_of(pt['workloads.0.size']), p['metrics'][metric]))
    return sorted(xs)


fig, axes = plt.subplots(2, 3, figsize=(11, 5.6))
for ax, pts, op, test, metric, ylabel in (
        (axes[0][0], lat, 'rd', 'lat_dma_rd', 'lat.median_ns', 'LAT_DMA_RD median (ns)'),
        (axes[0][1], lat, 'wrrd', 'lat_dma_wrrd', 'lat.median_ns', 'LAT_DMA_WRRD median (ns)'),
        (axes[1][0], bw, 'rd', 'bw_dma_rd', 'bw.gbit_per_s', 'BW_DMA_RD (Gb/s)'),
        (axes[1][1], bw, 'wr', 'bw_dma_wr', 'bw.gbit_per_s', 'BW_DMA_WR (Gb/s)'),
        (axes[1][2], bw, 'rw', 'bw_dma_rw', 'bw.gbit_per_s', 'BW_DMA_RW, per direction (Gb/s)')):
    for i, (system, label) in enumerate(SYSTEMS):
        xs = curve(pts, system, op, metric)
        ax.plot([x for x, _ in xs], [y for _, y in xs], '-', color='C%d' % i, lw=1, label='hxsim ' + label)
        rx = [(x, ref['s011.%s.%s.%dB' % (system, test, x)]['value']) for x, _ in xs
              if 's011.%s.%s.%dB' % (system, test, x) in ref]
        ax.plot([x for x, _ in rx], [y for _, y in rx], 'o', ms=3, color='C%d' % i, mfc='none')
    ax.set_xscale('log', base=2)
    ax.set_xlabel('transfer size (B)')
    ax.set_ylabel(ylabel, fontsize=8)
axes[1][2].set_title('predicted: no measurement in the data', fontsize=8)
fig.subplots_adjust(wspace=0.32, hspace=0.32)
handles, labels = axes[0][0].get_legend_handles_labels()
axes[0][2].axis('off')
axes[0][2].legend(handles, labels, fontsize=7, loc='center')
fig.suptitle('S011 every host: hxsim (lines) vs measured (circles); the E3-1226 v3 is a known gap', fontsize=9)
save(fig, out, 's011_hosts')
