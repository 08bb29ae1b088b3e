#!/usr/bin/env bash
# Build hxsim with profile-guided optimisation into BUILD_DIR:
#   scripts/pgo-build.sh BUILD_DIR [cmake options...]
# 1. an instrumented hxsim in BUILD_DIR/pgo-train runs a few points of the
#    shipped studies (every kind of device and workload, about 10 s);
# 2. BUILD_DIR is configured with that profile (HXSIM_PGO=use) and built.
# Both trees are Release builds: a profile fits only code compiled alike.
# Results are the same as without PGO (it changes code layout and inlining,
# not arithmetic); speed is not (docs/performance.md).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [cmake options...]" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
build=$1
shift
train=$build/pgo-train
prof=$(mkdir -p "$build" && cd "$build" && pwd)/pgo-profile
cmake -S . -B "$train" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHXSIM_BUILD_TESTS=OFF \
  -DHXSIM_ENABLE_MPI=OFF -DHXSIM_PGO=generate -DHXSIM_PGO_DIR="$prof" "$@"
cmake --build "$train" --target hxsim
rm -rf "$prof"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The RTL co-simulation is trained where it is built (HXSIM_ENABLE_RTL, on
# unless the options say otherwise): untrained, its code would be laid out
# as never run.
rtl=0
grep -q '^HXSIM_ENABLE_RTL:BOOL=ON' "$train/CMakeCache.txt" && rtl=1
# study, point index, and "rtl" for a point that needs the co-simulation:
# S001 eight-FPGA read and write (the write is `hxsim bench`'s S001
# scenario), peer transfers and latency; S004 ring DMA; S011 reads, writes
# and the IOMMU; S000 ATS; S003 Coyote; the coherence engine: S000 CCIX
# contention and locks, S002 socket latency and CC-NIC; the in-tree RTL
# engine on its own adapter and on the generic path, and a design of the
# user's own on the generic path (`hxsim bench`'s RTL scenarios). Then
# `hxsim bench`'s coherence scenario itself: without it the build's
# layout of that path moved with unrelated changes (docs/performance.md).
while read -r study point needs; do
  [ "$needs" = rtl ] && [ "$rtl" = 0 ] && continue
  "$train/hxsim" _point "configs/$study.yaml" --index "$point" --out "$tmp/p.json"
done <<'LIST'
s001_concurrent_read 7
s001_concurrent_write 7
s001_p2p_concurrent 3
s001_latency 0
s004_fhf 2
s011_bw_rd 5
s011_bw_wr 5
s011_iommu_bw 40
s000_ats 0
s003_perf_local 4
s000_contention 0
s000_locks 0
s002_latency 0
s002_nic_peak 0
s004_rtl 20 rtl
s004_rtl_generic 6 rtl
bench/rtl_generic 0 rtl
LIST
"$train/hxsim" _bench_coherence --out "$tmp/c.json"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHXSIM_PGO=use -DHXSIM_PGO_DIR="$prof" "$@"
cmake --build "$build"
