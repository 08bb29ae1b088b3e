#!/usr/bin/python3
"""S000 experiment 1: latency of one read or write from the FPGA to host
memory vs size, over CCIX (cache misses, translations in the ATC) and over
PCIe DMA, at 16 GT/s and with Extended Speed Mode (25 GT/s), per board; and
CCIX relative to PCIe in percent for each board, with the measured
small-transfer figures (-33% reads, +32% writes) and the measured read
crossover (4 KiB, both boards)."""
from common import args, need, plt, points, reference, save, size_axes, size_of

res, out = args()
ref = reference('s000_ccix')
pts = need(points(res, 's000_ccix_latency'), 's000_ccix_latency')
BOARDS = (('au280', 'AU280'), ('vck5000', 'VCK5000'))


def series(board, path, op, rate='0GT/s'):
    return sorted((size_of(p['point']['workloads.0.size']), p['metrics']['lat.median_ns']) for p in pts
                  if p['meta']['platform'] == 's000_n1sdp_' + board
                  and p['point'].get('workloads.0.path') == path and p['point'].get('workloads.0.op') == op
                  and p['point'].get('topology.links.0.rate', '0GT/s') == rate)


boards = [(b, name) for b, name in BOARDS if series(b, 'ccix', 'rd') or series(b, 'ccix', 'wr')]
fig, axes = plt.subplots(1, len(boards) + 1, figsize=(3.7 * (len(boards) + 1), 2.8), squeeze=False)
fig.subplots_adjust(wspace=0.35)
for a1, (b, name) in zip(axes[0], boards):
    for path, op, style in (('ccix', 'rd', 'C0-o'), ('dma', 'rd', 'C1-s'), ('ccix', 'wr', 'C0--^'), ('dma', 'wr', 'C1--v')):
        data = series(b, path, op)
        if data:
            a1.plot([s for s, _ in data], [v for _, v in data], style, ms=3, label='%s %s' % ('CCIX' if path == 'ccix' else 'PCIe DMA', op))
        esm = series(b, path, op, '25GT/s')
        if esm and path == 'ccix':
            a1.plot([s for s, _ in esm], [v for _, v in esm], style[:2] + ':', lw=0.8, label='CCIX %s, ESM 25 GT/s' % op)
    size_axes(a1, 'S000: CCIX vs PCIe DMA (%s)' % name, legend_size=5.5)
a2 = axes[0][-1]
for (b, name), marker in zip(boards, ('o', 's')):
    for op, color in (('rd', 'C0'), ('wr', 'C3')):
        c, d = dict(series(b, 'ccix', op)), dict(series(b, 'dma', op))
        rel = [(s, 100.0 * (c[s] / d[s] - 1)) for s in sorted(c) if s in d]
        if rel:
            a2.plot([s for s, _ in rel], [r for _, r in rel], color + ('-' if b == 'au280' else '--') + marker, ms=3,
                    label='hxsim %s %s' % (name, op))
for op, rid in (('rd', 's000.exp1.read_small_vs_pcie'), ('wr', 's000.exp1.write_small_vs_pcie')):
    if rid in ref:
        a2.plot([64], [ref[rid]['value']], 'k' + ('x' if op == 'rd' else '+'), label='measured small %s' % op)
a2.axhline(0, color='k', lw=0.6)
if 's000.exp1.read_crossover' in ref:
    a2.axvline(ref['s000.exp1.read_crossover']['value'] * 1024, color='k', ls='--', lw=0.8, label='measured read crossover')
size_axes(a2, 'S000: CCIX relative to PCIe', 'CCIX vs PCIe latency (%)', ylog=False, legend_size=5.5)
save(fig, out, 's000_ccix_latency')
