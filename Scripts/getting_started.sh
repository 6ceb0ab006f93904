#!/usr/bin/env bash
# Runs Docs/GettingStarted.md as it is written, so that the walkthrough and what the
# tools do cannot drift apart.
#
# Every ```sh block of the document runs, in order, in one bash (`set -e -o pipefail`,
# so a command that fails where the document does not expect it fails the run), with
# the built `migrate` first on the PATH and MM set to this checkout. A ```text block
# right after a ```sh block is that block's output: each of its lines must be a line
# of what the block printed (stdout and stderr), except blank lines and lines that
# are only "…" (the document marks left-out lines so); a line ending in "…" must
# begin a printed line (the document shortened it). The document shows exit codes
# as the `exit N` lines its commands echo, so the exit codes are checked with the
# output. Before comparing, both sides have their scratch folder (mktemp's
# /tmp/tmp.XXXXXXXXXX), UTC times in backup names, durations and process ids
# replaced by placeholders.
#
# The walkthrough's deploy package is built in Examples/DeployPackage/.build (a
# `swift` first on the PATH adds --scratch-path, then links the package's .build there),
# so that CI compiles ModelMigration and its dependencies once for both packages:
# the walkthrough's build and test take seconds, not the minutes of a clean build.
# SCRATCH=DIR uses another folder.
#
#   bash Scripts/getting_started.sh [path/to/migrate]     (default .build/debug/migrate; KEEP=1 keeps the outputs)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DOC=Docs/GettingStarted.md
MIGRATE=$(realpath "${1:-.build/debug/migrate}")
SCRATCH=${SCRATCH:-$ROOT/Examples/DeployPackage/.build}
[ -x "$MIGRATE" ] || { echo "getting_started.sh: no migrate at $MIGRATE (swift build first)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/getting-started.XXXXXX")
# KEEP=1 keeps the folder (each block's output is blocks/N.out) and prints its path.
if [ "${KEEP:-}" = 1 ]; then trap 'echo "getting_started.sh: kept $WORK" >&2' EXIT; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/bin" "$WORK/blocks" "$WORK/tmp"
ln -s "$MIGRATE" "$WORK/bin/migrate"
REAL_SWIFT=$(command -v swift)
cat > "$WORK/bin/swift" <<EOF
#!/usr/bin/env bash
# build and test use the shared build folder; .build then links to it, so that the
# paths the document shows (.build/debug/…) hold. (Building through the link instead
# would give clang's module cache two paths for one file, which it refuses.)
case "\${1:-}" in
  build|test)
    command=\$1; shift
    "$REAL_SWIFT" "\$command" --scratch-path "$SCRATCH" "\$@" || exit
    [ -e .build ] || ln -s "$SCRATCH" .build ;;
  *) exec "$REAL_SWIFT" "\$@" ;;
esac
EOF
chmod +x "$WORK/bin/swift"

# The blocks: N.sh for each ```sh block, N.expected for the ```text block after it.
awk -v dir="$WORK/blocks" '
  /^```/ && fence == "" {
    if ($0 == "```sh") { n++; fence = "sh"; file = dir "/" n ".sh"; printf "" > file; next }
    if ($0 == "```text" && after == n && n > 0) { fence = "text"; file = dir "/" n ".expected"; printf "" > file; next }
    fence = "other"; next
  }
  /^```$/ && fence != "" { if (fence != "other") close(file); after = (fence == "sh") ? n : 0; fence = ""; next }
  fence == "sh" || fence == "text" { print > file; next }
  fence == "" && $0 != "" { after = 0 }
' "$DOC"
blocks=$(ls "$WORK/blocks"/*.sh | wc -l)
[ "$blocks" -gt 0 ] || { echo "getting_started.sh: no sh blocks in $DOC" >&2; exit 1; }

# One shell runs every block, so that `cd` and variables carry from one to the next.
{
  echo "set -e -o pipefail"
  for i in $(seq 1 "$blocks"); do
    echo "echo $i > '$WORK/blocks/current'"
    echo "source '$WORK/blocks/$i.sh' > '$WORK/blocks/$i.out' 2>&1"
  done
  echo "echo done > '$WORK/blocks/current'"
} > "$WORK/driver.sh"

start=$(date +%s)
cd "$WORK/tmp"
if ! env -u MIGRATE_TRACE_SQL PATH="$WORK/bin:$PATH" MM="$ROOT" TMPDIR="$WORK/tmp" bash "$WORK/driver.sh"; then
  i=$(cat "$WORK/blocks/current")
  echo "getting_started.sh: block $i of $DOC failed:" >&2
  sed 's/^/  $ /' "$WORK/blocks/$i.sh" >&2
  echo "its output:" >&2
  sed 's/^/  /' "$WORK/blocks/$i.out" >&2
  exit 1
fi
cd "$ROOT"

normalize() {
  sed -E -e 's#(/[^ ]*)?/tmp\.[A-Za-z0-9]{10}#SCRATCH#g' \
         -e 's#[0-9]{8}T[0-9]{6}(\.[0-9]+)?Z#TIME#g' \
         -e 's#[0-9]+(\.[0-9]+)? ?(ms|s|seconds)\b#DURATION#g' \
         -e 's#process [0-9]+#process PID#g' \
         -e 's/[[:space:]]+$//'
}

failures=0
checked=0
for i in $(seq 1 "$blocks"); do
  expected=$WORK/blocks/$i.expected
  [ -e "$expected" ] || continue
  normalize < "$WORK/blocks/$i.out" > "$WORK/blocks/$i.actual"
  missing=0
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    [ "$line" = "…" ] && continue
    checked=$((checked + 1))
    case "$line" in
      *…) prefix=${line%…}; found=$(awk -v p="$prefix" 'index($0, p) == 1 { print "yes"; exit }' "$WORK/blocks/$i.actual") ;;
      *) found=$(grep -qxF -- "$line" "$WORK/blocks/$i.actual" && echo yes || true) ;;
    esac
    if [ "$found" != yes ]; then
      echo "getting_started.sh: block $i: the document shows a line the commands did not print:" >&2
      echo "  $line" >&2
      missing=$((missing + 1))
    fi
  done < <(normalize < "$expected")
  if [ "$missing" -gt 0 ]; then
    echo "  what block $i printed:" >&2
    sed 's/^/    /' "$WORK/blocks/$i.out" >&2
    failures=$((failures + missing))
  fi
done
if [ "$failures" -gt 0 ]; then
  echo "getting_started.sh: $failures lines of $DOC differ from what its commands print" >&2
  exit 1
fi
echo "getting_started.sh: $blocks blocks of $DOC ran, $checked output lines matched ($(( $(date +%s) - start )) s)"
