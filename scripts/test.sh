#!/usr/bin/env bash
# Build and run every test: unit, component, integration (CLI, golden,
# plots) and validation against the published measurements.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-test
ctest --test-dir build-test -j 2 --output-on-failure
