#!/bin/bash
# Compare the speed of two hxsim binaries on one sweep point, alternating
# them so that the machine's drift (wall time here varies up to 2x within an
# hour) falls on both alike. Prints the median and best TLP-hops/s of each,
# and the median of NEW/OLD over the pairs run one after the other.
#   [AB_CPU=N] scripts/ab-speed.sh OLD_HXSIM NEW_HXSIM [RUNS] [STUDY] [POINT]
# Default: 8 runs each of configs/s001_concurrent_write.yaml point 7 (the
# S001 eight-FPGA write of `hxsim bench`). AB_CPU runs both on that CPU
# only (taskset): on a virtual machine one vCPU can run at half the speed
# of another, and a run that lands there says nothing of the binary;
# `hxsim bench` prints each CPU's kernel rate and uses the fastest.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_HXSIM NEW_HXSIM [RUNS] [STUDY] [POINT]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
a=$1 b=$2 runs=${3:-8} study=${4:-$here/configs/s001_concurrent_write.yaml} point=${5:-7}
pin=()
if [ -n "${AB_CPU:-}" ]; then pin=(taskset -c "$AB_CPU"); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq "$runs"); do
  for bin in "$a" "$b"; do
    "${pin[@]}" "$bin" _point "$study" --index "$point" --out "$tmp/p.json"
    python3 -c 'import json,sys; print(sys.argv[1], json.load(open(sys.argv[2]))["tlp_hops_per_s"])' "$bin" "$tmp/p.json.timing"
  done
done | python3 -c '
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in sys.stdin:
    name, value = line.rsplit(" ", 1)
    runs[name].append(float(value))
for name, v in runs.items():
    print(f"{name}: median {statistics.median(v)/1e6:.2f} M TLP-hops/s, best {max(v)/1e6:.2f} M ({len(v)} runs)")
old, new = runs.values() if len(runs) == 2 else (None, None)
if old:
    ratio = statistics.median(b / a for a, b in zip(old, new))
    print(f"new/old, median over {len(old)} pairs: {ratio:.3f}")
'
