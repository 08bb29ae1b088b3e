#!/usr/bin/python3
"""S011: NFP-6000 DMA latency and bandwidth vs transfer size on the Haswell
E5-2620 v3 host (IOMMU off, 8 KiB window, host cache warm)."""
from common import args, need, plt, points, reference, save

res, out = args()
ref = reference('s011_pciebench')
fig, (a1, a2) = plt.subplots(1, 2, figsize=(7, 2.6))
for ax, specs, ylabel, title in (
        (a1, [('s011_lat_rd', 'lat_dma_rd', 'lat.median_ns', 'LAT_DMA_RD'), ('s011_lat_wrrd', 'lat_dma_wrrd', 'lat.median_ns', 'LAT_DMA_WRRD')],
         'median latency (ns)', 'latency vs size'),
        (a2, [('s011_bw_rd', 'bw_dma_rd', 'bw.gbit_per_s', 'BW_DMA_RD'), ('s011_bw_wr', 'bw_dma_wr', 'bw.gbit_per_s', 'BW_DMA_WR')],
         'bandwidth (Gb/s)', 'bandwidth vs size')):
    for i, (study, tid, metric, label) in enumerate(specs):
        pts = need(points(res, study), study)
        xs = sorted((int(p['metrics'][metric.split('.')[0] + '.size_B']), p['metrics'][metric]) for p in pts)
        ax.plot([x for x, _ in xs], [y for _, y in xs], '-', color='C%d' % i, label='hxsim ' + label)
        rx = [(x, ref['s011.hsw_e5_2620v3.%s.%dB' % (tid, x)]['value']) for x, _ in xs if 's011.hsw_e5_2620v3.%s.%dB' % (tid, x) in ref]
        ax.plot([x for x, _ in rx], [y for _, y in rx], 'o', color='C%d' % i, mfc='none', label='measured ' + label)
    ax.set_xlabel('transfer size (B)')
    ax.set_ylabel(ylabel)
    ax.set_title('S011 ' + title)
    ax.legend(fontsize=6.5)
save(fig, out, 's011_vs_size')
