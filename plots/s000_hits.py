#!/usr/bin/python3
"""S000 experiment 3: latency of reads and writes that hit the AU280's
system cache, against the same transfers missing it and going to the host,
vs size; the measured small-transfer hit latencies as markers."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s000_ccix')
pts = need(points(res, 's000_hits'), 's000_hits')


def series(pattern, op):
    return sorted((size_of(p['point']['workloads.0.size']), p['metrics']['lat.median_ns']) for p in pts
                  if p['point'].get('workloads.0.pattern') == pattern and p['point'].get('workloads.0.op') == op)


fig, ax = plt.subplots(figsize=(4.2, 2.8))
for pattern, op, style, label in (('hit', 'rd', 'C0-o', 'read, cache hit'), ('hit', 'wr', 'C2-s', 'write, cache hit'),
                                  ('warm', 'rd', 'C0--o', 'read, miss to host'), ('warm', 'wr', 'C2--s', 'write, miss to host')):
    data = series(pattern, op)
    if data:
        ax.plot([s for s, _ in data], [v for _, v in data], style, ms=3, label=label)
for rid, mark, label in (('s000.exp3.hit.au280.read', 'kx', 'measured read hit'), ('s000.exp3.hit.au280.write', 'k+', 'measured write hit')):
    if rid in ref:
        ax.plot([64], [ref[rid]['value']], mark, label=label)
ax.set_xscale('log', base=2)
ax.set_yscale('log')
ax.set_xlabel('transfer size (B)')
ax.set_ylabel('latency (ns)')
ax.set_title('S000: device-cache hits (AU280)')
ax.legend(fontsize=6)
save(fig, out, 's000_hits')
