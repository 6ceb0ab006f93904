#!/usr/bin/env python3
"""The real-world corpus: public apps' Core Data histories and Apple-written stores,
run through `migrate import`, the per-hop inference report, an export/import round
trip, and `status` + `fleet apply --verify` on the stores (Docs/Corpus.md).

Nothing of these apps is in this repository: each entry names the repository,
commit and path, and the script reads them from local mirrors (one bare git
repository per app, `<owner>+<name>/repo`, as the mirror tool lays them out) or,
with --clone, fetches that commit from GitHub.

    python3 Scripts/corpus.py --mirrors /work/.mirror [--migrate .build/release/migrate] [--only Wire]

Exit 0 when every history imports and validates, every refused hop is one of the
expected exceptions below (each with its reason in Docs/Corpus.md), the round
trip gives the same compiled model, and the stores end as expected; 1 otherwise.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile

# Refused hops: (from, to) → the kind of refusal expected (Docs/Corpus.md says why).
CORPUS = [
    dict(app="Simplenote (iOS)", repo="Automattic/simplenote-ios", commit="d3e2599cd16485a4b75a4a62882056351c18a0c7",
         bundle="Simplenote/Simplenote.xcdatamodeld", model="SimplenoteIOS", versions=7, refused={}),
    dict(app="Simplenote (macOS)", repo="Automattic/simplenote-macos", commit="899995937844f4add6d7cf5a77a61a06d77d50d7",
         bundle="Simplenote/Simplenote.xcdatamodeld", model="SimplenoteMac", versions=3, refused={}),
    dict(app="Stepik", repo="StepicOrg/stepik-ios", commit="a0e3696e6836ad9c5672ca02e02ea41400a998ca",
         bundle="Stepic/Legacy/Model/Model.xcdatamodeld", model="Stepik", versions=96, refused="typeChange"),
    dict(app="Mastodon", repo="mastodon/mastodon-ios", commit="a9e088a9c7b88720fed5eefdd2dc1606b5f21dc8",
         bundle="MastodonSDK/Sources/CoreDataStack/CoreData.xcdatamodeld", model="Mastodon", versions=9,
         refused={(2, 3): "destinationChanged"}),
    dict(app="Meshtastic", repo="meshtastic/Meshtastic-Apple", commit="9f0d810955a5c7662fa0487ad666b34ae36c8d02",
         bundle="Meshtastic/Meshtastic.xcdatamodeld", model="Meshtastic", versions=58,
         refused={(5, 6): "typeChange", (33, 34): "typeChange", (44, 45): "typeChange"}),
    dict(app="Moonlight", repo="moonlight-stream/moonlight-ios", commit="da470355257ddc843d6f3354bd621d0577630fe6",
         bundle="Limelight/Limelight.xcdatamodeld", model="Moonlight", versions=15, refused={(5, 6): "typeChange"}),
    dict(app="Wire", repo="wireapp/wire-ios-data-model", commit="bf5946e7fc0a32292c5581d1f094549c7daca834",
         bundle="Resources/zmessaging.xcdatamodeld", model="Wire", versions=90, refused={},
         stores="Tests/Resources", pattern="*.wiredatabase", store_outcome={"migrated": 79, "current": 1, "unknown-version": 2}),
    dict(app="Wire (events)", repo="wireapp/wire-ios-data-model", commit="bf5946e7fc0a32292c5581d1f094549c7daca834",
         bundle="Resources/ZMEventModel.xcdatamodeld", model="WireEvents", versions=3, refused={}),
    dict(app="WooCommerce", repo="woocommerce/woocommerce-ios", commit="2077debb97b5020c3aa1faaece30961beabf73e8",
         bundle="Storage/Storage/Model/WooCommerce.xcdatamodeld", model="WooCommerce", versions=117,
         refused={(9, 10): "requiredWithoutDefault", (31, 32): "destinationChanged", (32, 33): "requiredWithoutDefault"}),
    dict(app="xDrip4iOS", repo="JohanDegraeve/xdripswift", commit="69eb88330a22e7d9969ee94ec6fa87072367fd2e",
         bundle="xDrip/Core Data/xdrip.xcdatamodeld", model="xDrip", versions=5, refused={}),
    dict(app="OpenEmu", repo="OpenEmu/OpenEmu", commit="95c2fe116aa82bd098ada181967f8ae67fa3592c",
         bundle="OpenEmu/OEDatabase.xcdatamodeld", model="OpenEmu", versions=9, refused={}),
]


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def extract(entry, mirrors, clone, into):
    """The entry's paths at its commit, under `into`."""
    owner, name = entry["repo"].split("/")
    git_dir = os.path.join(mirrors, f"{owner}+{name}", "repo") if mirrors else None
    if not (git_dir and os.path.isdir(git_dir)):
        if not clone:
            raise RuntimeError(f"no mirror of {entry['repo']} under {mirrors} (give --clone to fetch it)")
        git_dir = os.path.join(into, ".git-" + name)
        run(["git", "init", "--bare", "-q", git_dir])
        fetched = run(["git", "--git-dir", git_dir, "fetch", "-q", "--depth", "1", f"https://github.com/{entry['repo']}", entry["commit"]])
        if fetched.returncode != 0:
            raise RuntimeError(fetched.stderr.strip())
    paths = [entry["bundle"]] + ([entry["stores"]] if entry.get("stores") else [])
    for path in paths:
        archive = subprocess.Popen(["git", "--git-dir", git_dir, "archive", entry["commit"], path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        subprocess.run(["tar", "-x", "-C", into], stdin=archive.stdout, check=True)
        archive.wait()


def check(entry, migrate, mirrors, clone):
    problems = []
    work = tempfile.mkdtemp(prefix="corpus-")
    try:
        extract(entry, mirrors, clone, work)
        models = os.path.join(work, "Models")
        result = run([migrate, "import", os.path.join(work, entry["bundle"]), "-o", models, "--model", entry["model"], "--report", "--json"])
        if result.returncode not in (0, 4):
            return [f"import failed (exit {result.returncode}): {result.stderr.strip()[:400]}"], {}
        report = json.loads(result.stdout)
        versions = len(report["versions"])
        if versions != entry["versions"]:
            problems.append(f"{versions} versions imported, {entry['versions']} expected")
        refused = {(h["from"], h["to"]): {r["kind"] for r in h["refusals"]} for h in report["hops"] if not h["inferred"]}
        expected = entry["refused"]
        for hop, kinds in refused.items():
            want = expected if isinstance(expected, str) else expected.get(hop)
            if want is None or want not in kinds:
                problems.append(f"hop {hop[0]} → {hop[1]} refused ({', '.join(sorted(kinds))}), not an expected exception")
        if isinstance(expected, dict):
            for hop in expected:
                if hop not in refused:
                    problems.append(f"hop {hop[0]} → {hop[1]} now inferred (update the expected exceptions)")
        validate = run([migrate, "validate", models])
        if validate.returncode != 0:
            problems.append(f"validate failed: {validate.stderr.strip()[:300]}")
        # Round trip: export the versions, import them again, compare compiled models.
        exported = os.path.join(work, "RoundTrip.xcdatamodeld")
        export = run([migrate, "export", "--models", models, "--model", entry["model"], "-o", exported])
        again = os.path.join(work, "Again")
        reimport = run([migrate, "import", exported, "-o", again, "--model", entry["model"]]) if export.returncode == 0 else export
        if reimport.returncode != 0:
            problems.append(f"round trip failed: {reimport.stderr.strip()[:300]}")
        else:
            def compiled(folder):
                versions = json.loads(run([migrate, "compile", os.path.join(folder, entry["model"])]).stdout)["models"][0]["versions"]
                def strip(value):  # where the YAML was (file, line, column): not the model
                    if isinstance(value, dict):
                        return {k: strip(v) for k, v in value.items() if k not in ("file", "location")}
                    if isinstance(value, list):
                        return [strip(v) for v in value]
                    return value
                return strip(versions)
            first, second = compiled(models), compiled(again)
            if first != second:
                differing = [a["version"] for a, b in zip(first, second) if a != b]
                problems.append(f"round trip: versions {differing[:5]} compile differently after export and import")
        outcome = {}
        if entry.get("stores"):
            stores = os.path.join(work, entry["stores"])
            fleet = run([migrate, "fleet", "apply", "--models", models, stores, "--pattern", entry["pattern"], "--verify", "--json"])
            for line in fleet.stdout.splitlines():
                record = json.loads(line)
                if record.get("event") == "store":
                    outcome[record["status"]] = outcome.get(record["status"], 0) + 1
            if outcome != entry["store_outcome"]:
                problems.append(f"stores: {outcome}, expected {entry['store_outcome']}")
        summary = dict(versions=versions, hops=len(report["hops"]), inferred=sum(1 for h in report["hops"] if h["inferred"]),
                       refused=len(refused), stores=outcome)
        return problems, summary
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", default=os.environ.get("CORPUS_MIRRORS", "/work/.mirror"))
    parser.add_argument("--clone", action="store_true", help="fetch commits missing from --mirrors from GitHub")
    parser.add_argument("--migrate", default=".build/release/migrate")
    parser.add_argument("--only", help="the entries whose app or model contains this text")
    options = parser.parse_args()
    migrate = os.path.abspath(options.migrate)
    failed = 0
    print(f"{'app':<20} {'versions':>8} {'hops':>5} {'inferred':>8} {'refused':>7}  stores")
    for entry in CORPUS:
        if options.only and options.only not in entry["app"] and options.only not in entry["model"]:
            continue
        try:
            problems, s = check(entry, migrate, options.mirrors, options.clone)
        except Exception as error:  # a missing mirror, a failed fetch
            problems, s = [str(error)], {}
        if s:
            print(f"{entry['app']:<20} {s['versions']:>8} {s['hops']:>5} {s['inferred']:>8} {s['refused']:>7}  {s['stores'] or ''}")
        for problem in problems:
            print(f"  FAIL {entry['app']}: {problem}")
        failed += bool(problems)
    print("every history as expected" if not failed else f"{failed} histories not as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
