#!/usr/bin/env python3
"""The real-world corpus: public apps' Core Data histories and stores written by Apple's
Core Data, run through the toolkit (Docs/Corpus.md says what each result means).

For every history: `migrate import` of the .xcdatamodeld into a temporary Models folder,
`migrate validate`, `migrate diff A B` for every adjacent hop (each hop noted with the
app's own .xcmappingmodel when it ships one), the import of the app's mapping models
(`import --mapping-models`: mapping files, policy skeletons, what is not carried), an export → import round trip compared
through `migrate compile`, the same round trip of every imported mapping file (`export` writes it as an
.xcmappingmodel, `import --mapping-models` reads that back: the same mapping-file YAML), and `migrate status` for every store against the imported
model (plus `fleet apply --verify` where an entry asks for it).

Nothing of these apps is in this repository: each entry names the repository, commit
and paths, and the script reads them from local mirrors (one bare git repository per
app, `<owner>+<name>/repo`) or, with --clone, fetches that commit from GitHub.

    swift build --product migrate
    python3 Scripts/corpus.py [--mirrors /work/.mirror | --clone] [--only Wire] [--migrate PATH]

Exit 0 when everything is as this file expects: every history imports and validates
with the expected number of versions, every refused hop is one of the expected
exceptions below (with the refusal kind listed; Docs/Corpus.md says why for each), no
expected exception became inferred, the round trip compiles to the same model, and
every store has the expected status. Exit 1 on any difference (a regression, or an
improvement to record here), 2 on usage errors.
"""
import argparse, collections, fnmatch, json, os, re, shutil, subprocess, sys, tempfile
import xml.etree.ElementTree as ElementTree

# The expected exceptions: hop (from, to) → the refusal kind `migrate diff` gives.
# Docs/Corpus.md explains each: a change outside Core Data's lightweight rules, a hop
# the app itself covers with a mapping model, or one where only the data can decide.
# order="history": the version names say nothing of the order (Stepik names versions by
# feature, "Model_notifications" beside "Model_exams_v10"), so the versions are
# imported in the order commits added them (`import --order`).
# stores: (path or folder, glob pattern or None, expected) where expected is a status
# (current | migration-needed | no-path | unknown-version) or, for a folder, a count per
# status.
CORPUS = [
    dict(app="Simplenote (iOS)", repo="Automattic/simplenote-ios", commit="d3e2599cd16485a4b75a4a62882056351c18a0c7",
         bundle="Simplenote/Simplenote.xcdatamodeld", model="SimplenoteIOS", versions=7, refused={}),
    dict(app="Simplenote (macOS)", repo="Automattic/simplenote-macos", commit="899995937844f4add6d7cf5a77a61a06d77d50d7",
         bundle="Simplenote/Simplenote.xcdatamodeld", model="SimplenoteMac", versions=3, refused={}),
    dict(app="Stepik", repo="StepicOrg/stepik-ios", commit="a0e3696e6836ad9c5672ca02e02ea41400a998ca",
         bundle="Stepic/Legacy/Model/Model.xcdatamodeld", model="Stepik", versions=96, refused={(64, 65): "typeChange"},
         order="history"),
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
         stores=[("Tests/Resources", "*.wiredatabase", {"migration-needed": 79, "current": 1, "unknown-version": 2})],
         fleet=("Tests/Resources", "*.wiredatabase", {"migrated": 79, "current": 1, "unknown-version": 2})),
    dict(app="Wire (events)", repo="wireapp/wire-ios-data-model", commit="bf5946e7fc0a32292c5581d1f094549c7daca834",
         bundle="Resources/ZMEventModel.xcdatamodeld", model="WireEvents", versions=3, refused={}),
    dict(app="WooCommerce", repo="woocommerce/woocommerce-ios", commit="2077debb97b5020c3aa1faaece30961beabf73e8",
         bundle="Storage/Storage/Model/WooCommerce.xcdatamodeld", model="WooCommerce", versions=117,
         refused={(9, 10): "requiredWithoutDefault", (31, 32): "destinationChanged", (32, 33): "requiredWithoutDefault"}),
    dict(app="xDrip4iOS", repo="JohanDegraeve/xdripswift", commit="69eb88330a22e7d9969ee94ec6fa87072367fd2e",
         bundle="xDrip/Core Data/xdrip.xcdatamodeld", model="xDrip", versions=5, refused={}),
    dict(app="OpenEmu", repo="OpenEmu/OpenEmu", commit="95c2fe116aa82bd098ada181967f8ae67fa3592c",
         bundle="OpenEmu/OEDatabase.xcdatamodeld", model="OpenEmu", versions=9, refused={}),
    dict(app="AltStore", repo="altstoreio/AltStore", commit="5a0f2de77e0723bf782447edbc0ab2bc11688234",
         bundle="AltStoreCore/Model/AltStore.xcdatamodeld", model="AltStore", versions=17,
         refused={(1, 2): "requiredWithoutDefault", (2, 3): "requiredWithoutDefault", (12, 13): "requiredWithoutDefault"}),
    dict(app="Delta", repo="rileytestut/Delta", commit="adee3c5c13a5fd944d0389cdbdd526cdcff2e6e6",
         bundle="Delta/Database/Model/Delta.xcdatamodeld", model="Delta", versions=12,
         refused={(3, 4): "requiredWithoutDefault"}),
    dict(app="Brave", repo="brave/brave-ios", commit="398f8b763aa88cdc23289138863d62f05b2c2a23",
         bundle="Sources/Data/models/Model.xcdatamodeld", model="Brave", versions=27, refused={}),
    dict(app="iNaturalist", repo="inaturalist/INaturalistIOS", commit="3ab220383e30f1a078c4f227c53d44e0f443cf7d",
         bundle="INaturalistIOS/INaturalist.xcdatamodeld", model="INaturalist", versions=18, refused={}),
    dict(app="Moody (objc.io Core Data book)", repo="objcio/core-data", commit="8c8d9cdc081611fdb9b1cf7f7ba83347d5f27990",
         bundle="Migrations/Migrations/Moody.xcdatamodeld", model="Moody", versions=6, refused={}),
    dict(app="EasyLife", repo="larromba/EasyLife", commit="00461a65dcf7ce78d9330abf310213a31bacb320",
         bundle="EasyLife/EasyLife.xcdatamodeld", model="EasyLife", versions=3, refused={},
         stores=[("EasyLifeTests/EasyLife.sqlite", None, "unknown-version"),
                 ("EasyLifeTests/EasyLife 1.3.0.sqlite", None, "unknown-version"),
                 ("EasyLifeTests/EasyLife 1.5.0.sqlite", None, "current")]),
    # The same stores against the bundle of the commit that added them: version 2
    # ("EasyLife 1.3.0") as it was before a later commit edited it.
    dict(app="EasyLife @ stores' commit", repo="larromba/EasyLife", commit="a31ea73dffe50cc5c5cb397caba24adbf4b8d4e0",
         bundle="EasyLife/EasyLife.xcdatamodeld", model="EasyLife", versions=2, refused={},
         stores=[("EasyLifeTests/EasyLife.sqlite", None, "current"),
                 ("EasyLifeTests/EasyLife 1.3.0.sqlite", None, "current")]),
    dict(app="CoreDataPlus SampleModel", repo="alemar11/CoreDataPlus", commit="f71b5f5706d8a17e9701b10d2fa2a56ede7d5e32",
         bundle="Tests/Resources/SampleModel/SampleModel.xcdatamodeld", model="SampleModel", versions=3, refused={},
         stores=[("Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite", None, "migration-needed"),
                 ("Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite", None, "migration-needed")]),
    dict(app="CoreDataPlus SampleModel3", repo="alemar11/CoreDataPlus", commit="f71b5f5706d8a17e9701b10d2fa2a56ede7d5e32",
         bundle="Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld", model="SampleModel3", versions=3, refused={},
         stores=[("Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite", None, "migration-needed")]),
    # Histories of two versions, kept for what they ship beside them: a store, a mapping model.
    dict(app="DuckDuckGo", repo="duckduckgo/iOS", commit="7b3f6010d27a3a69fe92a2ad698543f2e67c8900",
         bundle="DuckDuckGo/AppRatingPrompt.xcdatamodeld", model="AppRatingPrompt", versions=2, refused={},
         stores=[("DuckDuckGoTests/AppRatingPrompt_v1/Database.sqlite", None, "unknown-version")]),
    dict(app="LoopKit", repo="LoopKit/LoopKit", commit="2f535b3ca46825e82e0dd1b5ef9daccd53a3f0ca",
         bundle="LoopKit/Persistence/Model.xcdatamodeld", model="LoopKit", versions=2, refused={}),
    dict(app="CoreDataStack (BNR)", repo="bignerdranch/CoreDataStack", commit="1592253338c617ed9611ac88a6fd40d3df22f2f8",
         bundle="Sample Model/Deprecated/Sample.xcdatamodeld", model="BNRSample", versions=2, refused={},
         stores=[("Sample Model/Deprecated/TestModel.sqlite", None, "migration-needed")]),
    # Mapping models with merges (two entity mappings into one entity: 44 → 45) and
    # renaming identifiers that name another entity.
    dict(app="Olvid (app)", repo="olvid-io/olvid-ios", commit="ecbe2990036c755b0cb07132052fab1a8a046615",
         bundle="Sources/App/ObvAppDatabase/Sources/ObvMessenger.xcdatamodeld", model="ObvMessenger", versions=75,
         refused={(1, 2): "requiredWithoutDefault", (2, 3): "requiredWithoutDefault", (6, 7): "destinationChanged",
                  (7, 8): "requiredWithoutDefault", (8, 9): "requiredWithoutDefault", (9, 10): "requiredWithoutDefault",
                  (10, 11): "requiredWithoutDefault", (12, 13): "requiredWithoutDefault", (16, 17): "requiredWithoutDefault",
                  (19, 20): "requiredWithoutDefault", (23, 24): "requiredWithoutDefault", (29, 30): "requiredWithoutDefault",
                  (44, 45): "destinationChanged", (55, 56): "requiredWithoutDefault", (58, 59): "requiredWithoutDefault",
                  (66, 67): "requiredWithoutDefault"},
         mappings_under="Sources/App/"),
    dict(app="Olvid (engine)", repo="olvid-io/olvid-ios", commit="ecbe2990036c755b0cb07132052fab1a8a046615",
         bundle="Sources/Engine/ObvDatabaseManager/Sources/ObvEngine.xcdatamodeld", model="ObvEngine", versions=60,
         refused={(1, 2): "requiredWithoutDefault", (2, 3): "requiredWithoutDefault", (6, 7): "requiredWithoutDefault",
                  (8, 9): "requiredWithoutDefault", (9, 10): "requiredWithoutDefault", (11, 12): "requiredWithoutDefault",
                  (12, 13): "requiredWithoutDefault", (17, 18): "requiredWithoutDefault", (20, 21): "requiredWithoutDefault",
                  (26, 27): "requiredWithoutDefault", (28, 29): "requiredWithoutDefault", (30, 31): "typeChange",
                  (40, 41): "requiredWithoutDefault", (41, 42): "requiredWithoutDefault", (48, 49): "requiredWithoutDefault",
                  (49, 50): "requiredWithoutDefault", (58, 59): "requiredWithoutDefault", (59, 60): "requiredWithoutDefault"},
         mappings_under="Sources/Engine/"),
    # Eight versions in Xcode 3's binary format, with inheritance, fetch requests and counts
    # archived as NSDecimalNumber, and mapping models paired by hash.
    dict(app="Pecunia", repo="pecuniabanking/pecunia-client", commit="81f920bae7eaf013a2456f113a5c39c6f830bf9e",
         bundle="Resources/Models/Accounts.xcdatamodeld", model="Accounts", versions=19,
         refused={(1, 2): "typeChange", (15, 16): "requiredWithoutDefault"}),
    # A relationship moved to a parent entity (7 → 8: Book.book → LibraryItem.item).
    dict(app="BookPlayer", repo="TortugaPower/BookPlayer", commit="be3651475f51953a1d75f3b7fd9c273b7f460fd7",
         bundle="Shared/CoreData/BookPlayer.xcdatamodeld", model="BookPlayer", versions=11,
         refused={(3, 4): "requiredWithoutDefault", (10, 11): "requiredWithoutDefault"}),
]

STATUS = {0: "current", 3: "migration-needed", 4: "no-path", 5: "unknown-version"}


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def git_dir_for(entry, mirrors, clone, work):
    owner, name = entry["repo"].split("/")
    git_dir = os.path.join(mirrors, f"{owner}+{name}", "repo") if mirrors else None
    if git_dir and os.path.isdir(git_dir) and run(["git", "--git-dir", git_dir, "cat-file", "-e", entry["commit"]]).returncode == 0:
        return git_dir
    if not clone:
        raise RuntimeError(f"no mirror of {entry['repo']} at {entry['commit'][:8]} under {mirrors} (give --clone to fetch it)")
    git_dir = os.path.join(work, ".git-" + name)
    run(["git", "init", "--bare", "-q", git_dir])
    run(["git", "--git-dir", git_dir, "remote", "add", "origin", f"https://github.com/{entry['repo']}"])
    # The history order reads every commit (a blobless clone: blobs come when archived); else one commit.
    depth = ["--filter=blob:none"] if entry.get("order") == "history" else ["--depth", "1"]
    fetched = run(["git", "--git-dir", git_dir, "fetch", "-q", *depth, "origin", entry["commit"]])
    if fetched.returncode != 0:
        raise RuntimeError(fetched.stderr.strip())
    return git_dir


def extract(git_dir, commit, paths, into):
    """The paths at the commit, unpacked under `into`."""
    archive = subprocess.Popen(["git", "--git-dir", git_dir, "archive", commit, "--", *paths], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    subprocess.run(["tar", "-x", "-C", into], stdin=archive.stdout, check=True)
    archive.wait()


def mapping_models(git_dir, commit, bundle):
    """The app's .xcmappingmodel files whose source and destination are versions of this
    bundle: path → (source version folder, destination version folder)."""
    names = run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", commit]).stdout.splitlines()
    bundle_name = os.path.basename(bundle)
    found = {}
    for path in names:
        if not path.endswith(".xcmappingmodel/xcmapping.xml"):
            continue
        shown = run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"])
        xml, ends = shown.stdout, {}
        if shown.returncode != 0:  # not in the snapshot (mapping models embed both models: some pass 4 MiB)
            found[os.path.dirname(path)] = None
            continue
        for side in ("source", "destination"):
            match = re.search(rf'name="{side}modelpath" type="string">([^<]*)<', xml)
            if match:
                parts = match.group(1).split("/")
                if len(parts) >= 2 and parts[-2] == bundle_name:
                    ends[side] = parts[-1]
        if len(ends) == 2:
            found[os.path.dirname(path)] = (ends["source"], ends["destination"])
    return found


def extract_mapping_models(git_dir, commit, into, under=""):
    """Every .xcmappingmodel of the commit (under the folder `under`, for a repository whose
    databases keep their mapping models apart), unpacked under `into` (one folder each); a
    folder whose xcmapping.xml is not in the snapshot (over its 4 MiB limit) is left empty,
    so the import names it. Returns how many were found."""
    names = run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", commit]).stdout.splitlines()
    found = 0
    for path in names:
        if not path.endswith(".xcmappingmodel/xcmapping.xml") or not path.startswith(under):
            continue
        folder = os.path.join(into, os.path.dirname(path))
        os.makedirs(folder, exist_ok=True)
        found += 1
        shown = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], capture_output=True)
        if shown.returncode == 0:
            with open(os.path.join(folder, "xcmapping.xml"), "wb") as file:
                file.write(shown.stdout)
    return found


def history_order(git_dir, commit, bundle, by_name):
    """The bundle's versions in the order commits added them (a version's first add,
    wherever the bundle was then), ties within one commit in name order: for bundles
    whose version names say nothing of their order."""
    name = os.path.basename(bundle)
    log = run(["git", "--git-dir", git_dir, "log", "--reverse", "--diff-filter=A", "--name-only", "--format=@%ct", commit,
               "--", f":(glob)**/{name}/*.xcdatamodel/contents", f":(glob){name}/*.xcdatamodel/contents"]).stdout
    first, when = {}, 0
    for line in log.splitlines():
        if line.startswith("@"):
            when = int(line[1:])
        elif line.endswith("/contents"):
            first.setdefault(line.split("/")[-2], when)
    missing = [v for v in by_name if v not in first]
    if missing:
        raise RuntimeError(f"no commit adds {', '.join(missing[:3])}: the history order needs the repository's history (a full mirror, or --clone)")
    return sorted(by_name, key=lambda v: first[v])  # stable: ties keep name order


# What Xcode rewrites whenever it saves a model, whatever the model says: the tools and
# system that saved it, the document format, and the graph editor's box positions
# (`<elements>`, read by neither code generation nor Core Data). Docs/Xcode.md lists them.
REWRITTEN_ON_SAVE = {("model", "lastSavedToolsVersion"), ("model", "systemVersion"), ("model", "documentVersion"), ("model", "type")}
NOT_COMPARED = {"elements"}


def contents_differences(original, exported):
    """`export(import(contents))` against the original `contents`, element by element and
    attribute by attribute: a Counter of differences by kind (`entity@representedClassName`,
    `missing fetchRequest`, `order of entity`), and one example of each. Children are
    matched by tag and name (or key, value, property), so an order difference is counted
    once per parent and does not hide the rest."""
    counts, examples = collections.Counter(), {}

    def note(kind, where):
        counts[kind] += 1
        examples.setdefault(kind, where)

    def key(element):
        return element.tag, next((element.get(k) for k in ("name", "key", "value", "property") if element.get(k) is not None), None)

    def keyed(children):
        seen, result = collections.Counter(), []
        for child in children:
            k = key(child)
            seen[k] += 1
            result.append(((*k, seen[k]), child))
        return result

    def compare(a, b, where):
        for name in sorted(set(a.attrib) | set(b.attrib)):
            if (a.tag, name) in REWRITTEN_ON_SAVE or a.get(name) == b.get(name):
                continue
            kind = f"{a.tag}@{name}" + (" missing" if b.get(name) is None else " added" if a.get(name) is None else "")
            note(kind, f"{where}: {name}={a.get(name)!r} → {b.get(name)!r}")
        left = keyed(c for c in a if c.tag not in NOT_COMPARED)
        right = keyed(c for c in b if c.tag not in NOT_COMPARED)
        right_by_key = dict(right)
        if [k for k, _ in left if k in right_by_key] != [k for k, _ in right if k in dict(left)]:
            note(f"order in {a.tag}", where)
        for k, child in left:
            label = f"{where}/{k[0]}[{k[1]}]" if k[1] is not None else f"{where}/{k[0]}"
            if k in right_by_key:
                compare(child, right_by_key[k], label)
            else:
                note(f"missing {k[0]}", label)
        left_keys = dict(left)
        for k, child in right:
            if k not in left_keys:
                note(f"added {k[0]}", f"{where}/{k[0]}[{k[1]}]")

    compare(ElementTree.fromstring(original), ElementTree.fromstring(exported), "model")
    return counts, examples


def compiled(migrate, folder, model):
    versions = json.loads(run([migrate, "compile", os.path.join(folder, model)]).stdout)["models"][0]["versions"]

    # Where the YAML was (file, line, column) is not the model, nor `mappedFrom` (the hops the
    # app ships mapping models for, which import writes from them: Xcode's format has no place
    # for it, so an export without the mapping files leaves it out).
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("file", "location", "mappedFrom")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(versions)


def without_comments(text):
    """A mapping file's YAML without its comments: what the loader reads. The importer's
    comments name the .xcmappingmodel imported and the lines of its xcmapping.xml."""
    kept = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        # a trailing comment: `   # …` after the value (the importer writes three spaces)
        quotes = 0
        for i, c in enumerate(line):
            if c == '"' and (i == 0 or line[i - 1] != "\\"):
                quotes += 1
            elif line.startswith("   # ", i) and quotes % 2 == 0:
                line = line[:i]
                break
        kept.append(line)
    return "\n".join(kept)


def mapping_round_trip(migrate, bundle, models, model, migrations, order, work):
    """Every imported mapping file, on its own: `export --migrations` (a folder holding only
    it) writes it as an .xcmappingmodel beside the bundle, and `import --mapping-models`
    of that gives a mapping file again, compared byte for byte (and without comments, to say
    what differs)."""
    result = dict(files=0, identical=0, identical_without_comments=0, refused=0, omissions=0, differences=[])
    folder = os.path.join(migrations, model)
    if not os.path.isdir(folder):
        return result
    for name in sorted(f for f in os.listdir(folder) if f.endswith(".yaml")):
        result["files"] += 1
        trip = os.path.join(work, "MappingTrip", name[:-5])
        os.makedirs(os.path.join(trip, "Migrations", model))
        shutil.copy(os.path.join(folder, name), os.path.join(trip, "Migrations", model, name))
        out = os.path.join(trip, "Out")
        export = run([migrate, "export", "--models", models, "--migrations", os.path.join(trip, "Migrations"), "--model", model,
                      "-o", os.path.join(out, model + ".xcdatamodeld"), "--json"])
        if export.returncode != 0:
            result["refused"] += 1
            message = (export.stderr.strip().splitlines() or ["?"])[0]
            result["differences"].append(f"{name}: export refused: {message[:300]}")
            continue
        result["omissions"] += sum(len(m["omissions"]) for m in json.loads(export.stdout)["mappingModels"])
        back = run([migrate, "import", os.path.join(out, model + ".xcdatamodeld"), "-o", os.path.join(trip, "Models"), "--model", model,
                    "--mapping-models", out, "--migrations-out", os.path.join(trip, "Back"), *order])
        again = os.path.join(trip, "Back", model, name)
        if back.returncode not in (0, 4) or not os.path.exists(again):
            result["differences"].append(f"{name}: import of the export gave no {name} (exit {back.returncode}): {back.stderr.strip()[:300]}")
            continue
        with open(os.path.join(folder, name)) as a, open(again) as b:
            first, second = a.read(), b.read()
        if first == second:
            result["identical"] += 1
        elif without_comments(first) == without_comments(second):
            result["identical_without_comments"] += 1
            pairs = zip(first.splitlines() + [""], second.splitlines() + [""])
            line, (x, y) = next((i + 1, p) for i, p in enumerate(pairs) if p[0] != p[1])
            result["differences"].append(f"{name}: line {line} (a comment): {x.strip()[:120]!r} came back as {y.strip()[:120]!r}")
            if os.environ.get("CORPUS_COMMENT_DIFFS"):
                import difflib
                for line in difflib.unified_diff(first.splitlines(), second.splitlines(), lineterm="", n=0):
                    if line[:1] in "+-" and not line.startswith(("+++", "---")):
                        print(f"COMMENTDIFF {name}: {line[:160]}", file=sys.stderr)
        else:
            pairs = zip(without_comments(first).splitlines() + [""], without_comments(second).splitlines() + [""])
            line, (x, y) = next((i + 1, p) for i, p in enumerate(pairs) if p[0] != p[1])
            result["differences"].append(f"{name}: line {line}: {x.strip()!r} came back as {y.strip()!r}")
    return result


def check(entry, migrate, mirrors, clone):
    problems, notes = [], []
    work = tempfile.mkdtemp(prefix="corpus-")
    try:
        git_dir = git_dir_for(entry, mirrors, clone, work)
        stores = entry.get("stores", [])
        extract(git_dir, entry["commit"], [entry["bundle"]] + [path for path, _, _ in stores], work)
        models = os.path.join(work, "Models")
        model = entry["model"]

        # import (with the per-hop report, to cross-check diff)
        bundle = os.path.join(work, entry["bundle"])
        order = []
        if entry.get("order") == "history":
            by_name = json.loads(run([migrate, "import", bundle, "-o", os.path.join(work, "ByName"), "--model", model, "--json"]).stdout)
            listed = [v["source"] for v in by_name["versions"]]
            history = history_order(git_dir, entry["commit"], entry["bundle"], listed)
            moved = sum(1 for a, b in zip(listed, history) if a != b)
            notes.append(f"versions imported in the order commits added them (--order): {moved} of {len(listed)} differ from name order")
            with open(os.path.join(work, "order.txt"), "w") as file:
                file.write("\n".join(history) + "\n")
            order = ["--order", os.path.join(work, "order.txt")]
        # the app's mapping models, imported beside the versions (Migrations/ of the work folder)
        mapping_folder = os.path.join(work, "MappingModels")
        shipped = extract_mapping_models(git_dir, entry["commit"], mapping_folder, entry.get("mappings_under", ""))
        with_mappings = ["--mapping-models", mapping_folder, "--migrations-out", os.path.join(work, "Migrations")] if shipped else []
        result = run([migrate, "import", bundle, "-o", models, "--model", model, "--report", "--json", *order, *with_mappings])
        if result.returncode not in (0, 4):
            return [f"import failed (exit {result.returncode}): {result.stderr.strip()[:400]}"], {}, notes
        report = json.loads(result.stdout)
        number = {v["source"].removesuffix(".xcdatamodel"): v["version"] for v in report["versions"]}
        versions = len(report["versions"])
        if versions != entry["versions"]:
            problems.append(f"{versions} versions imported, {entry['versions']} expected")
        reported = {(h["from"], h["to"]): h["inferenceAccepts"] for h in report["hops"]}
        imported = report.get("mappingModels") or {}
        mm = dict(imported=len(imported.get("imported", [])), skipped=len(imported.get("skipped", [])),
                  entity_mappings=sum(m["entityMappings"] for m in imported.get("imported", [])),
                  policies=len(imported.get("policySkeletons", [])),
                  expressions=sum(m["decodedExpressions"] for m in imported.get("imported", [])),
                  not_carried=sum(len(m["notCarried"]) for m in imported.get("imported", [])),
                  hops_mapped=sum(1 for h in report["hops"] if h.get("appMappingModel")),
                  hops_plan_accepts=sum(1 for h in report["hops"] if h.get("appMappingModel") and h.get("mappingFile") and not h.get("error")))
        # the path plan takes from every version to the current one (Docs/MappingFiles.md)
        paths = dict(planned=0, refused=0, differences=0)
        for p in report["paths"]:
            if p.get("refused"):
                paths["refused"] += 1
            else:
                paths["planned"] += 1
                first = p["pieces"][0]["kind"]
                paths[first] = paths.get(first, 0) + 1
            paths["differences"] += len(p.get("differences") or [])
        for h in report["hops"]:
            if h.get("appMappingModel") and h["inferred"]:
                problems.append(f"hop {h['from']} → {h['to']}: the app ships {h['appMappingModel']}, yet the report says inferred")
        for m in imported.get("imported", []):
            for line in m["notCarried"]:
                notes.append(f"not carried: {line}")
        for s in imported.get("skipped", []):
            notes.append(f"mapping model not imported: {os.path.basename(s['path'])}: {s['reason']}")
        others = len(imported.get("otherModels", []))
        # A stale mapping model (its hashes match no hop: Core Data never finds it) is reported, not imported.
        stale = len(imported.get("stale", []))
        for s in imported.get("stale", []):
            notes.append(f"stale mapping model (Core Data never uses it): {os.path.basename(s['path'])}: "
                         f"{', '.join(s['entities'])} differ")
        if shipped and mm["imported"] + mm["skipped"] + others + stale != shipped:
            problems.append(f"{shipped} mapping models shipped, {mm['imported']} imported, {mm['skipped']} reported not imported, "
                            f"{stale} stale, {others} of another bundle")

        # validate the versions alone: not the mapping folder of whatever directory the script runs in
        os.makedirs(os.path.join(work, "NoMigrations"), exist_ok=True)
        validate = run([migrate, "validate", "--migrations", os.path.join(work, "NoMigrations"), models])
        if validate.returncode != 0:
            problems.append(f"validate failed: {validate.stderr.strip()[:300]}")

        # the app's mapping models, by hop
        apps_mappings = {}
        def by_digits(n):  # the version whose folder name ends in n ("Model 31"; the unnumbered one is 1)
            hits = [v for k, v in number.items() if re.search(r"(\d+)$", k) and int(re.search(r"(\d+)$", k).group(1)) == n]
            return hits[0] if len(hits) == 1 else (min(number.values()) if n == 1 else None)
        for path, ends in mapping_models(git_dir, entry["commit"], entry["bundle"]).items():
            if ends is None:  # read the hop from the file name (WooCommerceModelV31toV32)
                named = re.search(r"V?(\d+)\s*[Tt]o\s*V?(\d+)\.xcmappingmodel$", path)
                if not named:
                    notes.append(f"mapping model {os.path.basename(path)}: its xcmapping.xml is not in the snapshot and its name names no hop")
                    continue
                a, b = by_digits(int(named.group(1))), by_digits(int(named.group(2)))
                source, destination = named.group(1), named.group(2)
            else:
                source, destination = ends
                a, b = number.get(source.removesuffix(".xcdatamodel")), number.get(destination.removesuffix(".xcdatamodel"))
            if a is None or b is None:
                notes.append(f"mapping model {os.path.basename(path)} names a version the bundle does not have ({source} → {destination})")
            elif b != a + 1:
                notes.append(f"mapping model {os.path.basename(path)} spans {a} → {b}, not one hop")
            else:
                apps_mappings[(a, b)] = os.path.basename(path)

        # diff every adjacent hop
        refused, inferred = {}, 0
        for a in range(1, versions):
            hop = (a, a + 1)
            diff = run([migrate, "diff", "--models", models, "--model", model, str(a), str(a + 1), "--json"])
            if diff.returncode == 0:
                inferred += 1
            elif diff.returncode == 4:
                refused[hop] = {r["kind"] for r in json.loads(diff.stdout).get("refusals", [])}
            else:
                problems.append(f"diff {a} {a + 1} failed (exit {diff.returncode}): {diff.stderr.strip()[:300]}")
                continue
            if reported.get(hop) != (diff.returncode == 0):
                problems.append(f"hop {a} → {a + 1}: import --report and diff disagree")
        expected = entry["refused"]
        for hop, kinds in sorted(refused.items()):
            want = expected.get(hop)
            if want is None or want not in kinds:
                problems.append(f"hop {hop[0]} → {hop[1]} refused ({', '.join(sorted(kinds))}), not an expected exception")
        for hop in sorted(expected):
            if hop[1] <= versions and hop not in refused:
                problems.append(f"hop {hop[0]} → {hop[1]} now inferred (update the expected exceptions)")
        with_mapping = sum(1 for hop in refused if hop in apps_mappings)

        # round trip: export the versions, import them again, compare compiled models
        exported = os.path.join(work, "RoundTrip.xcdatamodeld")
        export = run([migrate, "export", "--models", models, "--migrations", os.path.join(work, "NoMigrations"), "--model", model,
                      "-o", exported, "--json"])
        again = os.path.join(work, "Again")
        # The export keeps the app's version folder names, so their order is given again.
        reimport = run([migrate, "import", exported, "-o", again, "--model", model, *order]) if export.returncode == 0 else export
        round_trip = "failed"
        if reimport.returncode != 0:
            problems.append(f"round trip failed: {reimport.stderr.strip()[:300]}")
        else:
            first, second = compiled(migrate, models, model), compiled(migrate, again, model)
            if first != second:
                differing = [x["version"] for x, y in zip(first, second) if x != y]
                problems.append(f"round trip: versions {differing[:5]} compile differently after export and import")
            else:
                round_trip = "identical"

        # the imported mapping files: export → import gives the same YAML
        mapping_trip = mapping_round_trip(migrate, bundle, models, model, os.path.join(work, "Migrations"), order, work)
        # Every imported mapping file comes back byte for byte (Docs/Corpus.md).
        for difference in mapping_trip["differences"]:
            problems.append(f"mapping round trip: {difference}")

        # fidelity: every XML version's `contents` against its export, attribute by attribute
        fidelity = dict(compared=0, identical=0, binary=0, differences={}, examples={})
        if export.returncode == 0:
            folders = json.loads(export.stdout)["versions"]
            for version, folder in zip(report["versions"], folders):
                source = os.path.join(bundle, version["source"], "contents")
                with open(source, "rb") if os.path.exists(source) else open(os.devnull, "rb") as file:
                    original = file.read()
                if not original.lstrip().startswith(b"<"):  # Xcode 3's binary archive: nothing to compare as XML
                    fidelity["binary"] += 1
                    continue
                with open(os.path.join(exported, folder, "contents"), "rb") as file:
                    counts, examples = contents_differences(original, file.read())
                fidelity["compared"] += 1
                fidelity["identical"] += not counts
                for kind, n in counts.items():
                    fidelity["differences"][kind] = fidelity["differences"].get(kind, 0) + n
                    fidelity["examples"].setdefault(kind, f"{version['source']}: {examples[kind]}")
            for kind, n in sorted(fidelity["differences"].items()):
                problems.append(f"export differs from contents: {kind} ×{n} (e.g. {fidelity['examples'][kind]})")

        # stores: status of each against the imported model
        store_outcome = {}
        for path, pattern, want in stores:
            full = os.path.join(work, path)
            files = ([os.path.join(full, f) for f in sorted(os.listdir(full)) if fnmatch.fnmatch(f, pattern)]
                     if pattern else [full])
            got = {}
            for store in files:
                # Beside the imported mapping files: a hop the app ships a mapping model for
                # (`mappedFrom:`) is never inferred without its file.
                os.makedirs(os.path.join(work, "Migrations"), exist_ok=True)
                status = run([migrate, "status", "--models", models, "--migrations", os.path.join(work, "Migrations"), store, "--json"])
                outcome = STATUS.get(status.returncode, f"exit {status.returncode}")
                got[outcome] = got.get(outcome, 0) + 1
                if not pattern:
                    if outcome != want:
                        problems.append(f"store {path}: {outcome}, expected {want}")
                    if status.returncode == 5:
                        try:
                            message = json.loads(status.stdout)["error"]["message"]
                        except (ValueError, KeyError, TypeError):
                            message = status.stdout + status.stderr
                        notes.append(f"store {os.path.basename(path)}: " + " ".join(message.split())[:300])
            if pattern and got != want:
                problems.append(f"stores under {path}: {got}, expected {want}")
            for k, n in got.items():
                store_outcome[k] = store_outcome.get(k, 0) + n

        fleet_outcome = {}
        if entry.get("fleet"):
            path, pattern, want = entry["fleet"]
            os.makedirs(os.path.join(work, "Migrations"), exist_ok=True)
            fleet = run([migrate, "fleet", "apply", "--models", models, "--migrations", os.path.join(work, "Migrations"),
                         os.path.join(work, path), "--pattern", pattern, "--verify", "--json"])
            for line in fleet.stdout.splitlines():
                record = json.loads(line)
                if record.get("event") == "store":
                    fleet_outcome[record["status"]] = fleet_outcome.get(record["status"], 0) + 1
            if fleet_outcome != want:
                problems.append(f"fleet apply --verify under {path}: {fleet_outcome}, expected {want}")

        summary = dict(versions=versions, hops=versions - 1, inferred=inferred, refused_with=with_mapping,
                       refused_without=len(refused) - with_mapping, mappings=len(apps_mappings),
                       mapped_but_inferred=sum(1 for hop in apps_mappings if hop not in refused),
                       round_trip=round_trip, mapping_round_trip=mapping_trip, stores=store_outcome, fleet=fleet_outcome, mapping_models=mm, fidelity=fidelity, paths=paths,
                       inferred_with_mapping={f"{a}→{b}": name for (a, b), name in sorted(apps_mappings.items()) if (a, b) not in refused},
                       refused={f"{a}→{b}": sorted(k) + (["app mapping model " + apps_mappings[(a, b)]] if (a, b) in apps_mappings else [])
                                for (a, b), k in sorted(refused.items())})
        return problems, summary, notes
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", default=os.environ.get("CORPUS_MIRRORS", "/work/.mirror"),
                        help="folder of bare mirrors, <owner>+<name>/repo")
    parser.add_argument("--clone", action="store_true", help="fetch commits missing from --mirrors from GitHub")
    parser.add_argument("--migrate", default=".build/debug/migrate", help="the migrate binary (swift build)")
    parser.add_argument("--only", help="only the entries whose app or model name contains this text")
    parser.add_argument("--verbose", action="store_true", help="also list every refused hop and every note")
    parser.add_argument("--json", action="store_true", help="write the per-entry summaries as JSON")
    options = parser.parse_args()
    migrate = os.path.abspath(options.migrate)
    if not os.access(migrate, os.X_OK):
        print(f"corpus.py: no migrate binary at {migrate} (swift build --product migrate, or --migrate PATH)", file=sys.stderr)
        return 2
    failed, totals, results, differences = 0, {}, [], {}
    # infer: hops inference covers (inf+map: of them, hops the app ships a mapping model
    # for, whose values may differ from inference's); ref+map / ref-map: refused hops
    # with / without the app's own mapping model; maps: the app's mapping models.
    header = (f"{'app':<32} {'vers':>4} {'hops':>4} {'infer':>5} {'inf+map':>7} {'ref+map':>7} {'ref-map':>7} {'maps':>4}"
              f"  {'round trip':<10}  {'export':>7}  stores")
    if not options.json:
        print(header)
    for entry in CORPUS:
        if options.only and options.only not in entry["app"] and options.only not in entry["model"]:
            continue
        try:
            problems, s, notes = check(entry, migrate, options.mirrors, options.clone)
        except Exception as error:  # a missing mirror, a failed fetch
            problems, s, notes = [str(error)], {}, []
        results.append(dict(app=entry["app"], repo=entry["repo"], commit=entry["commit"], bundle=entry["bundle"],
                            summary=s, notes=notes, problems=problems))
        if s:
            for key in ("versions", "hops", "inferred", "mapped_but_inferred", "refused_with", "refused_without", "mappings"):
                totals[key] = totals.get(key, 0) + s[key]
            for k, n in s["stores"].items():
                totals["stores " + k] = totals.get("stores " + k, 0) + n
            for k, n in s["mapping_models"].items():
                totals["mapping models " + k] = totals.get("mapping models " + k, 0) + n
            for k in ("files", "identical", "identical_without_comments", "refused", "omissions"):
                totals["mapping round trip " + k] = totals.get("mapping round trip " + k, 0) + s["mapping_round_trip"][k]
            fidelity = s["fidelity"]
            for key in ("compared", "identical", "binary"):
                totals["contents " + key] = totals.get("contents " + key, 0) + fidelity[key]
            for kind, n in fidelity["differences"].items():
                differences[kind] = differences.get(kind, 0) + n
            if not options.json:
                stores = ", ".join(f"{n} {k}" for k, n in sorted(s["stores"].items()))
                exported = f"{fidelity['identical']}/{fidelity['compared']}"  # contents equal to their export
                print(f"{entry['app']:<32} {s['versions']:>4} {s['hops']:>4} {s['inferred']:>5} {s['mapped_but_inferred']:>7} "
                      f"{s['refused_with']:>7} {s['refused_without']:>7} {s['mappings']:>4}  {s['round_trip']:<10}  {exported:>7}  {stores}")
                paths = s["paths"]
                print(f"    paths to the current version: {paths['planned']} planned "
                      + "".join(f", {paths[k]} starting {k}" for k in ("mappingFile", "inferredChain", "directInferred") if paths.get(k))
                      + f", {paths['refused']} refused; {paths['differences']} chain/direct differences")
                mm = s["mapping_models"]
                if mm["imported"] or mm["skipped"]:
                    print(f"    mapping models: {mm['imported']} imported ({mm['entity_mappings']} entity mappings, {mm['policies']} policies, "
                          f"{mm['expressions']} expressions decoded, {mm['not_carried']} not carried), {mm['skipped']} not imported; "
                          f"{mm['hops_mapped']} hops with the app's mapping model, plan accepts {mm['hops_plan_accepts']}")
                trip = s["mapping_round_trip"]
                if trip["files"]:
                    print(f"    mapping files export → import: {trip['identical'] + trip['identical_without_comments']} of {trip['files']} "
                          f"give the same YAML ({trip['identical']} byte for byte, {trip['identical_without_comments']} but for comments), "
                          f"{trip['refused']} refused by export, {trip['omissions']} omissions")
                    for difference in trip["differences"]:
                        print(f"      {difference}")
                if options.verbose:
                    for hop, kinds in s["refused"].items():
                        print(f"    refused {hop}: {', '.join(kinds)}")
                    for hop, name in s["inferred_with_mapping"].items():
                        print(f"    inferred {hop}, the app ships {name}")
                    if s["fleet"]:
                        print(f"    fleet apply --verify: {', '.join(f'{n} {k}' for k, n in sorted(s['fleet'].items()))}")
                    for note in notes:
                        print(f"    note: {note}")
        if not options.json:
            for problem in problems:
                print(f"  FAIL {entry['app']}: {problem}")
        failed += bool(problems)
    if options.json:
        json.dump(dict(results=results, totals=totals, differences=differences), sys.stdout, indent=2)
        print()
    else:
        print(f"\n{len(results)} histories: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in totals.items()))
        if differences:
            print("export(import(contents)) differs from contents: "
                  + ", ".join(f"{kind} ×{n}" for kind, n in sorted(differences.items(), key=lambda x: -x[1])))
        print("every history as expected" if not failed else f"{failed} histories not as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
