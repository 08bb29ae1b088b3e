#!/usr/bin/python3
"""S002 NICs: the minimum latency of a looped-back packet (CC-NIC and the
E810's interface ported to coherent lines on Ice Lake and Sapphire Rapids,
the PCIe E810 and ConnectX-6 on Ice Lake), latency vs offered load (median
and 99th percentile), the peak packet rate of the four NICs, and the peak
rate of CC-NIC's designs (the ablations). All model predictions: S002
publishes none of these figures in the reference data."""
from common import args, need, plt, points, save, size_of

res, out = args()
lat = points(res, 's002_nic_latency') or []
load = points(res, 's002_nic_load') or []
peak = need(points(res, 's002_nic_peak'), 's002_nic_peak')
pcie_lat = points(res, 's002_pcie_latency') or []
pload = points(res, 's002_pcie_load') or []
ppeak = points(res, 's002_pcie_peak') or []

NAMES = {'ccnic': 'CC-NIC', 'e810_upi': 'E810 on UPI', 'e810': 'E810 (PCIe)', 'cx6': 'CX6 (PCIe)'}
COLORS = {'ccnic': 'C0', 'e810_upi': 'C1', 'e810': 'C2', 'cx6': 'C3'}
fig, axes = plt.subplots(1, 4, figsize=(13.5, 3.0))

ax = axes[0]
bars = []
for plat, pname in (('icx', 'ICX'), ('spr', 'SPR')):
    for nic in ('ccnic', 'e810_upi'):
        for p in lat:
            q = p['point']
            if q.get('topology', '').endswith('s002_%s.yaml' % plat) and q.get('workloads.0.nic') == nic and \
                    size_of(q.get('workloads.0.size', '64B')) == 64:
                bars.append(('%s\n%s' % (NAMES[nic], pname), p['metrics']['nic.median_ns'], COLORS[nic]))
for dev in ('e810', 'cx6'):
    for p in pcie_lat:
        q = p['point']
        if q.get('workloads.0.device') == dev and q.get('workloads.0.rx', 'poll') == 'poll' and \
                size_of(q.get('workloads.0.size', '64B')) == 64:
            bars.append(('%s\nICX' % NAMES[dev], p['metrics']['nic.median_ns'], COLORS[dev]))
ax.bar(range(len(bars)), [b[1] for b in bars], color=[b[2] for b in bars])
ax.set_xticks(range(len(bars)))
ax.set_xticklabels([b[0] for b in bars], fontsize=5.5, rotation=35, ha='right')
ax.set_ylabel('64 B loop-back latency (ns)')
ax.set_title('minimum latency', fontsize=8)

ax = axes[1]
def on_upi(nic, layout):
    return [p for p in load if p['point'].get('workloads.0.nic') == nic and
            p['point'].get('workloads.0.layout', 'grouped' if nic == 'ccnic' else 'packed') == layout]
curves = [('ccnic', NAMES['ccnic'], 'C0', on_upi('ccnic', 'grouped')),
          ('ccnic', 'CC-NIC packed', 'C4', on_upi('ccnic', 'packed')),
          ('e810_upi', NAMES['e810_upi'], 'C1', on_upi('e810_upi', 'packed'))]
curves += [(dev, NAMES[dev], COLORS[dev], [p for p in pload if p['point'].get('workloads.0.device') == dev]) for dev in ('e810', 'cx6')]
for nic, name, color, pts in curves:
    s = sorted((p['metrics']['nic.Mpps'], p['metrics']['nic.median_ns'], p['metrics']['nic.p99_ns']) for p in pts)
    if s:
        ax.plot([x[0] for x in s], [x[1] for x in s], color + '-o', ms=3, label=name + ' p50')
        ax.plot([x[0] for x in s], [x[2] for x in s], color + '--', label=name + ' p99')
ax.set_yscale('log')
ax.set_xlabel('delivered load (Mpps, one queue)')
ax.set_ylabel('latency (ns)')
ax.set_title('latency vs load, 64 B, batches up to 32', fontsize=8)
ax.legend(fontsize=6)

def same(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def rate(pts=None, **want):
    for p in peak if pts is None else pts:
        q = p['point']
        if all(same(q.get('workloads.0.' + k), v) for k, v in want.items()):
            return p['metrics']['nic.Mpps']
    return 0.0


ax = axes[2]
four = [('ccnic', rate(nic='ccnic', per_line=4, layout='grouped', buffers='slots', batch=32, size='64B', queues=1, homing='writer')),
        ('e810_upi', rate(nic='e810_upi', per_line=4, batch=32, size='64B', queues=1, homing='writer')),
        ('e810', rate(ppeak, device='e810', batch=32, size='64B', queues=1)),
        ('cx6', rate(ppeak, device='cx6', batch=32, size='64B', queues=1))]
ax.bar(range(len(four)), [f[1] for f in four], color=[COLORS[f[0]] for f in four])
ax.set_xticks(range(len(four)))
ax.set_xticklabels([NAMES[f[0]] for f in four], fontsize=6, rotation=20, ha='right')
ax.set_ylabel('peak rate, 64 B (Mpps, one queue)')
ax.set_title('peak packet rate, batch 32', fontsize=8)

ax = axes[3]

base = dict(size='64B', queues=1, homing='writer')
cc = dict(nic='ccnic', per_line=4, layout='grouped', buffers='slots')
ablation = [('CC-NIC: 4/line,\nbatch 32', rate(batch=32, **cc, **base)),
            ('tail registers\n(E810 on UPI)', rate(nic='e810_upi', per_line=4, batch=32, **base)),
            ('one desc.\nper line', rate(nic='ccnic', per_line=1, batch=32, **base)),
            ('4 packed,\na flag each', rate(nic='ccnic', per_line=4, layout='packed', batch=32, **base)),
            ('shared\nbuffer pools', rate(nic='ccnic', per_line=4, layout='grouped', buffers='pools', batch=32, **base)),
            ('batch 4', rate(batch=4, **cc, **base)),
            ('no batching', rate(batch=1, **cc, **base)),
            ('reader-\nhomed', rate(batch=32, **cc, size='64B', queues=1, homing='reader'))]
ax.bar(range(len(ablation)), [a[1] for a in ablation], color=['C0'] + ['C7'] * (len(ablation) - 1))
ax.set_xticks(range(len(ablation)))
ax.set_xticklabels([a[0] for a in ablation], fontsize=5.5, rotation=35, ha='right')
ax.set_ylabel('peak rate, 64 B (Mpps, one queue)')
ax.set_title('CC-NIC ablations', fontsize=8)
fig.subplots_adjust(wspace=0.38, bottom=0.25)
fig.suptitle('S002: NICs on the socket interconnect and on PCIe (model predictions)', fontsize=9)
save(fig, out, 's002_nic')
