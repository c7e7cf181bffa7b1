#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every source file (C, C++, headers, CMake, shell, Python, Promela) names its
# licence in an SPDX line near the top (line 1, or line 2 after a #! line).
# Usage: scripts/check-spdx.sh [DIR]   (default: the repository)
set -euo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root"
bad=0
while IFS= read -r -d '' f; do
  if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: BSD-3-Clause'; then
    echo "check-spdx: $f: no 'SPDX-License-Identifier: BSD-3-Clause' in its first lines"
    bad=1
  fi
# tests/hint/cases: input programs of `mca hint` whose expected reports name
# their line numbers; a licence line would shift them.
done < <(find . \( -path ./build -o -path ./out -o -path ./.git -o -name 'build-*' -o -path ./tests/hint/cases \) -prune -o -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.h.in' -o -name '*.cmake' -o -name '*.cmake.in' \
     -o -name 'CMakeLists.txt' -o -name '*.sh' -o -name '*.py' -o -name '*.pml' -o -path './.ci/run' \) -print0)
exit $bad
