#!/usr/bin/env python3
"""No trap on a path that input or the environment can reach (make lint, CI).

Flags, in Sources, Migrations, Benchmarks and the deploy package's sources:
  - `try!` and `fatalError(`: a failure becomes a crash instead of an error;
  - Foundation's legacy FileHandle calls that trap on an I/O error (a full disk, a
    closed pipe, `ulimit -f`): `write(_:)` of Data, `readDataToEndOfFile()`,
    `readData(ofLength:)`, `availableData`, `seek(toFileOffset:)`, `seekToEndOfFile()`,
    `synchronizeFile()`, `closeFile()` -- use `write(contentsOf:)`, `readToEnd()`,
    `read(upToCount:)`, `seek(toOffset:)`, `seekToEnd()`, `synchronize()`, `close()`;
  - a force-unwrapped parse of text (`Int(text)!`, `Double(…)!`, `URL(string: …)!`,
    `UUID(uuidString: …)!`, `String(data: …)!`, `.data(using: …)!`): text comes from input.

A line may stay when it is a proven invariant: listed in Scripts/trap_lint_allowlist.txt
as `path: the line's code, stripped` followed by ` # ` and the reason. The list only shrinks.

    python3 Scripts/trap_lint.py            # exit 1 and one line per finding
    python3 Scripts/trap_lint.py --self-test
"""
import os
import re
import sys

ROOTS = ["Sources", "Migrations", "Benchmarks", "Examples/DeployPackage/Sources"]
ALLOWLIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trap_lint_allowlist.txt")
RULES = [
    (re.compile(r"\btry!"), "try! traps on any error: handle it or throw it"),
    (re.compile(r"\bfatalError\("), "fatalError traps: throw an error (a programmer's error is a precondition)"),
    (re.compile(r"\.write\(\s*Data\(|\.(standardError|standardOutput|fileHandleForWriting)\.write\((?!contentsOf:)"),
     "FileHandle.write(_:) traps on an I/O error: use try write(contentsOf:)"),
    (re.compile(r"\.readDataToEndOfFile\(\)"), "readDataToEndOfFile() traps on an I/O error: use try readToEnd()"),
    (re.compile(r"\.readData\(ofLength:"), "readData(ofLength:) traps on an I/O error: use try read(upToCount:)"),
    (re.compile(r"\.availableData\b"), "availableData traps on an I/O error: use try read(upToCount:)"),
    (re.compile(r"\.seek\(toFileOffset:"), "seek(toFileOffset:) traps on an I/O error: use try seek(toOffset:)"),
    (re.compile(r"\.seekToEndOfFile\(\)"), "seekToEndOfFile() traps on an I/O error: use try seekToEnd()"),
    (re.compile(r"\.synchronizeFile\(\)"), "synchronizeFile() traps on an I/O error: use try synchronize()"),
    (re.compile(r"\.closeFile\(\)"), "closeFile() traps on an I/O error: use try close()"),
    (re.compile(r"\b(U?Int(8|16|32|64)?|Double|Float|Decimal)\((?:[^()]|\([^()]*\))*\)!(?!=)"),
     "a force-unwrapped number parse traps on text that is not a number"),
    (re.compile(r"\b(URL\(string:|UUID\(uuidString:|String\(data:)(?:[^()]|\([^()]*\))*\)!(?!=)"),
     "a force-unwrapped parse traps on input that does not parse"),
    (re.compile(r"\.data\(using:(?:[^()]|\([^()]*\))*\)!(?!=)"), "a force-unwrapped encoding traps"),
]


def code_part(line):
    """The line without a trailing // comment (strings with // are rare here and kept)."""
    stripped = line.strip()
    if stripped.startswith("//") or stripped.startswith("///") or stripped.startswith("*"):
        return ""
    return line


def findings_in(path, text):
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = code_part(line)
        for pattern, reason in RULES:
            if pattern.search(code):
                found.append((path, number, code.strip(), reason))
                break
    return found


def load_allowlist():
    allowed = {}
    if not os.path.exists(ALLOWLIST):
        return allowed
    with open(ALLOWLIST, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            entry, _, reason = line.partition(" # ")
            path, _, code = entry.partition(": ")
            if not reason.strip():
                sys.exit(f"trap_lint: {ALLOWLIST}: an entry without a reason: {line}")
            allowed[(path.strip(), code.strip())] = reason.strip()
    return allowed


def self_test():
    bad = [
        "let x = try! decode()", "fatalError(\"no\")", "handle.write(Data(text.utf8))",
        "FileHandle.standardError.write(line)", "let d = pipe.fileHandleForReading.readDataToEndOfFile()",
        "h.seek(toFileOffset: 3)", "let n = Int(text)!", "let n = Double(String(x))!", "let u = URL(string: s)!",
        "let d = s.data(using: .utf8)!", "h.closeFile()",
    ]
    good = [
        "try handle.write(contentsOf: bytes)", "let n = Int(text) ?? 0", "if Int(a)! == 3 {}".replace("!", "") ,
        "// try! in a comment", "let ok = x != y", "try h.seek(toOffset: 3)", "try text.write(toFile: p, atomically: true, encoding: .utf8)",
        "if n != Int(b) {}",
    ]
    for line in bad:
        assert findings_in("x.swift", line), f"not flagged: {line}"
    for line in good:
        assert not findings_in("x.swift", line), f"flagged: {line}"
    print("trap_lint: self-test passed")


def main():
    if "--self-test" in sys.argv:
        self_test()
        return 0
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    allowed = load_allowlist()
    used = set()
    problems = []
    for top in ROOTS:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                full = os.path.join(folder, name)
                relative = os.path.relpath(full, root)
                with open(full, encoding="utf-8") as f:
                    for path, number, code, reason in findings_in(relative, f.read()):
                        if (path, code) in allowed:
                            used.add((path, code))
                            continue
                        problems.append(f"{path}:{number}: {reason}\n    {code}")
    for key in sorted(set(allowed) - used):
        problems.append(f"{ALLOWLIST}: no longer needed (remove it): {key[0]}: {key[1]}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"trap_lint: {len(problems)} finding(s)")
        return 1
    print(f"trap_lint: no trap reachable by input ({len(used)} proven invariants allowed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
