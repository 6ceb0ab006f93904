#!/usr/bin/env bash
# Fleet benchmark (issue: fleets): STORES stores of ROWS items each, migrated
#   1. by a shell loop of `migrate apply`, one store after another (the baseline a
#      deploy script would write),
#   2. by `migrate fleet apply --jobs 1`,
#   3. by `migrate fleet apply --jobs $(nproc)`,
# each over its own copy of the same fleet, in the same run. Prints stores per
# second, the ratio to the loop and the fleet runner's peak memory.
#
#   make bench-fleet                       # 1,000 stores of 10,000 items, release build
#   STORES=200 ROWS=1000 bash Scripts/bench-fleet.sh .build/release/migrate
set -euo pipefail

MIGRATE=${1:-.build/release/migrate}
STORES=${STORES:-1000}
ROWS=${ROWS:-10000}
JOBS=${JOBS:-$(nproc)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-fleet.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MIGRATE=$(cd "$(dirname "$MIGRATE")" && pwd)/$(basename "$MIGRATE")

# The benchmark model: version 2 renames an attribute, widens a type (a rebuild
# of every item row), drops one and adds one with a default; items are indexed
# by owner.
mkdir -p "$WORK/Models/Stock"
cat > "$WORK/Models/Stock/1.yaml" <<'YAML'
model: Stock
version: 1
entities:
  Owner:
    attributes: { name: string }
    relationships:
      items: { destination: Item, toMany: true, inverse: owner }
  Item:
    attributes:
      name: { type: string, indexed: true }
      value: integer16
      note: string?
    relationships:
      owner: { destination: Owner, inverse: items, optional: true }
YAML
cat > "$WORK/Models/Stock/2.yaml" <<'YAML'
model: Stock
version: 2
entities:
  Owner:
    attributes: { name: string }
    relationships:
      items: { destination: Item, toMany: true, inverse: owner }
  Item:
    attributes:
      title: { type: string, renamedFrom: name, indexed: true }
      value: double
      score: { type: integer64, default: 7 }
    relationships:
      owner: { destination: Owner, inverse: items, optional: true }
YAML

cd "$WORK"
python3 - "$ROWS" <<'PY'
import json, sys
rows = int(sys.argv[1])
with open("owners.jsonl", "w") as f:
    for i in range(1, 101): f.write(json.dumps({"name": f"owner {i}"}) + "\n")
with open("items.jsonl", "w") as f:
    for i in range(1, rows + 1):
        item = {"name": f"item {i}", "value": i % 30000, "owner": i % 100 + 1}
        if i % 3: item["note"] = f"note {i}"
        f.write(json.dumps(item) + "\n")
PY
"$MIGRATE" create --models Models --model Stock --version 1 template.sqlite >/dev/null
"$MIGRATE" load --models Models template.sqlite Owner owners.jsonl >/dev/null
"$MIGRATE" load --models Models template.sqlite Item items.jsonl >/dev/null
for run in loop jobs1 jobsN; do
  for ((i = 0; i < STORES; i++)); do
    mkdir -p "$run/t$((i % 50))"
    cp template.sqlite "$run/t$((i % 50))/store$i.sqlite"
  done
done
echo "fleet: $STORES stores of $ROWS items ($(du -sh loop | cut -f1) each copy), $(nproc) cores, $MIGRATE"

seconds() { python3 -c 'import sys,time; print(f"{time.time()-float(sys.argv[1]):.2f}")' "$1"; }
now() { python3 -c 'import time; print(time.time())'; }

start=$(now)
find loop -name '*.sqlite' -print0 | while IFS= read -r -d '' store; do
  "$MIGRATE" apply --models Models "$store" >/dev/null 2>&1
done
loop=$(seconds "$start")

peak() { grep 'Maximum resident' "$1" | awk '{printf "%.0f", $NF / 1024}'; }
start=$(now)
/usr/bin/time -v -o time1.txt "$MIGRATE" fleet apply --models Models jobs1 --jobs 1 >fleet1.txt 2>&1
jobs1=$(seconds "$start")
start=$(now)
/usr/bin/time -v -o timeN.txt "$MIGRATE" fleet apply --models Models jobsN --jobs "$JOBS" >fleetN.txt 2>&1
jobsN=$(seconds "$start")

# Every store of every run ends current.
for run in loop jobs1 jobsN; do
  "$MIGRATE" fleet status --models Models "$run" >/dev/null || { echo "not every store of $run is current"; exit 1; }
done

python3 - "$STORES" "$loop" "$jobs1" "$jobsN" "$JOBS" "$(peak time1.txt)" "$(peak timeN.txt)" <<'PY'
import sys
stores, loop, j1, jn, jobs, m1, mn = int(sys.argv[1]), *map(float, sys.argv[2:5]), sys.argv[5], sys.argv[6], sys.argv[7]
print(f"| run | seconds | stores/s | vs shell loop | peak MB |")
print(f"|---|---:|---:|---:|---:|")
print(f"| shell loop of `migrate apply` | {loop:.2f} | {stores/loop:.1f} | 1.00× | |")
print(f"| `fleet apply --jobs 1` | {j1:.2f} | {stores/j1:.1f} | {loop/j1:.2f}× | {m1} |")
print(f"| `fleet apply --jobs {jobs}` | {jn:.2f} | {stores/jn:.1f} | {loop/jn:.2f}× | {mn} |")
PY
