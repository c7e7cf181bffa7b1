#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job: builds libmca, runs a quick benchmark of the whole matrix
# (libmca and its peer baselines on this machine) and writes the HTML report.
#   out/bench.json   every sample (schema: docs/benchmarks.md)
#   out/bench.txt    the table, derived figures and PASS/MISS target lines
#   out/report.html  one self-contained page with the plots
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
# The build of scripts/test.sh (preset default, build/default, the same
# flags): after it nothing is compiled or linked again. Only the mca command
# and what it runs are built here.
cmake --preset default >/dev/null
cmake --build --preset default --target mca
mkdir -p out
mca=./build/default/tools/mca/mca
# A cell that fails makes the benchmark exit 1; the report still shows the run
# (its first screen names what did not run), and this script exits with the
# benchmark's status afterwards.
rc=0
"$mca" bench --quick --json out/bench.json | tee out/bench.txt || rc=$?
"$mca" report out/bench.json -o out/report.html
echo
echo "report: $(pwd)/out/report.html"
exit "$rc"
