#!/usr/bin/python3
"""Validation overview: error of every checked figure, coloured by result."""
import json
import os
import sys

from common import plt, save

if len(sys.argv) != 3:
    sys.exit('usage: validation_overview.py REPORT.json OUT_DIR')
if not os.path.isfile(sys.argv[1]):
    sys.exit('no validation report %s: run it first (hxsim validate --report REPORT)' % sys.argv[1])
with open(sys.argv[1]) as f:
    rep = json.load(f)
os.makedirs(sys.argv[2], exist_ok=True)
rows = rep['cases']
colour = {'pass': 'C2', 'XPASS': 'C2', 'FAIL': 'C3', 'XFAIL': 'C1', 'no-point': 'C3'}
fig, ax = plt.subplots(figsize=(7.5, 2.8))
ax.bar(range(len(rows)), [r['error_pct'] for r in rows], color=[colour.get(r['status'], 'C7') for r in rows])
ax.plot(range(len(rows)), [r['tolerance_pct'] for r in rows], 'k_', ms=4)
ax.plot(range(len(rows)), [-r['tolerance_pct'] for r in rows], 'k_', ms=4)
ax.axhline(0, color='k', lw=0.6)
# One label per source at the middle of its checks, a rule between sources.
groups = []
for i, r in enumerate(rows):
    src = r.get('source', r['case'])
    if not groups or groups[-1][0] != src:
        groups.append([src, i, i])
    groups[-1][2] = i
for src, a, b in groups:
    if a:
        ax.axvline(a - 0.5, color='gray', lw=0.6)
ax.set_xticks([(a + b) / 2 for _, a, b in groups])
ax.set_xticklabels(['%s (%d)' % (src, b - a + 1) for src, a, b in groups])
ax.set_xlabel('checked figures by source (count)')
ax.set_ylabel('error vs measurement (%)')
s = rep['summary']
ax.set_title('hxsim validation: %d pass, %d fail, %d known gaps (orange); bars: error, ticks: tolerance'
             % (s['passed'], s['failed'], s['known_gaps']))
save(fig, sys.argv[2], 'validation_overview')
