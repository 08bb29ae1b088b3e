#!/usr/bin/python3
"""S011: DMA bandwidth and median latency vs host window with the IOMMU off,
on with superpages, and on with 4 KiB pages only, on the Haswell E5-2620 v3
and Ivy Bridge E5-2620 v2 hosts (measured with the host cache warm).
Lines: hxsim; markers: pcie-bench dataset."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s011_pciebench')
WIN = {'4KB': 4, '256KB': 256, '512KB': 512, '1MB': 1024, '1.5MB': 1536, '2MB': 2048, '3MB': 3072, '4MB': 4096,
       '8MB': 8192, '16MB': 16384, '32MB': 32768, '64MB': 65536, '8KB': 8, '16KB': 16, '64KB': 64}
PLATS = (('hsw_e5_2620v3', 'Haswell E5-2620 v3'), ('ivb_e5_2620v2', 'Ivy Bridge E5-2620 v2'))
MODES = (('off', 'IOMMU off', (False, True)), ('sp', 'superpages', (True, True)), ('nosp', '4 KiB pages', (True, False)))
bw = need(points(res, 's011_iommu_bw'), 's011_iommu_bw')
lat = need(points(res, 's011_iommu_lat'), 's011_iommu_lat')


def mode_of(p):
    return (p['point']['topology.nodes.host.iommu.enabled'], p['point']['topology.nodes.host.iommu.superpages'])


fig, axes = plt.subplots(2, 3, figsize=(10, 5.6))
fig.subplots_adjust(wspace=0.3, hspace=0.45)
for row, (plat, pname) in enumerate(PLATS):
    mine = [p for p in bw if plat in p['point']['topology']]
    for col, test in enumerate(('rd', 'wr')):
        ax = axes[row][col]
        for ci, size in enumerate((64, 256)):
            for mi, (mode, mlabel, flags) in enumerate(MODES):
                style = ('-', '--', ':')[mi]
                xs = sorted((size_of(p['point']['workloads.0.window']) // 1024, p['metrics']['bw.gbit_per_s']) for p in mine
                            if mode_of(p) == flags and p['point']['workloads.0.op'] == test
                            and int(p['metrics']['bw.size_B']) == size)
                ax.plot([x for x, _ in xs], [v for _, v in xs], style, color='C%d' % ci, lw=1,
                        label='hxsim %d B, %s' % (size, mlabel))
                m = sorted((WIN[w], ref[k]['value']) for w in WIN
                           for k in ['s011.%s.iommu_%s.window_bw.%s_%d.%s' % (plat, mode, test, size, w)] if k in ref)
                ax.plot([x for x, _ in m], [v for _, v in m], 'osx'[mi], color='C%d' % ci, mfc='none', ms=3.5)
        ax.set_xscale('log', base=2)
        ax.set_xlabel('window (KiB)')
        ax.set_ylabel('BW_DMA_%s (Gb/s)' % test.upper())
        ax.set_title('%s: %s' % (pname.split()[0], 'read' if test == 'rd' else 'write'), fontsize=9)
        if row == 0 and col == 0:
            ax.legend(fontsize=5, ncol=1)
    ax = axes[row][2]
    mine = [p for p in lat if plat in p['point']['topology']]
    for ci, test in enumerate(('rd', 'wrrd')):
        for mi, (mode, mlabel, flags) in enumerate(MODES):
            xs = sorted((size_of(p['point']['workloads.0.window']) // 1024, p['metrics']['lat.median_ns']) for p in mine
                        if mode_of(p) == flags and p['point']['workloads.0.op'] == test)
            ax.plot([x for x, _ in xs], [v for _, v in xs], ('-', '--', ':')[mi], color='C%d' % (ci + 2), lw=1,
                    label='hxsim %s, %s' % ('LAT_RD' if test == 'rd' else 'LAT_WRRD', mlabel))
            m = sorted((WIN[w], ref[k]['value']) for w in WIN
                       for k in ['s011.%s.iommu_%s.window_lat.%s_64.%s' % (plat, mode, test, w)] if k in ref)
            ax.plot([x for x, _ in m], [v for _, v in m], 'osx'[mi], color='C%d' % (ci + 2), mfc='none', ms=3.5)
    ax.set_xscale('log', base=2)
    ax.set_xlabel('window (KiB)')
    ax.set_ylabel('64 B median latency (ns)')
    ax.set_title('%s: latency' % pname.split()[0], fontsize=9)
    if row == 0:
        ax.legend(fontsize=5)
fig.suptitle('S011 with the IOMMU: lines hxsim, markers measured (o off, s superpages, x 4 KiB pages)', fontsize=9)
save(fig, out, 's011_iommu')
