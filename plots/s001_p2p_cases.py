#!/usr/bin/python3
"""S001 experiment 4: FPGA-to-FPGA speeds per case (1, 2, 4, 8.1, 8.2
transfers) and the single transfer at MPS 128 and 256."""
from common import args, need, plt, points, reference, save

res, out = args()
ref = reference('s001_rosta')
pts = need(points(res, 's001_p2p_concurrent'), 's001_p2p_concurrent')
cases = [p['point']['workloads.0.name'] for p in pts]
per = [p['metrics'][c + '.per_transfer_MiB_per_s'] for c, p in zip(cases, pts)]
agg = [p['metrics'][c + '.aggregate_MiB_per_s'] for c, p in zip(cases, pts)]
fig, (a1, a2) = plt.subplots(1, 2, figsize=(7, 2.6), gridspec_kw={'width_ratios': [3, 1.2]})
xs = range(len(cases))
a1.bar([x - 0.2 for x in xs], per, 0.4, label='hxsim, per transfer')
a1.bar([x + 0.2 for x in xs], agg, 0.4, label='hxsim, aggregate')
a1.plot([0 - 0.2], [ref['s001.p2p.wr.p128']['value']], 'kX', ms=8, label='measured, one transfer')
a1.set_xticks(list(xs))
a1.set_xticklabels([c.replace('case', '').replace('_', '.') for c in cases])
a1.set_xlabel('case (simultaneous transfers)')
a1.set_ylabel('speed (MiB/s)')
a1.set_title('S001: concurrent FPGA-to-FPGA writes, 128 B')
a1.legend(loc='upper left')
single = [('MPS 128', 's001_p2p', 's001.p2p.wr.p128'), ('MPS 256', 's001_p2p_mps256', 's001.p2p.wr.p256')]
for i, (label, study, rid) in enumerate(single):
    p = need(points(res, study), study)[0]
    a2.bar(i, p['metrics']['p2p.fpga0_to_fpga1.rx_MiB_per_s'], 0.6, color='C0')
    a2.plot([i], [ref[rid]['value']], 'kX', ms=8)
a2.set_xticks([0, 1])
a2.set_xticklabels([s[0] for s in single])
a2.set_ylim(1400, 1800)
a2.set_title('one transfer, one switch')
save(fig, out, 's001_p2p_cases')
