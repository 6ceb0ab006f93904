#!/usr/bin/env bash
# Crash and fault safety, hundreds of times, on a store of 20 000 items. Each trial
# disturbs one `migrate apply`; then the store must read as exactly version 1 with
# all its data or exactly version 2 with all of it migrated.
#
#   Scripts/crashtest.sh [TRIALS]      (default 200; `make crashtest TRIALS=500`)
#   MODE=backup|diskfull|reader Scripts/crashtest.sh [TRIALS]   (`make faulttest`)
#
# Modes:
#   kill      `apply` is killed with SIGKILL at a random moment (the default);
#   backup    `apply --backup B` is killed at a random moment: B is then absent or
#             a complete copy of version 1 (never a partial file or a journal);
#   diskfull  `apply` runs under a random file-size limit (`ulimit -f`, SIGXFSZ
#             ignored) between the store's size and three times it: it migrates,
#             or exits 1 saying nothing was changed, with the file byte-identical
#             and no journal beside it;
#   reader    another process holds a read transaction for 3 s while
#             `apply --timeout 1` runs: apply gives up within 2.5 s with exit 1,
#             naming the reader, store unchanged; after the reader, apply migrates.
#
# Environment: MIGRATE (default .build/debug/migrate), ITEMS (default 20000), MODE.
# Needs the sqlite3 command-line shell (and python3 for MODE=reader). Prints one line per failed trial and a
# summary "N passed, M failed"; exits 1 when any trial failed.
#
# Each trial, right after the disturbance:
#   1. `migrate status` succeeds (a crashed writer's hot journal is rolled back in
#      a private copy it reads) and says version 1 (exit 3) or version 2 (exit 0);
#      when the kill left a journal, the commit never happened, so it must say 1;
#   2. `migrate inspect` succeeds; neither changed the store or its journal (read-only
#      commands write nothing); the next writer (here the sqlite3 shell, read-write)
#      plays a hot journal back, and then no hot journal is left beside the store;
#   3. PRAGMA integrity_check is ok;
#   4. every item and owner, as text, hashes to what version 1 holds, or to what
#      version 2 must hold computed from version 1's rows (not from a migrated store);
#   5. a second `migrate apply` completes and leaves exactly version 2's data.
# The model is the one of Sources/TestSupport/StockStore.swift (the Swift crash test).
set -uo pipefail

TRIALS=${1:-200}
ITEMS=${ITEMS:-20000}
MODE=${MODE:-kill}
case "$MODE" in kill|backup|diskfull|reader) ;; *) echo "crashtest: MODE is kill, backup, diskfull or reader" >&2; exit 64 ;; esac
cd "$(dirname "$0")/.."
MIGRATE=${MIGRATE:-.build/debug/migrate}
case "$MIGRATE" in /*) ;; *) MIGRATE="$PWD/$MIGRATE" ;; esac

command -v sqlite3 >/dev/null || { echo "crashtest: the sqlite3 shell is needed (apt-get install sqlite3)" >&2; exit 2; }
[ -x "$MIGRATE" ] || { echo "crashtest: $MIGRATE is not built (make build)" >&2; exit 2; }
[[ "$TRIALS" =~ ^[0-9]+$ ]] || { echo "usage: $0 [TRIALS]" >&2; exit 64; }

work=$(mktemp -d "${TMPDIR:-/tmp}/crashtest.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
# Private copies and other temporary files of the runs go here, where the trials can see them.
mkdir -p tmp
export TMPDIR="$work/tmp"
mkdir -p Models/Stock Migrations

cat > Models/Stock/1.yaml <<'YAML'
model: Stock
version: 1
entities:
  Owner:
    attributes:
      name: string
    relationships:
      items: { destination: Item, toMany: true, inverse: owner }
  Item:
    attributes:
      name: string
      value: integer16
      note: string?
    relationships:
      owner: { destination: Owner, inverse: items, optional: true }
YAML

cat > Models/Stock/2.yaml <<'YAML'
model: Stock
version: 2
entities:
  Owner:
    attributes:
      name: string
    relationships:
      items: { destination: Item, toMany: true, inverse: owner }
  Item:
    attributes:
      title: { type: string, renamedFrom: name }
      value: double
      score: { type: integer64, default: 7 }
    relationships:
      owner: { destination: Owner, inverse: items, optional: true }
YAML

migrate() { "$MIGRATE" "$1" --models Models --migrations Migrations "${@:2}"; }

# A version 1 store made by `migrate create`, filled with sqlite3 (same values as
# StockStore.create: 200 owners; item i → owner i % 200 + 1).
migrate create --model Stock --version 1 template.sqlite >/dev/null || exit 2
item_ent=$(sqlite3 template.sqlite "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
owner_ent=$(sqlite3 template.sqlite "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Owner'")
sqlite3 template.sqlite <<SQL || exit 2
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
INSERT INTO ZOWNER (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT i, $owner_ent, 1, 'owner ' || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ITEMS)
INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZOWNER, ZVALUE, ZNAME, ZNOTE)
SELECT i, $item_ent, 1, i % 200 + 1, i % 60001 - 30000, 'item ' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'note ' || i END FROM n;
UPDATE Z_PRIMARYKEY SET Z_MAX = 200 WHERE Z_ENT = $owner_ent;
UPDATE Z_PRIMARYKEY SET Z_MAX = $ITEMS WHERE Z_ENT = $item_ent;
COMMIT;
SQL

# Every row as text (quote() keeps types apart: 30 vs 30.0 vs '30'), hashed.
owners_sql="SELECT group_concat(Z_PK || '|' || quote(ZNAME), char(10)) FROM (SELECT * FROM ZOWNER ORDER BY Z_PK)"
v1_sql="SELECT hex(sha3(group_concat(Z_PK || '|' || quote(ZNAME) || '|' || quote(ZVALUE) || '|' || quote(ZNOTE) || '|' || quote(ZOWNER), char(10)) || ($owners_sql))) FROM (SELECT * FROM ZITEM ORDER BY Z_PK)"
v2_from_v1_sql="SELECT hex(sha3(group_concat(Z_PK || '|' || quote(ZNAME) || '|' || quote(CAST(ZVALUE AS REAL)) || '|' || quote(7) || '|' || quote(ZOWNER), char(10)) || ($owners_sql))) FROM (SELECT * FROM ZITEM ORDER BY Z_PK)"
v2_sql="SELECT hex(sha3(group_concat(Z_PK || '|' || quote(ZTITLE) || '|' || quote(ZVALUE) || '|' || quote(ZSCORE) || '|' || quote(ZOWNER), char(10)) || ($owners_sql))) FROM (SELECT * FROM ZITEM ORDER BY Z_PK)"
expected_v1=$(sqlite3 -readonly template.sqlite "$v1_sql")
expected_v2=$(sqlite3 -readonly template.sqlite "$v2_from_v1_sql")

# Reads a store as version $2 (1 or 2): its hash, or a reason it cannot.
digest() {
  if [ "$2" = 1 ]; then sqlite3 -readonly "$1" "$v1_sql" 2>&1; else sqlite3 -readonly "$1" "$v2_sql" 2>&1; fi
}

now_ms() { date +%s%3N; }

# An uninterrupted run: it must produce version 2 exactly, and its duration sets
# the window the kills fall in (past the end too, to kill after the commit).
cp template.sqlite reference.sqlite
t0=$(now_ms)
migrate apply reference.sqlite >/dev/null 2>&1 || { echo "crashtest: an uninterrupted apply failed" >&2; exit 1; }
duration=$(( $(now_ms) - t0 ))
[ "$(digest reference.sqlite 2)" = "$expected_v2" ] || { echo "crashtest: an uninterrupted apply does not give version 2's data" >&2; exit 1; }
window=$(( duration + duration / 2 + 1 ))

passed=0 failed=0 old=0 new=0 recovered=0
fail() { failed=$((failed + 1)); echo "trial $trial ($MODE, ${delay}): $*"; }

size_kib=$(( $(stat -c %s template.sqlite) / 1024 ))

for ((trial = 1; trial <= TRIALS; trial++)); do
  rm -f trial.sqlite trial.sqlite-journal backup.sqlite reader.out
  cp template.sqlite trial.sqlite
  delay=$(( RANDOM * 32768 + RANDOM ))
  delay=$(( delay % window ))
  case $MODE in
    kill|backup)
      extra=(); [ "$MODE" = backup ] && extra=(--backup backup.sqlite)
      # The binary itself in the background (a shell function would run in a
      # subshell, and the kill would hit the subshell, not migrate).
      "$MIGRATE" apply --models Models --migrations Migrations "${extra[@]}" trial.sqlite >/dev/null 2>&1 &
      pid=$!
      sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      if [ "$MODE" = backup ]; then
        if [ -e backup.sqlite ]; then
          [ -e backup.sqlite-journal ] && { fail "a journal beside the backup"; continue; }
          [ "$(digest backup.sqlite 1)" = "$expected_v1" ] || { fail "the backup is not a complete copy of version 1"; continue; }
        fi
      fi
      ;;
    diskfull)
      limit=$(( size_kib + RANDOM % (2 * size_kib + 1) ))
      delay="limit ${limit} KiB"
      bash -c "ulimit -f $limit; trap '' XFSZ; exec \"\$0\" apply --models Models --migrations Migrations trial.sqlite" "$MIGRATE" >apply.out 2>&1
      code=$?
      if [ $code -ne 0 ]; then
        [ $code -eq 1 ] || { fail "apply exited $code under a file-size limit: $(tail -c 300 apply.out)"; continue; }
        grep -q "nothing was changed" apply.out || { fail "apply failed without saying the store is unchanged: $(tail -c 300 apply.out)"; continue; }
        [ -e trial.sqlite-journal ] && { fail "a journal was left after a failed apply"; continue; }
        cmp -s template.sqlite trial.sqlite || { fail "apply failed, and the file is not byte-identical to before"; continue; }
      fi
      ;;
    reader)
      delay="reader"
      python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN"); c.execute("SELECT count(*) FROM ZITEM").fetchone()
print("reading", flush=True); time.sleep(3); c.execute("COMMIT")' trial.sqlite >reader.out 2>&1 &
      reader=$!
      for _ in $(seq 50); do grep -q reading reader.out 2>/dev/null && break; sleep 0.05; done
      t0=$(now_ms)
      migrate apply --timeout 1 trial.sqlite >apply.out 2>&1
      code=$?
      took=$(( $(now_ms) - t0 ))
      still=no; kill -0 "$reader" 2>/dev/null && still=yes
      wait "$reader" 2>/dev/null
      if [ "$still" = yes ]; then
        [ $code -eq 1 ] || { fail "apply exited $code while a reader held the store: $(tail -c 300 apply.out)"; continue; }
        [ $took -le 2500 ] || { fail "apply took ${took} ms with --timeout 1"; continue; }
        grep -q "holds the store" apply.out || { fail "the message does not say who holds the store: $(tail -c 300 apply.out)"; continue; }
        cmp -s template.sqlite trial.sqlite || { fail "apply gave up, and the file is not byte-identical to before"; continue; }
      fi
      ;;
  esac
  journal=no
  [ -e trial.sqlite-journal ] && journal=yes
  before_reading=$(cat trial.sqlite trial.sqlite-journal 2>/dev/null | md5sum)

  migrate status trial.sqlite >status.out 2>&1
  status=$?
  case $status in
    3) version=1 ;;
    0) version=2 ;;
    *) fail "status exited $status: $(head -c 300 status.out)"; continue ;;
  esac
  if [ "$journal" = yes ] && [ "$version" != 1 ]; then fail "a journal was left, yet status says version 2"; continue; fi
  if ! migrate inspect trial.sqlite >inspect.out 2>&1; then fail "inspect failed: $(head -c 300 inspect.out)"; continue; fi
  if [ "$(cat trial.sqlite trial.sqlite-journal 2>/dev/null | md5sum)" != "$before_reading" ]; then
    fail "status or inspect changed the store or its journal (read-only commands write nothing)"
    continue
  fi
  # The next writer plays a crashed writer's hot journal back.
  sqlite3 trial.sqlite "PRAGMA schema_version" >/dev/null 2>&1 || { fail "the store cannot be opened read-write"; continue; }
  # A journal may stay only if it is not hot: empty (a kill right after BEGIN
  # EXCLUSIVE opened it), or its header's magic number still zero (SQLite writes
  # it when it syncs the journal, before the first change to the database file),
  # so no reader or writer plays it back.
  if [ -s trial.sqlite-journal ] && [ "$(head -c 8 trial.sqlite-journal | od -An -tx1 | tr -d ' \n')" != 0000000000000000 ]; then
    fail "a hot journal is still beside the store after a writer opened it ($(stat -c %s trial.sqlite-journal) bytes)"
    continue
  fi
  if [ "$version" = 1 ] && ! cmp -s template.sqlite trial.sqlite; then fail "version 1, but the file is not byte-identical to the original"; continue; fi
  integrity=$(sqlite3 -readonly trial.sqlite "PRAGMA integrity_check" 2>&1)
  if [ "$integrity" != ok ]; then fail "integrity_check: $integrity"; continue; fi
  if [ "$version" = 1 ]; then want=$expected_v1; else want=$expected_v2; fi
  got=$(digest trial.sqlite "$version")
  if [ "$got" != "$want" ]; then fail "version $version, but its data differ (hash $got)"; continue; fi
  # The second apply takes a backup beside the first's, so that it sweeps the folder:
  # whatever a killed run left (a partial backup copy, a private copy in $TMPDIR) is gone after it.
  rm -f backup2.sqlite
  extra=(); [ "$MODE" = backup ] && extra=(--backup backup2.sqlite)
  if ! migrate apply "${extra[@]}" trial.sqlite >apply.out 2>&1; then fail "a second apply failed: $(tail -c 300 apply.out)"; continue; fi
  leftovers=$(ls -a . tmp | grep -F '.mm-scratch.' || true)
  [ -z "$leftovers" ] || { fail "a temporary file of the killed run is still there after the next apply: $leftovers"; continue; }
  if [ "$(digest trial.sqlite 2)" != "$expected_v2" ]; then fail "after a second apply the data are not version 2's"; continue; fi

  passed=$((passed + 1))
  if [ "$version" = 1 ]; then old=$((old + 1)); else new=$((new + 1)); fi
  [ "$journal" = yes ] && recovered=$((recovered + 1))
done

echo "crashtest ($MODE): $ITEMS items, apply takes ~${duration} ms, kills within ${window} ms: $old left at version 1 ($recovered with a hot journal rolled back), $new at version 2"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
