#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds libmca and runs the whole test suite (unit, stress, conformance).
# Usage: scripts/test.sh [preset]   (default | debug | asan | ubsan | tsan)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
./scripts/deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
export MCX_STRESS_SECONDS="${MCX_STRESS_SECONDS:-3}"
ctest --preset "$preset" -j2
