#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Writes the man pages of the mca command from its help texts with help2man:
# mca.1 and one mca-<subcommand>.1 per subcommand listed by `mca help`.
# Usage: scripts/manpages.sh MCA_BINARY OUTDIR VERSION
set -eu
mca=$1 out=$2 version=$3
command -v help2man >/dev/null || { echo "manpages: help2man not installed" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# help2man runs PROGRAM --help; a subcommand gets a one-line wrapper.
"$mca" help | sed -n 's/^  \([a-z][a-z-]*\)  *\(.*\)$/\1\t\2/p' > "$tmp/list"
[ -s "$tmp/list" ] || { echo "manpages: no subcommands in 'mca help'" >&2; exit 1; }
see=$(cut -f1 "$tmp/list" | sed 's/^/mca-/; s/$/(1)/' | paste -sd, - | sed 's/,/, /g')
printf '[SEE ALSO]\n%s\n' "$see" > "$tmp/see.h2m"
help2man --no-info --no-discard-stderr --version-string="$version" --include="$tmp/see.h2m" \
  --name="the libmca tool: benchmarks, stress tests, models" -o "$out/mca.1" "$mca"
while IFS="$(printf '\t')" read -r cmd summary; do
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$mca" "$cmd" > "$tmp/mca-$cmd"
  chmod +x "$tmp/mca-$cmd"
  printf '[SEE ALSO]\nmca(1)\n' > "$tmp/sub.h2m"
  help2man --no-info --no-discard-stderr --version-string="$version" --include="$tmp/sub.h2m" \
    --name="$summary" -o "$out/mca-$cmd.1" "$tmp/mca-$cmd"
done < "$tmp/list"
ls "$out" | wc -l > "$out/.count"
