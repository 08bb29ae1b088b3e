#!/usr/bin/python3
"""Compare the points of two sets of study results, `meta` aside.

    scripts/same-points.py BEFORE AFTER

BEFORE and AFTER are either two study result directories (each with
points/K.json) or two directories holding one such directory per study (as
the main job's results/). Every point both sides have is compared as parsed
JSON without its `meta` (which carries wall-clock-free but build-specific
fields); a point one side lacks is reported too. Prints each differing
figure (the first few per point) and exits 1 when anything differs, 0 when
every point is bit-identical. A refactor runs the studies of configs/ with
the old and the new binary and checks them with this script.
"""
import json
import math
import sys
from pathlib import Path


def studies(root: Path):
    if (root / "points").is_dir():
        return {root.name: root}
    return {d.name: d for d in sorted(root.iterdir()) if (d / "points").is_dir()}


def points(study: Path):
    out = {}
    for f in (study / "points").glob("*.json"):
        if f.stem.isdigit():
            out[int(f.stem)] = f
    return out


def diffs(a, b, path=""):
    """Yield (path, a, b) for every leaf that differs."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                yield (f"{path}.{k}", a.get(k, "<absent>"), b.get(k, "<absent>"))
            else:
                yield from diffs(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from diffs(x, y, f"{path}[{i}]")
    elif a != b and not (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)):
        yield (path, a, b)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    before, after = Path(argv[1]), Path(argv[2])
    for p in (before, after):
        if not p.is_dir():
            print(f"{p}: not a directory", file=sys.stderr)
            return 2
    sa, sb = studies(before), studies(after)
    if len(sa) == 1 and len(sb) == 1:  # two single study directories, whatever their names
        sa, sb = {"study": next(iter(sa.values()))}, {"study": next(iter(sb.values()))}
    bad = compared = 0
    for name in sorted(set(sa) | set(sb)):
        if name not in sa or name not in sb:
            print(f"{name}: only in {'AFTER' if name in sb else 'BEFORE'}")
            bad += 1
            continue
        pa, pb = points(sa[name]), points(sb[name])
        for k in sorted(set(pa) | set(pb)):
            if k not in pa or k not in pb:
                print(f"{name} point {k}: only in {'AFTER' if k in pb else 'BEFORE'}")
                bad += 1
                continue
            ja, jb = (json.loads(f.read_text()) for f in (pa[k], pb[k]))
            ja.pop("meta", None)
            jb.pop("meta", None)
            d = list(diffs(ja, jb))
            compared += 1
            if d:
                bad += 1
                print(f"{name} point {k}: {len(d)} figure(s) differ")
                for path, x, y in d[:5]:
                    print(f"  {path}: {x!r} -> {y!r}")
    print(f"{compared} point(s) compared, {bad} differ{'s' if bad == 1 else ''}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
