#!/usr/bin/python3
"""S001 experiment 1: FPGA-to-RAM write speed vs payload: the source's
theoretical maximum, hardware-timer and application speeds."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
pts = need(points(res, 's001_write_vs_payload'), 's001_write_vs_payload')
ref = reference('s001_rosta')
x = sorted(size_of(p['point']['workloads.0.payload']) for p in pts)
by = {size_of(p['point']['workloads.0.payload']): p['metrics'] for p in pts}
fig, ax = plt.subplots(figsize=(3.6, 2.6))
# The source's throughput model: 16 Gb/s x payload / (payload + 23 B), in MiB/s.
theory = [16e9 / 8 * s / (s + 23) / 2**20 for s in x]
ax.plot(x, theory, 'k--', label='theory, x/(x+23) (S001)')
ax.plot(x, [by[s]['wr.fpga0.write_hw_MiB_per_s'] for s in x], 'C0-o', ms=3, label='hxsim, hardware timer')
ax.plot(x, [by[s]['wr.fpga0.write_app_MiB_per_s'] for s in x], 'C1-s', ms=3, label='hxsim, application')
ax.plot([128], [ref['s001.wr_ram.hw.p128']['value']], 'C0X', ms=8, label='measured, hardware timer')
ax.plot([128], [ref['s001.wr_ram.app.p128']['value']], 'C1P', ms=8, label='measured, application')
ax.set_xscale('log', base=2)
ax.set_xticks(x)
ax.set_xticklabels([str(s) for s in x])
ax.set_xlabel('payload per TLP (B)')
ax.set_ylabel('write speed (MiB/s)')
ax.set_title('S001: one FPGA writes 4 MiB to RAM (x4 Gen2, MPS 128)')
ax.legend(loc='upper left')
save(fig, out, 's001_write_vs_payload')
