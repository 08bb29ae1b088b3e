#!/usr/bin/python3
"""Validation overview: error of every checked figure, coloured by result."""
import json
import os
import sys

from common import plt, save

if len(sys.argv) != 3:
    sys.exit('usage: validation_overview.py REPORT.json OUT_DIR')
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
cases = []
for i, r in enumerate(rows):
    if not cases or cases[-1][1] != r['case']:
        cases.append((i, r['case']))
ax.set_xticks([i for i, _ in cases])
ax.set_xticklabels([c for _, c in cases], rotation=60, ha='right', fontsize=6.5)
ax.set_ylabel('error vs measurement (%)')
s = rep['summary']
ax.set_title('hxsim validation: %d pass, %d fail, %d known gaps (orange); bars: error, ticks: tolerance'
             % (s['passed'], s['failed'], s['known_gaps']))
save(fig, sys.argv[2], 'validation_overview')
