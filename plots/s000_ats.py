#!/usr/bin/python3
"""S000 experiment 2 on the CCIX path: read latency with an ATC miss (first
access of a page) and with an ATC hit vs size, both missing the system
cache, their ratio, and with ATC prefetch of the next 7 pages; the measured
first-64 B-access breakdown (700 ns read, 617 ns ATS response, 1136 ns in
the ATC) as markers."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s000_ccix')
pts = need(points(res, 's000_ats'), 's000_ats')


def series(pattern, prefetch):
    return sorted((size_of(p['point']['workloads.0.size']), p['metrics']['lat.median_ns']) for p in pts
                  if p['point'].get('workloads.0.pattern') == pattern
                  and int(p['point'].get('topology.nodes.au280.bench.atc_prefetch', 0)) == prefetch)


fig, (a1, a2) = plt.subplots(1, 2, figsize=(7.5, 2.8))
fig.subplots_adjust(wspace=0.35)
miss, hit, pref = series('fresh', 0), series('warm', 0), series('fresh', 7)
for data, style, label in ((miss, 'C3-o', 'ATC miss (first access)'), (hit, 'C0-s', 'ATC hit'),
                           (pref, 'C2--^', 'first accesses, prefetch 7 pages')):
    if data:
        a1.plot([s for s, _ in data], [v for _, v in data], style, ms=3, label=label)
if 's000.exp2.read64_first' in ref:
    a1.plot([64], [ref['s000.exp2.read64_first']['value']], 'kx', label='measured first 64 B (AU280)')
    a1.plot([64], [ref['s000.exp2.read64_sc_miss']['value']], 'k+', label='measured 64 B, ATC hit')
a1.set_xscale('log', base=2)
a1.set_xlabel('read size (B)')
a1.set_ylabel('latency (ns)')
a1.set_title('S000: CCIX read latency with ATS')
a1.legend(fontsize=6)
hd = dict(hit)
ratio = [(s, v / hd[s]) for s, v in miss if s in hd]
a2.plot([s for s, _ in ratio], [r for _, r in ratio], 'C3-o', ms=3, label='hxsim miss / hit')
a2.axhline(3, color='k', ls=':', lw=0.8, label='measured ~3x for small accesses')
a2.axvline(32768, color='k', ls='--', lw=0.8, label='measured: transfer dominates from 32 KB')
a2.set_xscale('log', base=2)
a2.set_xlabel('read size (B)')
a2.set_ylabel('ATC miss / hit latency')
a2.set_title('S000: cost of an ATC miss')
a2.legend(fontsize=6)
save(fig, out, 's000_ats')
