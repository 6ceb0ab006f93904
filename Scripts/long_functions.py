#!/usr/bin/env python3
"""No Swift function over 80 lines without a stated reason.

Lists every function, initializer, deinitializer, subscript, accessor, computed
property and closure-initialized property in Sources/, Migrations/ and Benchmarks/
whose body (from `{` to the matching `}`, both lines counted) is over the limit,
as FILE:LINE: NAME N lines. A long body is allowed when a comment starting
`// Long:` gives the reason, either on the line right above the declaration's doc
comment and attributes or on the first line of its body (the `{` line or the one
after it). A body named in the allowlist (Scripts/long_functions_allowlist.txt, one
`PATH NAME` a line, `#` comments) is tolerated while it is split: the list only
shrinks, so an entry whose body is no longer over the limit (or gone) is an error
too. Exits 1 when an unexplained, unlisted long body or a stale entry is found, 0
otherwise.

Braces inside string literals (including multi-line `\"\"\"` and raw `#"…"#`
strings, with `\\(…)` interpolations) and comments (`//`, nested `/* */`) are
ignored. Usage: python3 Scripts/long_functions.py [--limit N] [--all] [--allowlist FILE] [--self-test] [PATH...]
(--all also lists the explained and listed ones; PATHs default to the three folders,
and with PATHs given, entries outside them are not checked for staleness).
"""

import argparse
import os
import re
import sys

FOLDERS = ["Sources", "Migrations", "Benchmarks"]
ALLOWLIST = "Scripts/long_functions_allowlist.txt"
SKIPPED_DIRS = {".build", ".swiftpm"}


def regex_end(src, i):
    """The index after a regex literal starting at `i` (`/…/` where an operand may
    start, on one line; `#/…/#` extended), or None when `i` starts none."""
    m = re.compile(r"(#+)/").match(src, i)
    if m:
        close = "/" + m.group(1)
        end = src.find(close, m.end())
        return None if end < 0 else end + len(close)
    if src[i] != "/" or i + 1 >= len(src) or src[i + 1] in " \t\n/*=":
        return None
    before = src[:i].rstrip(" \t")
    if before and before[-1] not in "(,=:[{!&|?;" and not before.endswith("return"):
        return None
    j, in_class = i + 1, False
    while j < len(src) and src[j] != "\n":
        if src[j] == "\\":
            j += 2
            continue
        if src[j] == "[":
            in_class = True
        elif src[j] == "]":
            in_class = False
        elif src[j] == "/" and not in_class:
            return j + 1
        j += 1
    return None


def code_only(src):
    """The source with string contents and comments blanked (newlines kept), so
    every brace, parenthesis and keyword left is code."""
    out = list(src)
    n = len(src)
    i = 0
    # Frames: ("code", paren depth) for an interpolation, ("str", hashes, multiline).
    stack = []

    def blank(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        top = stack[-1] if stack else None
        c = src[i]
        if top is None or top[0] == "code":
            if src.startswith("//", i):
                end = src.find("\n", i)
                end = n if end < 0 else end
                blank(i, end)
                i = end
            elif src.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if src.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif src.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
            elif (c == "/" or c == "#") and regex_end(src, i) is not None:
                end = regex_end(src, i)
                blank(i, end)
                i = end
            elif c == "#" or c == '"':
                m = re.compile(r'(#*)("""|")').match(src, i)
                if m is None or (c == "#" and not m.group(1)):
                    i += 1
                    continue
                stack.append(("str", len(m.group(1)), m.group(2) == '"""'))
                i = m.end()
            elif top is not None and c == "(":
                stack[-1] = ("code", top[1] + 1)
                i += 1
            elif top is not None and c == ")":
                if top[1] == 1:
                    stack.pop()
                    blank(i, i + 1)
                else:
                    stack[-1] = ("code", top[1] - 1)
                i += 1
            else:
                i += 1
        else:
            _, hashes, multi = top
            fence = ('"""' if multi else '"') + "#" * hashes
            escape = "\\" + "#" * hashes
            if src.startswith(escape, i):
                j = i + len(escape)
                if j < n and src[j] == "(":
                    blank(i, j + 1)
                    stack.append(("code", 1))
                    i = j + 1
                else:
                    blank(i, j + 1)
                    i = j + 1
            elif src.startswith(fence, i):
                stack.pop()
                i += len(fence)
            else:
                blank(i, i + 1)
                i += 1
    return "".join(out)


DECLARATION = re.compile(
    r"\b(?:"
    r"func\s+(?P<func>[A-Za-z_][A-Za-z0-9_]*|[^\s(<]+)"
    r"|(?P<init>init[?!]?)(?=\s*[(<])"
    r"|(?P<deinit>deinit)\b"
    r"|(?P<subscript>subscript)(?=\s*[(<])"
    r"|(?<![.\w])(?P<accessor>get|set|willSet|didSet|_read|_modify)(?=\s*(?:\(\w+\)\s*)?(?:async\s*)?(?:throws\s*)?\{)"
    r"|(?:var)\s+(?P<computed>[A-Za-z_][A-Za-z0-9_]*)\s*:[^=\n{]*(?=\{)"
    r"|(?:let|var)\s+(?P<closure>[A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=\n{]*)?=\s*(?=\{)"
    r")"
)
TYPE = re.compile(r"\b(?:struct|class|enum|extension|actor|protocol)\s+([A-Za-z_][A-Za-z0-9_.]*)")
HEADER_END = re.compile(r"\b(?:func|var|let|init|case|typealias|associatedtype|subscript|struct|class|enum|protocol|extension|actor|deinit)\b")


def body_open(code, start):
    """Index of the `{` opening the body of a declaration whose header starts at
    `start`, or None for a declaration without body (a protocol requirement)."""
    depth = 0
    header = []
    for j in range(start, len(code)):
        c = code[j]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0:
            if c == "{":
                return j
            if c in "};":
                return None
            header.append(c)
            if c == "\n" and HEADER_END.search("".join(header)):
                return None
    return None


def matching_close(code, open_index):
    depth = 0
    for j in range(open_index, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return None


def explained(lines, decl_line, open_line):
    """Whether a `// Long:` comment gives the reason (1-based line numbers)."""
    for number in (open_line, open_line + 1):
        if number <= len(lines) and "// Long:" in lines[number - 1]:
            return True
    k = decl_line - 1  # the line above the declaration
    in_block_doc = False
    while k >= 1:
        text = lines[k - 1].strip()
        if in_block_doc:
            in_block_doc = not text.startswith("/**")
            k -= 1
        elif text.startswith("///") or text.startswith("@"):
            k -= 1
        elif text.endswith("*/") and "/**" in "".join(lines[max(0, k - 40):k]):
            in_block_doc = not text.startswith("/**")
            k -= 1
        else:
            break
    return k >= 1 and lines[k - 1].strip().startswith("// Long:")


def functions(path):
    """(line, name, length, explained) for every function-like body in a file."""
    with open(path, encoding="utf-8") as handle:
        src = handle.read()
    code = code_only(src)
    lines = src.split("\n")
    line_of = [0] * (len(code) + 1)
    number = 1
    for index, char in enumerate(code):
        line_of[index] = number
        if char == "\n":
            number += 1
    line_of[len(code)] = number

    types = []
    for m in TYPE.finditer(code):
        opening = body_open(code, m.end())
        closing = matching_close(code, opening) if opening is not None else None
        if closing is not None:
            types.append((opening, closing, m.group(1)))

    found = []
    for m in DECLARATION.finditer(code):
        kind = m.lastgroup
        name = m.group(kind)
        if kind in ("computed", "closure", "accessor"):
            opening = code.index("{", m.end() - 1 if code[m.end() - 1] == "{" else m.end())
        else:
            opening = body_open(code, m.end())
        if opening is None:
            continue
        closing = matching_close(code, opening)
        if closing is None:
            continue
        owners = [t for t in types if t[0] < m.start() < t[1]]
        if owners:
            name = max(owners, key=lambda t: t[0])[2] + "." + name
        decl_line = line_of[m.start()]
        # The declaration begins at its first modifier, on the line of the keyword.
        open_line, close_line = line_of[opening], line_of[closing]
        length = close_line - open_line + 1
        found.append((decl_line, name, length, explained(lines, decl_line, open_line)))
    return found


def read_allowlist(path):
    """{(path, name): line number} from an allowlist file; a missing file is an empty list."""
    entries = {}
    if not os.path.exists(path):
        return entries
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            parts = text.split()
            if len(parts) != 2:
                raise SystemExit(f"{path}:{number}: expected `PATH NAME`, found {text!r}")
            entries[(parts[0], parts[1])] = number
    return entries


def judge(long_bodies, allowlist, checked):
    """Splits long bodies, each (path, line, name, length, explained), into
    (explained, listed, unexplained), and lists the allowlist entries under a
    checked path that name no long body: (stale)."""
    explained_, listed, unexplained = [], [], []
    for body in long_bodies:
        path, _, name, _, ok = body
        if ok:
            explained_.append(body)
        elif (path, name) in allowlist:
            listed.append(body)
        else:
            unexplained.append(body)
    present = {(body[0], body[2]) for body in long_bodies if not body[4]}
    stale = sorted(entry for entry in allowlist if entry not in present and checked(entry[0]))
    return explained_, listed, unexplained, stale


def self_test():
    """The scanner on the cases that trip a brace counter; exits 1 on a mismatch."""
    body = "\n".join(f"        _ = {k}" for k in range(3))
    cases = [
        # (source, limit, expected (line, name, length, explained) over the limit)
        ("func a() {\n" + body + "\n}\n", 4, [(1, "a", 5, False)]),
        ("func a() {\n" + body + "\n}\n", 5, []),
        # Braces in strings, raw strings, multi-line strings, interpolations and comments.
        ('func b() {\n    let s = "}}{"\n    let r = #"}"#\n    let m = """\n    }\n    """\n'
         '    let i = "\\(f("}"))"\n    // }\n    /* } /* } */ */\n}\n', 9, [(1, "b", 10, False)]),
        ("func r() {\n    _ = s.matches(of: /\\]\\(([^)\\s{]+)\\)/)\n    _ = #/ } /#\n    _ = a / b / c\n}\n", 4, [(1, "r", 5, False)]),
        # A reason above the doc comment and attributes, or on the body's first line.
        ("// Long: a table\n/// Doc.\n@inline(never)\nfunc c() {\n" + body + "\n}\n", 4, [(4, "c", 5, True)]),
        ("func d() { // Long: one switch\n" + body + "\n}\n", 4, [(1, "d", 5, True)]),
        ("func e() {\n    // Long: every case\n" + body + "\n}\n", 4, [(1, "e", 6, True)]),
        ("// Long: too far\n\nfunc f() {\n" + body + "\n}\n", 4, [(3, "f", 5, False)]),
        # Protocol requirements have no body; initializers, computed properties,
        # accessors and closure-initialized properties do; names carry their type.
        ("protocol P {\n    func g()\n    var h: Int { get }\n}\nstruct S {\n    init(x: Int) {\n" + body + "\n    }\n"
         "    var k: Int {\n" + body + "\n        return 1\n    }\n    let l = {\n" + body + "\n    }()\n}\n", 4,
         [(6, "S.init", 5, False), (11, "S.k", 6, False), (17, "S.l", 5, False)]),
    ]
    import tempfile
    failures = 0
    for number, (source, limit, expected) in enumerate(cases, 1):
        with tempfile.NamedTemporaryFile("w", suffix=".swift", delete=False) as handle:
            handle.write(source)
        found = [f for f in functions(handle.name) if f[2] > limit]
        os.unlink(handle.name)
        if found != expected:
            failures += 1
            print(f"self-test case {number}: expected {expected}, found {found}", file=sys.stderr)
    # The allowlist: a listed body passes, an unlisted one fails, an entry without
    # a long body (split, renamed or explained) is stale.
    bodies = [("A.swift", 1, "T.f", 90, False), ("A.swift", 9, "T.g", 90, False), ("B.swift", 1, "U.h", 90, True)]
    allow = {("A.swift", "T.f"): 1, ("A.swift", "T.gone"): 2, ("B.swift", "U.h"): 3, ("C.swift", "V.k"): 4}
    expected = ([bodies[2]], [bodies[0]], [bodies[1]], [("A.swift", "T.gone"), ("B.swift", "U.h")])
    outcome = judge(bodies, allow, lambda path: path != "C.swift")
    total = len(cases) + 1
    if outcome != expected:
        failures += 1
        print(f"self-test allowlist case: expected {expected}, found {outcome}", file=sys.stderr)
    print(f"long_functions self-test: {total - failures} of {total} cases pass")
    return 1 if failures else 0


def swift_files(paths):
    for root_path in paths:
        if os.path.isfile(root_path):
            yield root_path
            continue
        for root, dirs, files in os.walk(root_path):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".build"))
            for name in sorted(files):
                if name.endswith(".swift"):
                    yield os.path.join(root, name)


def main():
    parser = argparse.ArgumentParser(description="Lists Swift function bodies over the limit without a `// Long:` reason.")
    parser.add_argument("paths", nargs="*", help="files or folders (default: Sources Migrations Benchmarks)")
    parser.add_argument("--limit", type=int, default=80, help="longest body allowed without a reason (default 80 lines)")
    parser.add_argument("--all", action="store_true", help="also list the long bodies that give a reason")
    parser.add_argument("--allowlist", default=ALLOWLIST, help=f"bodies tolerated while they are split (default {ALLOWLIST})")
    parser.add_argument("--self-test", action="store_true", help="check the scanner on known cases and exit")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    paths = args.paths or [folder for folder in FOLDERS if os.path.isdir(folder)]

    allowlist = read_allowlist(args.allowlist)
    long_bodies = []
    for path in swift_files(paths):
        for line, name, length, ok in functions(path):
            if length > args.limit:
                long_bodies.append((path, line, name, length, ok))
    roots = [os.path.normpath(p) for p in paths]

    def checked(path):
        path = os.path.normpath(path)
        return any(path == root or path.startswith(root + os.sep) for root in roots)

    explained_, listed, unexplained, stale = judge(long_bodies, allowlist, checked)
    if args.all:
        for path, line, name, length, _ in explained_:
            print(f"{path}:{line}: {name} {length} lines (Long: reason given)")
        for path, line, name, length, _ in listed:
            print(f"{path}:{line}: {name} {length} lines (in {args.allowlist}, to be split)")
    for path, line, name, length, _ in unexplained:
        print(f"{path}:{line}: {name} {length} lines")
    for path, name in stale:
        print(f"{args.allowlist}:{allowlist[(path, name)]}: {path} {name} is no longer over {args.limit} lines"
              " without a reason: remove it from the list")
    summary = f"{len(explained_)} with a `// Long:` reason, {len(listed)} in {args.allowlist}"
    if unexplained or stale:
        print(f"long_functions: {len(unexplained)} body(ies) over {args.limit} lines without a `// Long:` reason"
              f" or an allowlist entry, {len(stale)} stale allowlist entry(ies) ({summary})", file=sys.stderr)
        return 1
    print(f"long_functions: no body over {args.limit} lines without a `// Long:` reason ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
