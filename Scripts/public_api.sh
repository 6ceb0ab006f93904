#!/usr/bin/env bash
# Fails when the public API of a library module differs from Docs/PublicAPI.txt:
# something became public (or stopped being public) without being listed. Reads the
# modules of the last `swift build` (BUILD_DIR, default .build/debug) with the
# compiler's swift-symbolgraph-extract, so it needs a build but no rebuild.
#   bash Scripts/public_api.sh            # check (CI, make test)
#   bash Scripts/public_api.sh --update   # rewrite the list after a deliberate change
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-.build/debug}
LIST=${LIST:-Docs/PublicAPI.txt}
SWIFT_BIN=$(dirname "$(readlink -f "$(command -v swift)")")
EXTRACT=${SWIFT_SYMBOLGRAPH_EXTRACT:-$SWIFT_BIN/swift-symbolgraph-extract}
TRIPLE=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')

# Every library module: a folder of Sources/ with Swift files and no main.swift
# (executables and the C targets have no public API to keep).
modules=()
for dir in Sources/*/; do
  name=$(basename "$dir")
  [ -n "$(find "$dir" -name '*.swift' -print -quit)" ] || continue
  [ -e "$dir/main.swift" ] && continue
  modules+=("$name")
done

graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
for module in "${modules[@]}"; do
  [ -e "$BUILD_DIR/Modules/$module.swiftmodule" ] || { echo "public API: $BUILD_DIR/Modules/$module.swiftmodule is missing; run swift build first" >&2; exit 1; }
  "$EXTRACT" -module-name "$module" -target "$TRIPLE" -I "$BUILD_DIR/Modules" \
    -I Sources/CSQLite -I Sources/CYAML -Xcc -fmodule-map-file="$BUILD_DIR/CSignalPipe.build/module.modulemap" \
    -minimum-access-level public -skip-synthesized-members -output-dir "$graphs" >/dev/null
done
python3 Scripts/public_api.py "$graphs" "$LIST" "$@"
