#!/usr/bin/env bash
# The main job: install what is missing, build, run every study in configs/,
# validate against the published measurements and regenerate every figure.
# Output: results/<study>/, results/validation_report.{md,json},
# results/plots/index.html. Exit status: that of the validation (0 = all
# figures inside tolerance).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Release build optimised with a training profile (about a quarter faster).
scripts/pgo-build.sh build -DHXSIM_BUILD_TESTS=OFF
for study in configs/*.yaml; do
  name=$(basename "$study" .yaml)
  echo "== $name"
  build/hxsim run "$study" -o "results/$name" -q
done
status=0
build/hxsim validate --work results/validate --report results/validation_report || status=$?
/usr/bin/python3 plots/make_all.py results results/plots results/validation_report.json
echo "report: results/validation_report.md   figures: results/plots/index.html"
exit $status
