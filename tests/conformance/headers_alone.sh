#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every installed public header compiles as the only include of a translation
# unit, from a directory that holds the installed headers and nothing else:
# as C++11 and C++17, and as strict C99 and C11. A header that needs another
# one first, a name from the source tree, or a construct one of these
# languages refuses fails here.
#   headers_alone.sh <cc> <cxx or -> <header>...
# <cxx> "-": no C++ compiler; the C++ builds are reported as skipped.
set -u
cc=$1 cxx=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/mcx-headers.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/include"
cp "$@" "$work/include/" || exit 1

fails=0 runs=0
check() { # <header> <language> <compiler> <flags...>
  h=$1 lang=$2 comp=$3
  shift 3
  src="$work/tu.$lang"
  # A header of macros alone would leave an empty unit, which ISO C refuses.
  printf '#include <%s>\ntypedef int mcx_headers_alone_unit;\n' "$h" >"$src"
  runs=$((runs + 1))
  if ! "$comp" -fsyntax-only -Wall -Wextra -Werror "$@" -I"$work/include" "$src" >"$work/log" 2>&1; then
    fails=$((fails + 1))
    echo "FAIL $h: $comp $*"
    sed 's/^/  /' "$work/log"
  fi
}

for path in "$@"; do
  h=$(basename "$path")
  check "$h" c "$cc" -x c -std=c99 -pedantic-errors
  check "$h" c "$cc" -x c -std=c11 -pedantic-errors
  if [ "$cxx" != - ]; then
    check "$h" cpp "$cxx" -x c++ -std=c++11 -pedantic-errors
    check "$h" cpp "$cxx" -x c++ -std=c++17 -pedantic-errors
  fi
done
[ "$cxx" = - ] && echo "headers_alone: no C++ compiler: the C++11 and C++17 builds were skipped"
echo "headers_alone: $# headers, $runs compilations, $fails failed"
[ "$fails" -eq 0 ]
