#!/usr/bin/env python3
"""Randomized differential test of `migrate fetch --where` against a reference interpreter.

    python3 Scripts/predicate_diff.py N [--seed S] [--migrate PATH] [--keep DIR]

Builds a small model and store with the CLI (`migrate create`, `migrate load` with
JSON Lines): items with optional strings (empty, accented, case variants,
non-Latin), integers, doubles, booleans, dates, and a to-many relationship to
tags. Then N times: a random predicate (string operators with [c]/[d]/[cd],
MATCHES and LIKE patterns, comparisons with nil, BETWEEN, IN, arithmetic,
ANY/ALL/NONE, @count/@sum/@max, NOT/AND/OR nesting) is run by
`migrate fetch STORE Item --where P --json` and by predicate_reference.py, which
reads the store with sqlite3 and evaluates the predicate object by object.
Prints every difference (the predicate, both key sets) and exits 1 if there is any.
The same seed gives the same store and predicates.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import predicate_reference  # noqa: E402

MODEL = """model: Diff
version: 1
entities:
  Item:
    attributes:
      name: string?
      label: string?
      n: integer32?
      x: double?
      flag: boolean?
      day: date?
    relationships:
      tags: { destination: Tag, toMany: true, inverse: item, deleteRule: cascade }
  Tag:
    attributes:
      word: string?
      weight: integer32?
    relationships:
      item: { destination: Item, inverse: tags, optional: true }
"""

# Strings whose [c] and [d] foldings Python and Foundation agree on (no ß, İ, ﬁ,
# final sigma, no characters without a canonical decomposition such as ø).
WORDS = ["", "a", "ab", "Ab", "AB", "abc", "b", "é", "É", "e", "E", "café", "CAFÉ", "cafe", "Cafe", "Çelik", "celik",
         "CELIK", "12", "12-34", "1234", "a-b", "x y", "ñandú", "NANDU", "Ωmega", "ωmega", "naïve", "ab ab", "ABC"]
# An empty pattern is no regular expression for ICU (a literal '' is refused when checked).
PATTERNS = ["a|ab", "ab|a", "[0-9]+|[0-9]+-[0-9]+", ".*", "é.*", "(ab)*", "[a-zé]+", "a?b", ".+ .+", "caf(e|é)",
            ".", "x*", "AB|ab", "[0-9]*", "(a|ab)(c|bcd)?", "e|é|E", "[^ ]+", "\\\\d+(-\\\\d+)?", "ω.*|Ω.*"]
LIKES = ["*", "", "a*", "*b", "?", "a?", "*é*", "caf?", "*-*", "AB*", "??", "*a*b*", "c?f*"]
DATES = ["2020-01-01T00:00:00Z", "2024-06-30T12:00:00Z", "2026-01-01T00:00:00Z", "2001-01-01T00:00:00Z"]
STRING_OPERATORS = ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "<", ">="]
NUMBER_OPERATORS = ["==", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN"]
OPTIONS = ["", "", "[c]", "[d]", "[cd]"]


def quote(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def maybe(rng, values, none=0.2):
    return None if rng.random() < none else rng.choice(values)


def make_data(rng, items=24):
    lines, tags, tag_pk = [], [], 0
    for pk in range(1, items + 1):
        day = maybe(rng, DATES)
        lines.append({"_pk": pk, "name": maybe(rng, WORDS), "label": maybe(rng, WORDS), "n": maybe(rng, [-3, 0, 1, 2, 5, 100]),
                      "x": maybe(rng, [0.0, 1.5, -2.0, 2.25, 10.0, 5.0]), "flag": maybe(rng, [True, False]), "day": day})
        for _ in range(rng.choice([0, 0, 1, 2, 3])):
            tag_pk += 1
            tags.append({"_pk": tag_pk, "word": maybe(rng, WORDS), "weight": maybe(rng, [0, 1, 2, 7, -1]), "item": pk})
    return lines, tags


def string_literal(rng, op):
    if op == "MATCHES":
        return quote(rng.choice(PATTERNS))
    if op == "LIKE":
        return quote(rng.choice(LIKES))
    return quote(rng.choice(WORDS))


def string_comparison(rng, key, row_keys=True):
    op = rng.choice(STRING_OPERATORS)
    options = rng.choice(OPTIONS) if op not in ("<", ">=") else ""
    if op == "IN":
        items = [quote(rng.choice(WORDS)) for _ in range(rng.randint(0, 3))]
        return "%s IN%s {%s}" % (key, options, ", ".join(items))
    if op in ("==", "!=") and rng.random() < 0.15:
        return "%s %s nil" % (key, op)
    if op not in ("LIKE", "MATCHES") and row_keys and rng.random() < 0.2:
        return "%s %s%s %s" % (key, op, options, "label" if key == "name" else "name")
    return "%s %s%s %s" % (key, op, options, string_literal(rng, op))


def number(rng):
    return rng.choice(["0", "1", "2", "-3", "5", "1.5", "2.25", "100", "-2"])


def number_comparison(rng, key, row_keys=True):
    op = rng.choice(NUMBER_OPERATORS)
    left = key
    if row_keys and rng.random() < 0.25:
        left = rng.choice(["%s + 1" % key, "%s * 2" % key, "%s - n" % key, "%s / 4" % key, "-%s" % key, "%s + x" % key])
    if op == "BETWEEN":
        low, high = sorted([float(number(rng)), float(number(rng))])
        return "%s BETWEEN {%s, %s}" % (left, low, high)
    if op == "IN":
        return "%s IN {%s}" % (left, ", ".join(number(rng) for _ in range(rng.randint(0, 3))))
    if op in ("==", "!=") and rng.random() < 0.15:
        return "%s %s nil" % (key, op)
    return "%s %s %s" % (left, op, rng.choice([number(rng), number(rng)] + (["n", "x"] if row_keys else [])))


def atom(rng):
    kind = rng.randrange(10)
    if kind < 3:
        return string_comparison(rng, rng.choice(["name", "label"]))
    if kind < 5:
        return number_comparison(rng, rng.choice(["n", "x"]))
    if kind == 5:
        return "flag %s %s" % (rng.choice(["==", "!="]), rng.choice(["YES", "NO", "nil", "1", "0"]))
    if kind == 6:
        if rng.random() < 0.3:
            return "day %s nil" % rng.choice(["==", "!="])
        if rng.random() < 0.3:
            low, high = sorted(rng.sample(DATES, 2))
            return "day BETWEEN {CAST('%s', 'NSDate'), CAST('%s', 'NSDate')}" % (low, high)
        return "day %s CAST('%s', 'NSDate')" % (rng.choice(NUMBER_OPERATORS[:6]), rng.choice(DATES))
    if kind == 7:
        quantifier = rng.choice(["ANY", "ALL", "NONE", "SOME"])
        if rng.random() < 0.6:
            return quantifier + " " + string_comparison(rng, "tags.word", row_keys=False)
        return quantifier + " " + number_comparison(rng, "tags.weight", row_keys=False)
    aggregate = rng.choice(["tags.@count", "tags.@count", "tags.@sum.weight", "tags.@max.weight", "tags.@min.weight"])
    return "%s %s %s" % (aggregate, rng.choice(NUMBER_OPERATORS[:6]), rng.choice(["0", "1", "2", "3", "n"]))


def predicate(rng, depth=0):
    choice = rng.randrange(8) if depth < 3 else 0
    if choice < 4:
        return atom(rng)
    if choice == 4:
        return "NOT (%s)" % predicate(rng, depth + 1)
    if choice == 5:
        return "(%s) AND (%s)" % (predicate(rng, depth + 1), predicate(rng, depth + 1))
    if choice == 6:
        return "%s OR %s" % (predicate(rng, depth + 1), predicate(rng, depth + 1))
    return rng.choice(["TRUEPREDICATE", "FALSEPREDICATE", "!(%s)" % atom(rng)])


def run(migrate, arguments, cwd):
    return subprocess.run([migrate] + arguments, cwd=cwd, capture_output=True, text=True, timeout=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trials", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--migrate", default=".build/debug/migrate")
    parser.add_argument("--keep", help="build the store in this folder and keep it")
    args = parser.parse_args()
    migrate = os.path.abspath(args.migrate)
    rng = random.Random(args.seed)

    folder = args.keep or tempfile.mkdtemp(prefix="predicate-diff-")
    os.makedirs(os.path.join(folder, "Models", "Diff"), exist_ok=True)
    try:
        with open(os.path.join(folder, "Models", "Diff", "1.yaml"), "w") as f:
            f.write(MODEL)
        items, tags = make_data(rng)
        for name, rows in (("items.jsonl", items), ("tags.jsonl", tags)):
            with open(os.path.join(folder, name), "w") as f:
                f.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        for command in (["create", "diff.sqlite", "--force"], ["load", "diff.sqlite", "Item", "items.jsonl"],
                        ["load", "diff.sqlite", "Tag", "tags.jsonl"]):
            result = run(migrate, command, folder)
            if result.returncode != 0:
                print("setup failed: migrate %s: %s" % (" ".join(command), result.stderr), file=sys.stderr)
                return 2
        store = predicate_reference.Store(os.path.join(folder, "diff.sqlite"), "Item", {"tags": ("Tag", "item")})

        differences = 0
        for trial in range(args.trials):
            text = predicate(rng)
            expected = store.matching(text)
            counting = trial % 5 == 4
            arguments = ["fetch", "diff.sqlite", "Item", "--where=" + text, "--json"]
            result = run(migrate, arguments + (["--count"] if counting else ["--properties", "name"]), folder)
            if result.returncode != 0:
                actual = "exit %d: %s" % (result.returncode, (result.stderr + result.stdout).strip())
            elif counting:
                actual = json.loads(result.stdout)["count"]
                expected = len(expected)
            else:
                actual = [json.loads(line)["_pk"] for line in result.stdout.splitlines() if line.strip()]
            if actual != expected:
                differences += 1
                print("DIFFERENCE %d: %s\n  migrate:   %s\n  reference: %s" % (trial, text, actual, expected))
        print("%d trials (seed %d), %d differences" % (args.trials, args.seed, differences))
        return 1 if differences else 0
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
