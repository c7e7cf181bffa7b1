#!/usr/bin/env bash
# Builds libmca and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
./build/default/tools/mca/mca demo
