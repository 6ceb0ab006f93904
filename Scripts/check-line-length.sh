#!/usr/bin/env bash
# No Swift line over 120 columns (the lineLength of .swift-format): lists every
# longer line as FILE:LINE: N columns and exits 1, or exits 0 when there is none.
# Columns are characters (UTF-8 continuation bytes are not counted), so the check
# reads the same with any awk. Build folders (.build*, .swiftpm) are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

limit="${LIMIT:-120}"
folders=()
for folder in Sources Tests Benchmarks Migrations Examples; do
  [ -d "$folder" ] && folders+=("$folder")
done
[ ${#folders[@]} -gt 0 ] || { echo "check-line-length: no Swift folders found" >&2; exit 2; }

report=$(find "${folders[@]}" \( -name '.build*' -o -name .swiftpm \) -prune -o -type f -name '*.swift' -print0 \
  | sort -z \
  | xargs -0 -r env LC_ALL=C awk -v limit="$limit" '
      { s = $0; gsub(/[\200-\277]/, "", s) }
      length(s) > limit { printf "%s:%d: %d columns\n", FILENAME, FNR, length(s) }')

if [ -n "$report" ]; then
  echo "$report"
  echo "check-line-length: $(printf '%s\n' "$report" | wc -l | tr -d ' ') Swift line(s) over $limit columns" >&2
  exit 1
fi
echo "check-line-length: no Swift line over $limit columns"
