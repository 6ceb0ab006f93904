#!/usr/bin/env python3
"""Fails when a number or table the documentation quotes is not the code's.

Run by `make test` (and so by CI), from the package root:
    python3 Scripts/doc_numbers.py

What it holds to the code:
- every limit a document quotes (LIMITS below: the phrase in the document, the
  constant in the source), each phrase found and each number equal;
- Docs/PublicAPI.md's "Size" table to Docs/PublicAPI.txt, module by module;
- Docs/Architecture.md's module table to Package.swift (`swift package
  dump-package`): every target but the tests, with exactly its dependencies;
- the exit codes: their one table is the README's (a Swift test holds it to
  `Outcome.Kind`); no other document has a table of them.
A number a document quotes that no check covers is best removed or added here.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def number(text):
    return int(text.replace(",", "").replace("_", ""))


# (document, phrase with a group `n`, source, constant with a group `n`, source value → documented value)
LIMITS = [
    ("Docs/Migrations.md", r"audits tables up to (?P<n>[\d,]+) rows \(the default count limit",
     "Sources/ModelMigration/Planning/RowCounter.swift", r"planningCountLimit: Int64 = (?P<n>[\d_]+)", None),
    ("Docs/Migrations.md", r"counted exactly in tables up to (?P<n>[\d,]+) rows",
     "Sources/ModelMigration/Planning/RowCounter.swift", r"planningCountLimit: Int64 = (?P<n>[\d_]+)", None),
    ("Docs/PublicAPI.md", r"up to the count limit, (?P<n>[\d,]+) rows",
     "Sources/ModelMigration/Planning/RowCounter.swift", r"planningCountLimit: Int64 = (?P<n>[\d_]+)", None),
    ("Docs/ModelFormat.md", r"more than (?P<n>[\d,]+) columns in one",
     "Sources/DataModel/Validation/LayoutValidator.swift", r"maximumColumns = (?P<n>[\d_]+)", None),
    ("Docs/ModelFormat.md", r"files over (?P<n>\d+) MiB",
     "Sources/DataModel/YAML/YAMLLoader.swift", r"maximumFileSize = (?P<n>\d+) \* 1024 \* 1024", None),
    ("Docs/ModelFormat.md", r"nesting deeper than (?P<n>\d+) levels",
     "Sources/DataModel/YAML/YAMLLoader.swift", r"maximumDepth = (?P<n>\d+)", None),
    ("Docs/ModelFormat.md", r"alias expansion beyond (?P<n>[\d,]+) nodes",
     "Sources/DataModel/YAML/YAMLLoader.swift", r"maximumNodeCount = (?P<n>[\d_]+)", None),
    ("Docs/Objects.md", r"temporary table of SQLite's \(past (?P<n>[\d,]+) of them",
     "Sources/SQLiteStore/Objects/DeferredReferences.swift", r"memoryLimit = (?P<n>\d+)", None),
    ("Docs/Objects.md", r"their line, past (?P<n>[\d,]+)\)",
     "Sources/SQLiteStore/Objects/ProvisionalTargets.swift", r"defaultMemoryLimit = 1 << (?P<n>\d+)", lambda n: 1 << n),
    ("Docs/Objects.md", r"a cache of at most (?P<n>[\d,]+) entries",
     "Sources/SQLiteStore/Objects/ObjectBatch.swift", r"defaultCacheLimit = 1 << (?P<n>\d+)", lambda n: 1 << n),
    ("Docs/Objects.md", r"page cache is (?P<n>\d+) MB",
     "Sources/SQLiteStore/Objects/ObjectAccess+Inserting.swift", r"batchCacheKiB = (?P<n>\d+)", lambda n: n // 1024),
    ("Docs/Predicates.md", r"\*\*Nesting: (?P<n>\d+) levels\*\*",
     "Sources/Predicates/Syntax/PredicateParser.swift", r"static let maximumDepth = (?P<n>\d+)", None),
    ("Docs/Predicates.md", r"\*\*SQL nesting: (?P<n>\d+) units\*\*",
     "Sources/Predicates/Syntax/PredicateParser.swift", r"static let maximumNesting = (?P<n>\d+)", None),
    ("Docs/Predicates.md", r"\*\*Values: (?P<n>[\d,]+)\*\*",
     "Sources/Predicates/Syntax/PredicateParser.swift", r"static let maximumValues = (?P<n>[\d_]+)", None),
]


def check_limits(problems):
    for doc, phrase, source, constant, convert in LIMITS:
        code = re.search(constant, read(source))
        if not code:
            problems.append(f"{source}: no constant matching {constant!r} (quoted by {doc})")
            continue
        value = number(code.group("n"))
        value = convert(value) if convert else value
        quoted = [number(m.group("n")) for m in re.finditer(phrase, read(doc))]
        if not quoted:
            problems.append(f"{doc}: no phrase matching {phrase!r} (the limit in {source} is {value})")
        for n in quoted:
            if n != value:
                problems.append(f"{doc}: says {n} where {source} says {value} ({phrase!r})")


def table_rows(text, heading):
    """The rows of the first table under `heading`, as lists of cells."""
    section = text.split(heading + "\n", 1)
    if len(section) < 2:
        return None
    rows = []
    for line in section[1].splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[2:]


def check_public_api(problems):
    counts = {}
    for line in read("Docs/PublicAPI.txt").splitlines():
        if line and not line.startswith("#"):
            module = line.split("\t", 1)[0]
            counts[module] = counts.get(module, 0) + 1
    rows = table_rows(read("Docs/PublicAPI.md"), "## Size")
    if rows is None:
        problems.append("Docs/PublicAPI.md: no \"## Size\" table")
        return
    documented = {row[0]: number(row[1]) for row in rows}
    expected = dict(counts, total=sum(counts.values()))
    if documented != expected:
        problems.append(f"Docs/PublicAPI.md \"Size\": says {documented}, Docs/PublicAPI.txt has {expected}")


def check_modules(problems):
    try:
        dump = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        problems.append(f"swift package dump-package: {error}")
        return
    package = json.loads(dump.stdout)
    names = {"ArgumentParser": "swift-argument-parser"}
    targets = {}
    for target in package["targets"]:
        if target["type"] == "test":
            continue
        dependencies = set()
        for dependency in target["dependencies"]:
            name = list(dependency.values())[0][0]
            dependencies.add(names.get(name, name))
        targets[target["name"]] = dependencies
    rows = table_rows(read("Docs/Architecture.md"), "## Modules")
    documented = {}
    for row in rows or []:
        depends = set() if row[2] == "—" else {d.strip() for d in row[2].split(",")}
        for name in re.findall(r"`([A-Za-z]+)`", row[0]):
            documented[name] = depends
    for name in sorted(set(targets) | set(documented)):
        if name not in documented:
            problems.append(f"Docs/Architecture.md \"Modules\": no row for target {name}")
        elif name not in targets:
            problems.append(f"Docs/Architecture.md \"Modules\": {name} is not a target of Package.swift")
        elif documented[name] != targets[name]:
            problems.append(
                f"Docs/Architecture.md \"Modules\": {name} depends on {sorted(targets[name])}, the table says {sorted(documented[name])}")


def check_exit_codes(problems):
    docs = ["README.md"] + ["Docs/" + name for name in sorted(os.listdir(os.path.join(ROOT, "Docs"))) if name.endswith(".md")]
    for doc in docs:
        for number_line, line in enumerate(read(doc).splitlines(), 1):
            if re.match(r"\| `(current|usage|failed|no-path)` \| \d", line) or re.match(r"\| (code|exit|exit code) \| ", line):
                if doc != "README.md":
                    problems.append(f"{doc}:{number_line}: a table of exit codes; their one home is the README's \"Exit codes\"")


def main():
    problems = []
    check_limits(problems)
    check_public_api(problems)
    check_modules(problems)
    check_exit_codes(problems)
    for problem in problems:
        print(f"doc numbers: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"doc numbers: {len(LIMITS)} limits, the public API size, the module table and the exit codes match the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
