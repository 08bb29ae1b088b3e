#!/usr/bin/python3
"""S002 NICs on the socket interconnect: the minimum latency of a looped-back
packet (CC-NIC and the E810's interface ported to coherent lines, Ice Lake
and Sapphire Rapids), latency vs offered load (median and 99th percentile),
and the peak packet rate of CC-NIC's designs (the ablations). All model
predictions: S002 publishes none of these figures in the reference data."""
from common import args, need, plt, points, save, size_of

res, out = args()
lat = points(res, 's002_nic_latency') or []
load = points(res, 's002_nic_load') or []
peak = need(points(res, 's002_nic_peak'), 's002_nic_peak')

NAMES = {'ccnic': 'CC-NIC', 'e810_upi': 'E810 on UPI'}
fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.0))

ax = axes[0]
bars = []
for plat, pname in (('icx', 'ICX'), ('spr', 'SPR')):
    for nic in ('ccnic', 'e810_upi'):
        for p in lat:
            q = p['point']
            if q.get('topology', '').endswith('s002_%s.yaml' % plat) and q.get('workloads.0.nic') == nic and \
                    size_of(q.get('workloads.0.size', '64B')) == 64:
                bars.append(('%s\n%s' % (NAMES[nic], pname), p['metrics']['nic.median_ns'], 'C0' if nic == 'ccnic' else 'C1'))
ax.bar(range(len(bars)), [b[1] for b in bars], color=[b[2] for b in bars])
ax.set_xticks(range(len(bars)))
ax.set_xticklabels([b[0] for b in bars], fontsize=6)
ax.set_ylabel('64 B loop-back latency (ns)')
ax.set_title('minimum latency', fontsize=8)

ax = axes[1]
for nic, color in (('ccnic', 'C0'), ('e810_upi', 'C1')):
    s = sorted((p['metrics']['nic.Mpps'], p['metrics']['nic.median_ns'], p['metrics']['nic.p99_ns'])
               for p in load if p['point'].get('workloads.0.nic') == nic)
    if s:
        ax.plot([x[0] for x in s], [x[1] for x in s], color + '-o', ms=3, label=NAMES[nic] + ' p50')
        ax.plot([x[0] for x in s], [x[2] for x in s], color + '--', label=NAMES[nic] + ' p99')
ax.set_yscale('log')
ax.set_xlabel('delivered load (Mpps, one queue)')
ax.set_ylabel('latency (ns)')
ax.set_title('latency vs load, 64 B, batch 32', fontsize=8)
ax.legend(fontsize=6)

ax = axes[2]


def same(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def rate(**want):
    for p in peak:
        q = p['point']
        if all(same(q.get('workloads.0.' + k), v) for k, v in want.items()):
            return p['metrics']['nic.Mpps']
    return 0.0


base = dict(size='64B', queues=1, homing='writer')
ablation = [('CC-NIC: 4/line,\nbatch 32', rate(nic='ccnic', per_line=4, batch=32, **base)),
            ('tail registers\n(E810 on UPI)', rate(nic='e810_upi', per_line=4, batch=32, **base)),
            ('one desc.\nper line', rate(nic='ccnic', per_line=1, batch=32, **base)),
            ('batch 4', rate(nic='ccnic', per_line=4, batch=4, **base)),
            ('no batching', rate(nic='ccnic', per_line=4, batch=1, **base)),
            ('reader-\nhomed', rate(nic='ccnic', per_line=4, batch=32, size='64B', queues=1, homing='reader'))]
ax.bar(range(len(ablation)), [a[1] for a in ablation], color=['C0'] + ['C7'] * (len(ablation) - 1))
ax.set_xticks(range(len(ablation)))
ax.set_xticklabels([a[0] for a in ablation], fontsize=5.5, rotation=35, ha='right')
ax.set_ylabel('peak rate, 64 B (Mpps, one queue)')
ax.set_title('CC-NIC ablations', fontsize=8)
fig.subplots_adjust(wspace=0.38, bottom=0.25)
fig.suptitle('S002: NICs on the socket interconnect (model predictions)', fontsize=9)
save(fig, out, 's002_nic')
