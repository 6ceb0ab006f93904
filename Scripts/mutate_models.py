#!/usr/bin/env python3
"""Mutated models for `migrate`: random edits of real model files, hundreds of times.

    python3 Scripts/mutate_models.py [N] [--seed S] [--migrate PATH]

Each trial copies the bundled example's versions (Models/Contacts) and
Examples/Library's into a temporary folder, applies 1-6 random mutations to one
or more version files (characters deleted, inserted or replaced with YAML-significant
ones, lines duplicated, swapped, re-indented or cut, tokens replaced with huge numbers,
NUL, odd Unicode, deep nesting, anchors and aliases, version numbers changed or files
renamed), then runs `migrate validate`, `migrate compile` and, when the models are
valid, `migrate create` and `migrate status` on a new store. A trial fails on a crash
(exit >= 128, a signal, "Fatal error" or a Swift runtime trap on stderr), a hang (20 s
per command), an exit code the README does not give the command, or a refusal without
a file:line:column location. Last line: `N passed, M failed` (exit 1 if any failed).
"""
import argparse, os, random, re, shutil, subprocess, sys, tempfile

SOURCES = ["Models/Contacts", "Examples/Library/Models/Library"]
SIGNIFICANT = list(":{}[],-#&*!|>'\"%@`?\t ") + ["\n", "  ", "- ", ": ", "{ ", "[ "]
TOKENS = ["9223372036854775807", "99999999999999999999999", "-1", "0", "1e308", "nan", "~", "null", "true",
          "\u0000", "é", "\u202e", "😀", "Ω" * 300, "x" * 5000, "[" * 300 + "]" * 300, "&a [1]", "*a", "<<: *a",
          "integer16", "string?", "{ type: integer64, default: 99999999999999999999 }", "Person", "renamedFrom: Nope"]


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.randrange(9)
    if kind == 0 and text:
        i = rng.randrange(len(text)); return text[:i] + text[i + 1:]
    if kind == 1:
        i = rng.randrange(len(text) + 1); return text[:i] + rng.choice(SIGNIFICANT) + text[i:]
    if kind == 2 and lines:
        i = rng.randrange(len(lines)); lines.insert(i, lines[i]); return "\n".join(lines)
    if kind == 3 and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines)); lines[i], lines[j] = lines[j], lines[i]; return "\n".join(lines)
    if kind == 4 and lines:
        i = rng.randrange(len(lines)); lines[i] = " " * rng.choice([0, 1, 3, 5, 8]) + lines[i].lstrip(); return "\n".join(lines)
    if kind == 5:
        return text[: rng.randrange(len(text) + 1)]
    if kind == 6:
        words = list(re.finditer(r"[A-Za-z0-9_?]+", text))
        if words:
            m = rng.choice(words); return text[: m.start()] + rng.choice(TOKENS) + text[m.end():]
    if kind == 7 and lines:
        i = rng.randrange(len(lines)); lines.insert(i, "  " * rng.randrange(1, 200) + "x: y"); return "\n".join(lines)
    return re.sub(r"version: \d+", "version: " + rng.choice(["0", "2", "7", "-3", "9223372036854775807"]), text, count=1)


def run(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=20)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "hang (20 s)"


def trial(n, seed, migrate, root):
    rng = random.Random(f"{seed}/{n}")
    work = tempfile.mkdtemp(prefix=f"mutate-{seed}-{n}-")
    source = os.path.join(root, rng.choice(SOURCES))
    model = os.path.basename(source)
    shutil.copytree(source, os.path.join(work, "Models", model))
    folder = os.path.join(work, "Models", model)
    files = sorted(f for f in os.listdir(folder) if f.endswith(".yaml"))
    for _ in range(rng.randrange(1, 7)):
        name = rng.choice(files)
        path = os.path.join(folder, name)
        if rng.randrange(12) == 0:
            os.rename(path, os.path.join(folder, rng.choice(["0.yaml", "99.yaml", "9223372036854775808.yaml", "x.yaml"])))
            files = sorted(f for f in os.listdir(folder) if f.endswith(".yaml")) or files
            continue
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
        open(path, "w", encoding="utf-8", errors="surrogateescape").write(mutate(text, rng))
    problems = []
    for command, allowed in ((["validate"], {0, 1}), (["compile", "-o", "out.json"], {0, 1})):
        code, out, err = run([migrate] + command, work)
        if code is None or code not in allowed or code >= 128 or re.search(r"Fatal error|arithmetic overflow|Illegal instruction|Segmentation", err):
            problems.append(f"{command[0]} exited {code}: {err.strip()[:300]}")
        elif code == 1 and command[0] == "validate" and "error" in err and not re.search(r":\d+:\d+: error|\.yaml: |missing version|error: ", err):
            problems.append(f"validate refused without a location: {err.strip()[:300]}")
        if command[0] == "validate" and code == 0:
            for extra, ok in ((["create", "s.sqlite"], {0}), (["status", "s.sqlite"], {0})):
                c, o, e = run([migrate] + extra, work)
                if c is None or c not in ok:
                    problems.append(f"{extra[0]} on a valid model exited {c}: {e.strip()[:300]}")
    if problems:
        print(f"FAIL seed={seed} trial={n} dir={work}: " + " | ".join(problems))
        return False
    shutil.rmtree(work, ignore_errors=True)
    return True


def main():
    parser = argparse.ArgumentParser(description="Mutated models for migrate")
    parser.add_argument("trials", nargs="?", type=int, default=100)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--migrate", default=".build/debug/migrate")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    migrate = os.path.abspath(args.migrate)
    passed = failed = 0
    for n in range(1, args.trials + 1):
        if trial(n, args.seed, migrate, root):
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
