#!/usr/bin/python3
"""Regenerate tests/golden/<platform>.json from the studies in
tests/golden/cases.json. Run after a deliberate model change, and say why in
the commit."""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HXSIM = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build', 'hxsim')
cases = json.load(open(os.path.join(ROOT, 'tests', 'golden', 'cases.json')))
with tempfile.TemporaryDirectory() as d:
    for name, c in cases.items():
        sets = sum((['--set', s] for s in c['set']), [])
        out = os.path.join(d, name)
        subprocess.run([HXSIM, 'run', os.path.join(ROOT, c['study']), '-o', out, '-q', *sets], check=True)
        pts = json.load(open(os.path.join(out, 'results.json')))['points']
        gold = [{'point': p['point'], 'metrics': p['metrics']} for p in pts]
        with open(os.path.join(ROOT, 'tests', 'golden', name + '.json'), 'w') as f:
            json.dump(gold, f, indent=1, sort_keys=True)
            f.write('\n')
        print('wrote', name)
