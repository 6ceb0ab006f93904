#!/usr/bin/env python3
"""Checks this toolkit's Core Data naming against stores Apple's Core Data wrote.

For every `*.wiredatabase` store of Wire's history (wireapp/wire-ios-data-model at
bf5946e7, read from a local mirror: nothing of Wire is copied into this repository),
the store's version is recognised (`migrate status`), a store of that version is
created with `migrate create --for-core-data`, and the two are compared table for
table and column for column (Z_PRIMARYKEY, Z_METADATA, Z_MODELCACHE and our MM_
tables aside). With --order, column order counts too. With --migrate, each store
is also migrated here to the last version (`migrate apply`, on a copy) and compared
with the store Core Data wrote at that version.

    swift build --product migrate
    python3 Scripts/store_naming.py [--mirror DIR] [--migrate PATH] [--order] [--migrate-to-last]

Prints each store that differs and a summary; exits 1 when any store differs (today
the 3 stores of versions 2-4, written by a 32-bit process: Docs/StoreNaming.md).
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

REPO = "wireapp/wire-ios-data-model"
COMMIT = "bf5946e7fc0a32292c5581d1f094549c7daca834"
BUNDLE = "Resources/zmessaging.xcdatamodeld"
STORES = "Tests/Resources"
SKIPPED = {"Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"}


def git(mirror, *args, binary=False):
    out = subprocess.run(["git", "--git-dir", mirror, *args], check=True, capture_output=True)
    return out.stdout if binary else out.stdout.decode()


def schema(path):
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {}
    for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        if name in SKIPPED or name.startswith(("MM_", "sqlite_", "ACHANGE", "ATRANSACTION")):
            continue
        tables[name] = [row[1] for row in connection.execute(f'PRAGMA table_info("{name}")')]
    connection.close()
    return tables


def differences(store, created, order):
    found = []
    for table in sorted(set(store) | set(created)):
        if table not in created:
            found.append(f"store only: {table}({','.join(store[table])})")
        elif table not in store:
            found.append(f"created only: {table}({','.join(created[table])})")
        elif (store[table] != created[table]) if order else (set(store[table]) != set(created[table])):
            found.append(f"{table}: store ({','.join(store[table])}), created ({','.join(created[table])})")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", default="/work/.mirror/wireapp+wire-ios-data-model/repo", help="bare git mirror of " + REPO)
    parser.add_argument("--migrate", default=".build/debug/migrate", help="the migrate binary")
    parser.add_argument("--order", action="store_true", help="column order counts")
    parser.add_argument("--migrate-to-last", action="store_true", help="also migrate each store to the last version and compare")
    args = parser.parse_args()
    migrate = os.path.abspath(args.migrate)
    work = tempfile.mkdtemp(prefix="store-naming-")
    try:
        bundle = os.path.join(work, "bundle")
        os.makedirs(bundle)
        archive = git(args.mirror, "archive", COMMIT, BUNDLE, binary=True)
        subprocess.run(["tar", "-x", "-C", bundle], input=archive, check=True)
        models = os.path.join(work, "Models")
        subprocess.run([migrate, "import", os.path.join(bundle, BUNDLE), "--model", "Wire", "--output", models],
                       check=True, capture_output=True)
        last = max(int(name.split(".")[0]) for name in os.listdir(os.path.join(models, "Wire")))
        names = [line for line in git(args.mirror, "ls-tree", "--name-only", f"{COMMIT}:{STORES}").split() if line.endswith(".wiredatabase")]
        matched, known, versions, matched_versions, unknown = 0, 0, set(), set(), []
        created = {}
        last_store = None
        for name in sorted(names):
            path = os.path.join(work, name)
            with open(path, "wb") as out:
                out.write(git(args.mirror, "show", f"{COMMIT}:{STORES}/{name}", binary=True))
            status = subprocess.run([migrate, "status", "--models", models, path, "--json"], capture_output=True, text=True)
            version = json.loads(status.stdout or "{}").get("version")
            if version is None:
                unknown.append(name)
                continue
            known += 1
            versions.add(version)
            if version not in created:
                created[version] = os.path.join(work, f"created-{version}.sqlite")
                subprocess.run([migrate, "create", "--models", models, "--version", str(version), "--for-core-data", created[version]],
                               check=True, capture_output=True)
            found = differences(schema(path), schema(created[version]), args.order)
            if version == last:
                last_store = path
            if found:
                print(f"{name} (version {version}):\n  " + "\n  ".join(found))
            else:
                matched += 1
                matched_versions.add(version)
        print(f"create --for-core-data: {matched} of {known} stores of a known version match ({len(matched_versions)} of {len(versions)} versions);"
              f" {len(unknown)} of unknown version ({', '.join(unknown)})")
        failed = matched != known
        if args.migrate_to_last and last_store:
            migrated_ok = 0
            tried = 0
            for name in sorted(names):
                path = os.path.join(work, name)
                if name in unknown or path == last_store:
                    continue
                copy = path + ".migrated"
                shutil.copyfile(path, copy)
                tried += 1
                result = subprocess.run([migrate, "apply", "--models", models, copy], capture_output=True, text=True)
                if result.returncode != 0:
                    print(f"{name}: apply exit {result.returncode}: {result.stderr.strip()[:300]}")
                    continue
                found = differences(schema(last_store), schema(copy), args.order)
                if found:
                    print(f"{name} migrated to {last}:\n  " + "\n  ".join(found))
                else:
                    migrated_ok += 1
            print(f"migrated here to {last}: {migrated_ok} of {tried} equal Core Data's store of version {last}")
            failed = failed or migrated_ok != tried
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
