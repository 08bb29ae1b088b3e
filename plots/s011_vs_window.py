#!/usr/bin/python3
"""S011: NFP-6000 DMA read bandwidth and latency vs host window size on the
Haswell E5-2620 v3 host, IOMMU off, with the host cache warm and cold
(measured and simulated)."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s011_pciebench')
WIN = {'4KB': 4, '8KB': 8, '16KB': 16, '64KB': 64, '256KB': 256, '512KB': 512, '1MB': 1024, '1.5MB': 1536, '2MB': 2048,
       '3MB': 3072, '4MB': 4096, '8MB': 8192, '16MB': 16384, '32MB': 32768, '64MB': 65536}
fig, (a1, a2) = plt.subplots(1, 2, figsize=(7.5, 2.8))
fig.subplots_adjust(wspace=0.35)
pts = need(points(res, 's011_window_bw'), 's011_window_bw')
def host_cache(p):
    return p['point'].get('workloads.0.host_cache', 'warm')


for i, size in enumerate((64, 256, 512)):
    for cache, style in (('warm', '-'), ('cold', '--')):
        mine = sorted((size_of(p['point']['workloads.0.window']) // 1024, p['metrics']['bw.gbit_per_s'])
                      for p in pts if int(p['metrics']['bw.size_B']) == size and host_cache(p) == cache)
        if mine:
            a1.plot([w for w, _ in mine], [v for _, v in mine], style, color='C%d' % i, label='hxsim %d B, %s' % (size, cache))
    for cache, marker in (('HWarm', 'o'), ('Cold', 'x')):
        m = [(WIN[w], r['value']) for w in WIN for k, r in [('s011.hsw_e5_2620v3.window_bw.rd_%d.%s.%s' % (size, cache, w), None)]
             for r in [ref.get(k)] if r]
        a1.plot([w for w, _ in m], [v for _, v in m], marker, color='C%d' % i, mfc='none', ms=4,
                label='measured %d B, %s' % (size, 'warm' if cache == 'HWarm' else 'cold'))
a1.set_xscale('log', base=2)
a1.set_xlabel('window (KiB)')
a1.set_ylabel('BW_DMA_RD (Gb/s)')
a1.set_title('S011 read bandwidth vs window')
a1.legend(fontsize=5.5, ncol=2)
lp = need(points(res, 's011_window_lat'), 's011_window_lat')
for cache, style in (('warm', '-'), ('cold', '--')):
    mine = sorted((size_of(p['point']['workloads.0.window']) // 1024, p['metrics']['lat.median_ns'])
                  for p in lp if host_cache(p) == cache)
    a2.plot([w for w, _ in mine], [v for _, v in mine], 'C0' + style, label='hxsim 64 B, %s' % cache)
for cache, marker in (('HWarm', 'o'), ('Cold', 'x')):
    m = [(WIN[w], ref[k]['value']) for w in WIN for k in ['s011.hsw_e5_2620v3.window_lat.rd_64.%s.%s' % (cache, w)] if k in ref]
    a2.plot([w for w, _ in m], [v for _, v in m], marker, color='C0', mfc='none', label='measured, %s' % ('warm' if cache == 'HWarm' else 'cold'))
a2.set_xscale('log', base=2)
a2.set_xlabel('window (KiB)')
a2.set_ylabel('LAT_DMA_RD median (ns)')
a2.set_title('S011 64 B read latency vs window')
a2.legend(fontsize=6.5)
save(fig, out, 's011_vs_window')
