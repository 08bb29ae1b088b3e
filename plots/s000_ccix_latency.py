#!/usr/bin/python3
"""S000 experiment 1: latency of one read or write from the FPGA to host
memory vs size, over CCIX (system-cache misses, translations in the ATC)
and over PCIe DMA, at 16 GT/s and with Extended Speed Mode (25 GT/s); and
CCIX relative to PCIe in percent, with the measured small-transfer figures
(-33% reads, +32% writes) and the measured read crossover (4 KiB)."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s000_ccix')
pts = need(points(res, 's000_ccix_latency'), 's000_ccix_latency')


def series(path, op, rate='0GT/s'):
    return sorted((size_of(p['point']['workloads.0.size']), p['metrics']['lat.median_ns']) for p in pts
                  if p['point'].get('workloads.0.path') == path and p['point'].get('workloads.0.op') == op
                  and p['point'].get('topology.links.0.rate', '0GT/s') == rate)


fig, (a1, a2) = plt.subplots(1, 2, figsize=(7.5, 2.8))
fig.subplots_adjust(wspace=0.35)
for path, op, style in (('ccix', 'rd', 'C0-o'), ('dma', 'rd', 'C1-s'), ('ccix', 'wr', 'C0--^'), ('dma', 'wr', 'C1--v')):
    data = series(path, op)
    if data:
        a1.plot([s for s, _ in data], [v for _, v in data], style, ms=3, label='%s %s' % ('CCIX' if path == 'ccix' else 'PCIe DMA', op))
    esm = series(path, op, '25GT/s')
    if esm and path == 'ccix':
        a1.plot([s for s, _ in esm], [v for _, v in esm], style[:2] + ':', lw=0.8, label='CCIX %s, ESM 25 GT/s' % op)
a1.set_xscale('log', base=2)
a1.set_yscale('log')
a1.set_xlabel('transfer size (B)')
a1.set_ylabel('latency (ns)')
a1.set_title('S000: CCIX vs PCIe DMA (AU280)')
a1.legend(fontsize=5.5)
for op, style, rid in (('rd', 'C0-o', 's000.exp1.read_small_vs_pcie'), ('wr', 'C3-^', 's000.exp1.write_small_vs_pcie')):
    c, d = dict(series('ccix', op)), dict(series('dma', op))
    rel = [(s, 100.0 * (c[s] / d[s] - 1)) for s in sorted(c) if s in d]
    if rel:
        a2.plot([s for s, _ in rel], [r for _, r in rel], style, ms=3, label='hxsim %s' % op)
    if rid in ref:
        a2.plot([64], [ref[rid]['value']], 'k' + ('x' if op == 'rd' else '+'), label='measured small %s' % op)
a2.axhline(0, color='k', lw=0.6)
if 's000.exp1.read_crossover' in ref:
    a2.axvline(ref['s000.exp1.read_crossover']['value'] * 1024, color='k', ls='--', lw=0.8, label='measured read crossover')
a2.set_xscale('log', base=2)
a2.set_xlabel('transfer size (B)')
a2.set_ylabel('CCIX vs PCIe latency (%)')
a2.set_title('S000: CCIX relative to PCIe')
a2.legend(fontsize=5.5)
save(fig, out, 's000_ccix_latency')
