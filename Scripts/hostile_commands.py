#!/usr/bin/env python3
"""Hostile inputs and environments for the writing and reading commands of `migrate`.

    python3 Scripts/hostile_commands.py [N] [--seed S] [--start K] [--migrate PATH] [--family F[,F]] [--keep]

N trials (default 40), dealt in turn to the families (all of them unless --family); trial K draws from
random.Random("S/K"), so `hostile_commands.py 1 --seed S --start K --family F` replays one. Self-contained:
Python 3, bash, setpriv (util-linux) and the `migrate` under test. A failed trial prints one line (seed,
trial, family, what failed, the command, its exit code and first stderr lines) and keeps its folder
(FAILURE.txt). Last lines: a summary per family, then `N passed, M failed` (exit 1 if any failed).

Each trial makes its own folder with a small random model, Models/<Name>/1.yaml and 2.yaml:
  Item (attributes of random types, optional or required, some with defaults, min/max, maybe a
  uniqueness constraint on `name`), maybe a subentity SpecialItem, Part with a to-one `item` (required
  or not) whose inverse `Item.parts` has a random delete rule (cascade, nullify, deny) and maybe a
  minCount, Tag with a many-to-many to Item. Version 2 drops an Item attribute and adds one, so `apply`
  rewrites Item's table; a mapping file Migrations/<Name>/1-to-2.yaml doubles Item.qty. Stores are made
  with `migrate create` and `migrate load`, and made large (for signals) by copying rows in SQL.

Families:
  requests        6-12 random update / delete / load / fetch / dump runs on a current store: predicates
                  and expressions with overflow, huge literals, deep and flat chains, Unicode, NUL, bad
                  regular expressions, wrong types, unknown entities and keys; JSON Lines with bad UTF-8,
                  CRLF, BOM, NaN/inf, out-of-range numbers, wrong types, dangling references; in 1 of 4
                  trials the store first gets foreign values (REAL or TEXT in integer columns, bytes that
                  are no UTF-8 in text columns, blobs of the wrong size...). Invariants: no crash signal,
                  no hang (30 s), an exit code the README gives; exit != 0 (and any fetch or dump): store
                  bytes identical, no -journal/-wal; update/delete/load exit 0: the model's rules hold
                  (checked in Python and by `apply --verify`), the reported count is the rows changed,
                  rows not selected are untouched, simple predicates re-evaluated in Python select the
                  same rows (fetch --count too), simple assignments give the values they say, loaded
                  lines are there.
  signals         apply, update, delete, load, fleet apply, create --force on a store sized so that the
                  command takes ~0.3-2 s (timed on a copy), SIGINT or SIGTERM at a random moment. Exit 0 and
                  the same data as the uninterrupted run on the copy, or 130/143 with `interrupted: rolled back,
                  the store is unchanged` and identical bytes; a death by the signal itself only before the
                  watcher is installed or after commit (old or new data). Never a -journal left; the same
                  command run again succeeds.
  mapping-folder  Migrations/<Model> (or Migrations, or the mapping file) unreadable: root's 0700 folder or
                  0600 file with migrate run as nobody (setpriv), a symlink loop, a file instead of the folder,
                  the file a folder or a dangling symlink, `ulimit -n` small. status, plan and apply never
                  infer the hop the file maps (apply exit 0 means qty doubled; plan exit 0 names the file);
                  the store is unchanged unless apply exits 0.
  limits          `ulimit -v` (100-400 MB), `-n` (3-20) or `-f` (a file-size limit: a full disk; SIGXFSZ
                  ignored) on apply, update, delete, load, fleet apply, fleet status. Within 30 s; exit 0
                  with the data of an unlimited run on a copy, or non-zero with a message, the store
                  unchanged, no journal. A Swift runtime abort for memory (exit 134, "failed to allocate"
                  or similar, store unchanged) is counted apart as `oom-abort`, not as a failure.
  exits           apply with its stdout closed under it (`| head -n 1`, `| true`): exit 0, the store migrated as
                  an uninterrupted run leaves it, no journal (SIGPIPE killed it mid-transaction before); kill -9
                  during `apply --backup-dir`'s copy or a reader's private copy: the next run removes every
                  temporary file of the killed run and says so; a full $TMPDIR (`ulimit -f`) under a reader of a
                  WAL store: exit 0 or 1 with what to do, nothing left in $TMPDIR, the store unchanged. (The
                  signals family sends SIGHUP, SIGQUIT, SIGXCPU, SIGUSR1 and SIGUSR2 too.)
  values          abs: of Int64.min in `update --set` and `delete --where`, decimals beyond NSDecimalNumber
                  (1e200, 1e-200, 38 digits × 10^128) from `update --set` arithmetic and `load`: refused with exit
                  1 and the store unchanged, or (nothing to change) exit 0 with every stored decimal in range.
"""
import argparse, base64, hashlib, json, math, os, random, re, shutil, signal, sqlite3, stat, subprocess, sys, tempfile, time, traceback

TIMEOUT = 30
FAMILIES = ["requests", "signals", "mapping-folder", "limits", "exits", "values"]
CRASH_MARKS = ("Fatal error", "arithmetic overflow", "Illegal instruction", "Segmentation fault", "Bus error",
               "Trace/breakpoint", "Current stack trace", "Stack dump", "core dumped", "parser stack overflow")
OOM_MARKS = ("failed to allocate", "Could not allocate", "out of memory", "Out of memory", "cannot allocate", "memory exhausted")
INT_RANGE = {"integer16": (-2**15, 2**15 - 1), "integer32": (-2**31, 2**31 - 1), "integer64": (-2**63, 2**63 - 1)}
EXTRA_TYPES = ["integer16", "integer32", "integer64", "double", "float", "string", "boolean", "date", "decimal", "binary", "uuid", "uri"]
WORDS = "amber basil cedar dune ember fjord grove heath iris juniper kelp lotus maple nettle olive pine quartz reed sage thyme".split()
STRINGS = ["", "plain", "O'Brien \"q\"", "línea zwei 漢字 🙂", "Été", "ete", "a|ab", "%_*?", " lead ", "x" * 300, "\u202e", "ß"]
ALLOWED = {"update": {0, 1, 64}, "delete": {0, 1, 64}, "load": {0, 1, 64}, "fetch": {0, 1, 64}, "dump": {0, 1, 64},
           "apply": {0, 1, 4}, "status": {0, 1, 3, 4}, "plan": {0, 1, 4}, "fleet apply": {0, 1, 4}, "fleet status": {0, 1, 3, 4},
           "create": {0, 1}}
BAD_REGEX = ["(", "[", "*", "a{2,1}", "(?<", "\\", "(a|b", "", "a**", "(?x) #"]
BAD_LIKE = ["[", "]", "\\", "*[*", "", "**?**"]
INTERRUPTED = "interrupted: rolled back, the store is unchanged"


EXITS = {}   # (request, exit code) -> runs, for the requests summary


class Failure(Exception):
    def __init__(self, what, res=None):
        super().__init__(what)
        self.what, self.res = what, res


# ---------------------------------------------------------------- running migrate
class Result:
    def __init__(self, cmd, rc, out, err, secs, hung=False):
        self.cmd, self.rc, self.out, self.err, self.secs, self.hung = cmd, rc, out, err, secs, hung

    def head(self):
        lines = [l for l in self.err.splitlines() if l.strip()] or [l for l in self.out.splitlines() if l.strip()]
        return " | ".join(lines[:3])[:400]

    def show(self):
        return " ".join(a if len(a) < 200 else a[:200] + f"...({len(a)} chars)" for a in self.cmd)


def run(cmd, cwd, timeout=TIMEOUT, stdin=None, prefix=None, env=None):
    """cmd under an optional shell prefix (ulimit, setpriv); its own session so a hang kills everything."""
    full = (prefix or []) + cmd
    t0, hung = time.monotonic(), False
    p = subprocess.Popen(full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL, start_new_session=True, env=env)
    try:
        out, err = p.communicate(input=stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        (out, err), hung = p.communicate(), True
    return Result(cmd, p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), time.monotonic() - t0, hung)


def crashed(res):
    return res.rc < 0 or res.rc >= 128 or any(m in res.err for m in CRASH_MARKS)


def check(res, allowed, what=""):
    if res.hung:
        raise Failure(f"{what}hung (killed after {TIMEOUT} s)", res)
    if crashed(res):
        raise Failure(f"{what}crashed (exit {res.rc})", res)
    if res.rc not in allowed:
        raise Failure(f"{what}exit {res.rc}, expected one of {sorted(allowed)}", res)
    if res.rc != 0 and not res.err.strip() and not res.out.strip():
        raise Failure(f"{what}exit {res.rc} without a message", res)
    return res


# ---------------------------------------------------------------- models
class Model:
    """Item (+ SpecialItem), Part -> Item (to-one, inverse Item.parts), Tag <-> Item (many-to-many); version 2 rewrites Item."""

    def __init__(self, rng, big=False, lean=False, deletable=False):
        self.rng, r = rng, rng
        self.name = r.choice(WORDS).capitalize() + "Shop"
        self.qty_type = r.choice(["integer16", "integer32", "integer64"])
        self.qty_min = r.choice([None, None, 0, -100])
        self.qty_max = r.choice([None, None, 1000, 30000]) if self.qty_type != "integer16" else r.choice([None, 1000])
        self.unique = r.random() < 0.4 and not big
        self.extras = {}   # name -> (type, optional, default literal or None, python default)
        for i in range(r.randint(1, 4)):
            t = r.choice(EXTRA_TYPES)
            opt = lean or t in ("binary", "uuid", "uri", "date", "decimal") or r.random() < 0.6
            self.extras[f"{t[:3]}{i}"] = (t, opt)
        self.dropped = r.choice(list(self.extras))      # version 2 drops it (a rewrite of Item's table)
        self.child = r.random() < 0.5
        self.part_required = r.random() < 0.4 and not lean
        self.rule = r.choice(["cascade", "nullify", "deny"])
        self.min_count = r.choice([0, 0, 0, 1, 2]) if not (big or lean or self.part_required) else 0
        if self.min_count:
            self.rule = r.choice(["cascade", "nullify"])
        self.tags = r.random() < 0.7
        if deletable:   # every Item may go: its parts cascade, or are optional and nullified
            self.rule = r.choice(["cascade", "nullify"]) if not self.part_required else "cascade"

    def attrs(self, entity, version=2):
        """name -> (type, optional) of an entity's stored attributes at a version (inherited included)."""
        if entity in ("Item", "SpecialItem"):
            a = {"name": ("string", False), "qty": (self.qty_type, False), "note": ("string", True), "price": ("double", True)}
            a.update({n: x for n, x in self.extras.items() if version == 1 or n != self.dropped})
            if version == 2:
                a["added"] = ("integer32", True)
            if entity == "SpecialItem":
                a["extra"] = ("string", True)
            return a
        return {"label": ("string", True), "weight": ("integer32", True)} if entity == "Part" else {"word": ("string", True)}

    def yaml(self, version):
        qty = [f"type: {self.qty_type}", "default: 0"] + ([f"min: {self.qty_min}"] if self.qty_min is not None else []) \
            + ([f"max: {self.qty_max}"] if self.qty_max is not None else [])
        lines = [f"model: {self.name}", f"version: {version}", "entities:", "  Item:", "    attributes:",
                 "      name: string", f"      qty: {{ {', '.join(qty)} }}", "      note: string?", "      price: double?"]
        for n, (t, opt) in self.extras.items():
            if version == 2 and n == self.dropped:
                continue
            lines.append(f"      {n}: {{ type: {t}, optional: {'true' if opt else 'false'}" + ("" if opt else f", default: {default_literal(t)}") + " }")
        if version == 2:
            lines.append("      added: integer32?")
        lines += ["    relationships:",
                  f"      parts: {{ destination: Part, toMany: true, inverse: item, deleteRule: {self.rule}"
                  + (f", minCount: {self.min_count}" if self.min_count else "") + " }"]
        if self.tags:
            lines.append("      tags: { destination: Tag, toMany: true, inverse: items }")
        if self.unique:
            lines.append("    uniqueness: [[name]]")
        if self.child:
            lines += ["  SpecialItem:", "    parent: Item", "    attributes:", "      extra: string?"]
        lines += ["  Part:", "    attributes:", "      label: string?", "      weight: integer32?", "    relationships:",
                  f"      item: {{ destination: Item, inverse: parts, optional: {'false' if self.part_required else 'true'} }}"]
        if self.tags:
            lines += ["  Tag:", "    attributes:", "      word: string?", "    relationships:",
                      "      items: { destination: Item, toMany: true, inverse: tags }"]
        return "\n".join(lines) + "\n"

    def mapping(self):
        return "entities:\n  Item:\n    properties:\n      qty: { value: \"$source.qty * 2\" }\n"

    def entities(self):
        return ["Item"] + (["SpecialItem"] if self.child else []) + ["Part"] + (["Tag"] if self.tags else [])


def default_literal(t):
    return {"string": '""', "boolean": "false", "double": "0.5", "float": "0.5", "date": '"2001-01-01T00:00:00Z"',
            "decimal": '"0"', "uri": '"https://x.example"'}.get(t, "0")


def gen_value(t, r, hostile=False):
    """A JSON-ready value of type t (sometimes a hostile one, then ("raw", text) for what JSON can't say)."""
    if hostile and r.random() < 0.35:
        return r.choice([("raw", "NaN"), ("raw", "Infinity"), ("raw", "-Infinity"), ("raw", "1e400"), ("raw", "-0"),
                         "NaN", "inf", "-inf", 2**63, -2**63 - 1, 2**64, 1.5, 1e308, -1e308, 5e-324, "12", "", "\u0000",
                         "\ud800", True, [], {}, ("raw", "99999999999999999999999999999"), ("raw", "0x10"), ("raw", "1.0e5"),
                         "2026-13-45T99:00:00Z", "not a uuid", "!!!base64", ("raw", '"\\ud83d"'), "x" * 70000])
    if t in INT_RANGE:
        lo, hi = INT_RANGE[t]
        return r.choice([lo, hi, 0, -1]) if r.random() < 0.1 else r.randint(max(lo, -500), min(hi, 500))
    return {"double": lambda: r.choice([0.0, -2.5, 1e300, 3.25]), "float": lambda: r.choice([0.0, -2.5, 1024.5]),
            "string": lambda: r.choice(STRINGS) + str(r.randint(0, 99)), "boolean": lambda: r.random() < 0.5,
            "date": lambda: r.choice(["2001-01-01T00:00:00Z", "2026-06-30T12:00:00Z", 0, -1e9]),
            "decimal": lambda: r.choice(["0", "12.50", "-3.14159265358979323846", "1e5"]),
            "binary": lambda: base64.b64encode(r.randbytes(r.randint(0, 20))).decode(),
            "uuid": lambda: "%08X-%04X-%04X-%04X-%012X" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48)),
            "uri": lambda: r.choice(["https://example.com/a", "mailto:x@y.z", "file:///tmp/x"])}[t]()


def encode_line(obj):
    """JSON text of a dict whose values may be ("raw", text)."""
    parts = []
    for k, v in obj.items():
        text = v[1] if isinstance(v, tuple) else json.dumps(v)
        parts.append(json.dumps(k) + ": " + text)
    return "{" + ", ".join(parts) + "}"


# ---------------------------------------------------------------- reading stores in Python
def connect(path, ro=True):
    uri = f"file:{os.path.abspath(path)}?mode={'ro' if ro else 'rw'}"
    con = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=5)
    con.text_factory = lambda b: b.decode("utf-8", "surrogateescape")   # a store may hold any bytes as text
    return con


def logical(path, skip=("Z_METADATA",)):
    """A digest of the schema and every table's rows, sorted (Z_METADATA left out: its history has a date)."""
    con = connect(path)
    try:
        out = [("schema",) + tuple(r) for r in con.execute("SELECT type, name, sql FROM sqlite_master")]
        for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            if t not in skip:
                out += [(t,) + tuple(r) for r in con.execute(f'SELECT * FROM "{t}"')]
        return hashlib.sha256("\n".join(sorted(map(repr, out))).encode()).hexdigest()
    finally:
        con.close()


class Snapshot:
    """What a store holds, read as the model's version 1 (or 2) with Z<NAME> columns."""

    def __init__(self, path, model, version=2):
        self.m, self.version, con = model, version, connect(path)
        try:
            self.ent = {n: e for e, n in con.execute("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")}
            self.zmax = {n: x for n, x in con.execute("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY")}
            self.tables = {t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            self.rows = {}   # root -> {pk: dict of column -> value, with Z_ENT, Z_OPT}
            for root in ["Item", "Part", "Tag"]:
                if "Z" + root.upper() in self.tables:
                    cur = con.execute(f'SELECT * FROM "Z{root.upper()}"')
                    names = [d[0] for d in cur.description]
                    self.rows[root] = {r[0]: dict(zip(names, r)) for r in cur}
            self.join = set()
            jt = self.join_table(con)
            if jt:
                self.join = {tuple(p) for p in con.execute(f'SELECT "{jt[1]}", "{jt[2]}" FROM "{jt[0]}"')}
            self.integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            con.close()

    def join_table(self, con):
        """(table, item column, tag column) of Item.tags."""
        for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            cols = [c[1] for c in con.execute(f'PRAGMA table_info("{t}")')]
            keys = {re.sub(r"^Z_\d+", "", c): c for c in cols if re.match(r"^Z_\d+[A-Z]", c)}
            if set(keys) == {"TAGS", "ITEMS"}:
                return t, keys["ITEMS"], keys["TAGS"]   # ITEMS column holds Item keys
        return None

    def of(self, entity):
        """{pk: row} of an entity and its subentities."""
        root = "Item" if entity in ("Item", "SpecialItem") else entity
        ents = {self.ent.get(entity)} | ({self.ent.get("SpecialItem")} if entity == "Item" else set())
        return {pk: r for pk, r in self.rows.get(root, {}).items() if r["Z_ENT"] in ents}

    def value(self, row, attr):
        v = row.get("Z" + attr.upper())
        return v

    def rule_problems(self):
        """The model's rules, checked in Python: what a successful write must leave."""
        m, probs = self.m, []
        if self.integrity != "ok":
            probs.append(f"integrity_check: {self.integrity[:100]!r}")
        items, parts = self.of("Item"), self.of("Part")
        for ent, rows in (("Item", self.of("Item")), ("Part", parts), ("Tag", self.of("Tag") if m.tags else {})):
            for pk, row in rows.items():
                e = [k for k, v in self.ent.items() if v == row["Z_ENT"]]
                for a, (t, opt) in m.attrs(e[0] if e else ent, self.version).items():
                    v = self.value(row, a)
                    if v is None and not opt:
                        probs.append(f"{ent} {pk}: required {a} is nil")
                    if t in INT_RANGE and v is not None:
                        if not isinstance(v, int) or not INT_RANGE[t][0] <= v <= INT_RANGE[t][1]:
                            probs.append(f"{ent} {pk}: {a} = {v!r} is no {t}")
                    if t == "string" and v is not None:
                        try:
                            v.encode("utf-8") if isinstance(v, str) else None
                        except UnicodeEncodeError:
                            probs.append(f"{ent} {pk}: {a} holds text that is not UTF-8")
                    if a == "qty" and isinstance(v, int):
                        if m.qty_min is not None and v < m.qty_min or m.qty_max is not None and v > m.qty_max:
                            probs.append(f"{ent} {pk}: qty {v} outside min/max")
        for pk, row in parts.items():
            ref = row.get("ZITEM")
            if ref is None and m.part_required:
                probs.append(f"Part {pk}: required item is nil")
            if ref is not None and ref not in items:
                probs.append(f"Part {pk}: item {ref} does not exist")
        if m.min_count:
            counts = {}
            for row in parts.values():
                counts[row.get("ZITEM")] = counts.get(row.get("ZITEM"), 0) + 1
            short = [pk for pk in items if 0 < counts.get(pk, 0) < m.min_count]   # optional to-many: empty is valid, as in Core Data
            if short:
                probs.append(f"Item {short[:5]}: fewer parts than minCount {m.min_count} (and not none)")
        tags = self.of("Tag") if m.tags else {}
        bad = [p for p in self.join if p[0] not in items or p[1] not in tags]
        if bad:
            probs.append(f"join rows at missing objects: {sorted(bad)[:3]}")
        if m.unique:
            names = [self.value(r, "name") for r in items.values() if self.value(r, "name") is not None]
            if len(names) != len(set(names)):
                probs.append("two Items share a name under a uniqueness constraint")
        for root, rows in self.rows.items():
            odd = [pk for pk, row in rows.items() if not isinstance(row["Z_OPT"], int)]
            if odd:
                probs.append(f"{root} {odd[:3]}: Z_OPT is {rows[odd[0]]['Z_OPT']!r}, no integer")
            top = max(rows, default=0)
            if rows and self.zmax.get(root, 0) < top and not (root == "Item" and self.zmax.get("SpecialItem", 0) >= top):
                probs.append(f"Z_MAX of {root} {self.zmax.get(root)} below its largest Z_PK {top}")
        return probs


# ---------------------------------------------------------------- predicates and expressions
def quote(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Pred:
    """A predicate's text and, for the simple ones, a Python function of (snapshot, row) -> bool (None: not evaluable)."""

    def __init__(self, text, fn=None):
        self.text, self.fn = text, fn


def num_attr(m):
    c = [("qty", m.qty_type), ("price", "double")] + [(n, t) for n, (t, _) in m.extras.items() if n != m.dropped and (t in INT_RANGE or t == "double")]
    return c


def simple_pred(m, r, depth=0):
    k = r.random()
    if depth < 2 and k < 0.25:
        a, b = simple_pred(m, r, depth + 1), simple_pred(m, r, depth + 1)
        op = r.choice(["AND", "OR", "&&", "||"])
        both = a.fn and b.fn and (lambda s, row, f=a.fn, g=b.fn, o=op: (f(s, row) and g(s, row)) if o in ("AND", "&&") else (f(s, row) or g(s, row)))
        return Pred(f"({a.text}) {op} ({b.text})", both)
    if depth < 2 and k < 0.33:
        a = simple_pred(m, r, depth + 1)
        return Pred(f"NOT ({a.text})", a.fn and (lambda s, row, f=a.fn: not f(s, row)))
    if k < 0.38:
        return Pred(r.choice(["TRUEPREDICATE", "FALSEPREDICATE"]), lambda s, row, t=None: None)._truth()
    if k < 0.7:
        a, t = r.choice(num_attr(m))
        op = r.choice(["==", "!=", "<", "<=", ">", ">="])
        lit = r.choice([0, 1, -1, 5, 100, 250, -300, 2.5]) if r.random() < 0.9 else r.randint(-1000, 1000)
        if r.random() < 0.1:
            return Pred(f"{a} {op} nil" if op in ("==", "!=") else f"{a} == nil",
                        lambda s, row, a=a, op=op: (s.value(row, a) is None) == (op != "!="))
        return Pred(f"{a} {op} {lit}", lambda s, row, a=a, op=op, lit=lit: cmp(s.value(row, a), op, lit))
    a = r.choice(["name", "note"])
    op = r.choice(["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS"])
    lit = r.choice(STRINGS[1:5] + ["a", "x", "1", "plain1"])
    return Pred(f"{a} {op} {quote(lit)}", lambda s, row, a=a, op=op, lit=lit: scmp(s.value(row, a), op, lit))


def _truth(self):
    self.fn = lambda s, row, t=self.text == "TRUEPREDICATE": t
    return self


Pred._truth = _truth


def cmp(v, op, lit):
    if isinstance(v, (bytes, str)):
        return None   # foreign text in a number column: not judged
    if op == "==":
        return v is not None and v == lit
    if op == "!=":
        return v is None or v != lit
    if v is None:
        return False
    return {"<": v < lit, "<=": v <= lit, ">": v > lit, ">=": v >= lit}[op]


def scmp(v, op, lit):
    v = v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else v
    if op == "==":
        return v == lit
    if op == "!=":
        return v != lit
    if v is None or lit == "":
        return False
    return {"BEGINSWITH": v.startswith(lit), "ENDSWITH": v.endswith(lit), "CONTAINS": lit in v}[op]


def hostile_pred(m, r):
    a, _ = r.choice(num_attr(m))
    big = r.choice(["9223372036854775807", "9223372036854775808", "-9223372036854775809", "99999999999999999999999999",
                    "1e400", "-1e400", "1e-400", "0x7fffffffffffffffff", "0x8000000000000000", "1.7976931348623157e308", "4.9e-324"])
    n = r.choice([50, 99, 100, 101, 150, 400, 2000])
    choices = [
        lambda: f"{a} == {big}", lambda: f"{a} * {big} > 0", lambda: f"{a} + {big} > {a}", lambda: f"{a} / 0 == 1",
        lambda: f"-{big} < {a}", lambda: f"{a} BETWEEN {{{big}, -{big}}}", lambda: f"{a} IN {{{', '.join([big] * r.randint(1, 5))}}}",
        lambda: "NOT " * n + f"{a} > 1", lambda: "(" * n + f"{a} > 1" + ")" * n,
        lambda: " OR ".join(f"{a} == {i}" for i in range(n * r.choice([1, 3]))),   # at most ~90 KB: one argument holds 128 KiB
        lambda: " AND ".join(f"{a} != {i}" for i in range(n)),
        lambda: f"{a} IN {{{', '.join(str(i) for i in range(r.choice([100, 10000, 12000])))}}}",
        lambda: "abs:(" * (n // 10) + a + ")" * (n // 10) + " > 0", lambda: a + " + 1" * n + " > 0",
        lambda: "name == '" + r.choice(["\u0000", "a\u0000b", "\ud7ff", "🙂" * 100, "\u202e", "\\u0000", "\\ud800"]) + "'",
        lambda: "name MATCHES " + quote(r.choice(BAD_REGEX)),
        lambda: "name LIKE " + quote(r.choice(BAD_LIKE)),
        lambda: f"name {r.choice(['BEGINSWITH', 'ENDSWITH', 'CONTAINS', '=='])}[{r.choice(['c', 'd', 'cd', 'x', ''])}] ''",
        lambda: r.choice(["nosuchkey == 1", "name > 5", "qty BEGINSWITH 'x'", "parts.weight == 1", "parts == nil", "tags.word == 'x'",
                          "ANY parts.weight > 1", "ALL parts.weight > 1", "NONE tags.word == 'a'", "parts.@count >= 1", "parts.@sum.weight > 3",
                          "parts.@avg.weight > 3", "ANY tags.items.name == 'x'", "SUBQUERY(parts, $p, $p.weight > 1).@count > 0",
                          "FUNCTION(name, 'length') > 1", "$x == 1", "SELF == nil", "name == %@", "qty == ", "((qty == 1)", "qty === 1",
                          "qty = = 1", "", "   ", "\u0000", "name ==[c] 'ÉTÉ'", "name ==[cd] 'ETE'", "length:(name) > 3",
                          "CAST(name, 'NSNumber') > 1", "CAST('2026-01-01T00:00:00Z', 'NSDate') < now()", "CAST(qty, 'NSDate') == nil",
                          "qty == 'text'", "#qty == 1", "name == \"unterminated", "name IN {}", "qty IN {1, 'a'}", "TRUEPREDICATE AND",
                          "parts.item.parts.@count > 0", "lowercase:(name) == uppercase:(name)", "qty.foo == 1", "@count == 1",
                          "qty == 1 == 2", "name MATCHES '.*' AND name MATCHES '(a|ab)'", "price == nan", "price == inf"]),
        lambda: "x" * r.choice([300, 20000]) + " == 1", lambda: r.choice(["Ωmega", "名前", "naïve"]) + " == 1",
        lambda: "".join(r.choice("()!&|=<>'\" abcqty0123456789.,{}[]$@#%:-+*/\\") for _ in range(r.randint(1, 40))),
    ]
    return Pred(r.choice(choices)())


def update_assignment(m, r, s):
    """(text, expected new value as a function of the old row, or None when not judged)."""
    a, t = r.choice(num_attr(m))
    lo, hi = INT_RANGE.get(t, (None, None))
    k = r.randint(-3, 3)
    opts = [
        (f"{a} = {a} + {k}", lambda s, row, a=a, k=k, t=t: None if s.value(row, a) is None or isinstance(s.value(row, a), (bytes, str)) else s.value(row, a) + k),
        (f"{a} = {k}", lambda s, row, k=k: k),
        (f"note = {quote(r.choice(STRINGS))}", None), ("note = nil", lambda s, row: None),
        (f"name = name + {quote(r.choice(['x', '🙂', 'é']))}", None), ("name = uppercase:(name)", None),
        ("name = lowercase:(name)", None), ("price = price / 3", None),
    ]
    hostile = [
        f"{a} = {a} * 9223372036854775807", f"{a} = {a} + 9223372036854775807", f"{a} = -9223372036854775808 - 1",
        f"{a} = {a} - 9223372036854775808", f"{a} = 9223372036854775807 + 1", f"{a} = {hi if hi else 1} + 1", f"{a} = {lo if lo else 1} - 1",
        f"{a} = 1e400", f"{a} = 1.5", f"{a} = 99999999999999999999", f"{a} = {a} / 0", "price = price / 0", "price = 1e308 * 10",
        "price = -1e308 * 10", "price = 0 / 0", f"{a} = abs:(-9223372036854775808)", f"{a} = -(-9223372036854775808)",
        f"{a} = {a} * {a} * {a} * {a} * {a}", "name = nil", "qty = nil", "name = 5", "qty = 'text'", "nosuch = 1", "name = ''",
        "name = '\u0000'", "name = 'a\u0000b'", "note = '" + "x" * 100000 + "'", "Z_PK = 1", "Z_ENT = 3", "parts = nil", "item = nil",
        "name = name", "qty = qty", "price = now()", "qty = CAST('12 pages', 'NSNumber')", "qty = CAST('nope', 'NSNumber')",
        "qty = length:(name)", "name = CAST(qty, 'NSString')", "note = " + " + ".join(["name"] * 40), "qty = " + "+".join(["1"] * 200),
        "qty = parts.@count", "qty = parts.@sum.weight * 99999999999", "= 1", "qty =", "qty 1", "qty = (1", "qty = {1,2}",
        "name = 'é' + 'e\u0301'",
    ] + [f"{n} = {v}" for n, (tt, _) in m.extras.items() if n != m.dropped for v in ("nil", "'x'", "1", "1e400", "YES", "now()", "'00000000-0000-0000-0000-000000000000'")]
    if r.random() < 0.5:
        return opts[r.randrange(len(opts))]
    return r.choice(hostile), None


# ---------------------------------------------------------------- trials
class Trial:
    def __init__(self, seed, k, family, migrate, keep):
        self.seed, self.k, self.family, self.migrate, self.keep = seed, k, family, migrate, keep
        self.rng = random.Random(f"{seed}/{k}")
        self.dir = tempfile.mkdtemp(prefix=f"hostcmd-{seed}-{k}-")
        self.notes, self.outcome, self.last = [], "ok", None

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def cmd(self, *args, models=True):
        c = [self.migrate] + list(args)
        return c + ["--models", self.path("Models"), "--migrations", self.path("Migrations")] if models else c

    def go(self, args, allowed=None, what="", **kw):
        args = [a.replace("\x00", "\\u0000") for a in args]   # argv cannot hold a NUL: the escape says it
        res = run(self.cmd(*args), self.dir, **kw)
        self.last = res
        if allowed is not None:
            check(res, allowed, what)
        return res

    # -- setup
    def make_model(self, big=False, lean=False, mapping=False, deletable=False):
        self.m = m = Model(self.rng, big=big, lean=lean, deletable=deletable)
        os.makedirs(self.path("Models", m.name))
        for v in (1, 2):
            open(self.path("Models", m.name, f"{v}.yaml"), "w").write(m.yaml(v))
        os.makedirs(self.path("Migrations", m.name))
        if mapping:
            open(self.path("Migrations", m.name, "1-to-2.yaml"), "w").write(m.mapping())
        self.go(["validate"], {0}, "SCRIPT BUG: validate of the generated model: ")
        return m

    def make_store(self, name, version, items=None):
        """A store at `version` with objects loaded through `migrate load`."""
        r, m = self.rng, self.m
        store = self.path(name)
        self.go(["create", store, "--version", str(version)], {0}, "SCRIPT BUG: create: ")
        n = items if items is not None else r.randint(3, 25)
        tags = [{"_pk": i, "word": r.choice(STRINGS)} for i in range(1, r.randint(0, 6) + 1)] if m.tags else []
        nparts = max(n * m.min_count, r.randint(0, 2 * n))
        parts = [{"_pk": i, "label": r.choice(STRINGS), "weight": r.randint(-5, 50)} for i in range(1, nparts + 1)]
        items_ = []
        for i in range(1, n + 1):
            o = {"_pk": i, "name": f"n{i}-" + r.choice(STRINGS), "qty": r.randint(-20 if m.qty_min is None else max(-20, m.qty_min), 20),
                 "note": r.choice(STRINGS + [None]), "price": r.choice([None, 1.5, -3.0, 100.25])}
            if m.child and r.random() < 0.4:
                o["_entity"], o["extra"] = "SpecialItem", r.choice(STRINGS)
            for a, (t, opt) in m.extras.items():
                if version == 2 and a == m.dropped:
                    continue
                if not opt or r.random() < 0.7:
                    o[a] = gen_value(t, r)
            if tags and r.random() < 0.6:
                o["tags"] = sorted(r.sample([t["_pk"] for t in tags], r.randint(1, len(tags))))
            items_.append(o)
        if version == 2:
            for o in items_:
                o["added"] = r.choice([None, 7])
        owner = {}
        for p in parts:
            if m.min_count:
                owner[p["_pk"]] = (p["_pk"] - 1) // m.min_count + 1 if p["_pk"] <= n * m.min_count else r.choice([None] + list(range(1, n + 1)))
            else:
                owner[p["_pk"]] = r.randint(1, n) if (m.part_required or r.random() < 0.7) and n else None
        if m.min_count:   # parts first (no item yet), then items naming their parts
            for o in items_:
                o["parts"] = [p for p, i in owner.items() if i == o["_pk"]]
            order = [("Tag", tags), ("Part", parts), ("Item", items_)]
        else:
            for p in parts:
                p["item"] = owner[p["_pk"]]
            order = [("Tag", tags), ("Item", items_), ("Part", parts)]
        for ent, objs in order:
            if objs:
                f = self.path(f"seed-{name}-{ent}.jsonl")
                open(f, "w").write("\n".join(json.dumps(o) for o in objs) + "\n")
                self.go(["load", store, ent, f], {0}, f"SCRIPT BUG: seeding {ent}: ")
        return store

    def grow(self, store, factor):
        """Copies Item rows (and their parts) in SQL, `factor` times; Z_MAX follows."""
        con = connect(store, ro=False)
        cols = [c[1] for c in con.execute('PRAGMA table_info("ZITEM")') if c[1] != "Z_PK"]
        pcols = [c[1] for c in con.execute('PRAGMA table_info("ZPART")') if c[1] not in ("Z_PK", "ZITEM")]
        top, ptop = con.execute("SELECT max(Z_PK) FROM ZITEM").fetchone()[0] or 0, con.execute("SELECT max(Z_PK) FROM ZPART").fetchone()[0] or 0
        con.execute("BEGIN")
        for i in range(1, factor):
            sel = ", ".join(f"{c} || '#{i}'" if c == "ZNAME" else c for c in cols)
            con.execute(f'INSERT INTO ZITEM (Z_PK, {", ".join(cols)}) SELECT Z_PK + {i * top}, {sel} FROM ZITEM WHERE Z_PK <= {top}')
            con.execute(f'INSERT INTO ZPART (Z_PK, ZITEM, {", ".join(pcols)}) SELECT Z_PK + {i * ptop}, ZITEM + {i * top}, {", ".join(pcols)} '
                        f'FROM ZPART WHERE Z_PK <= {ptop}')
        con.execute(f"UPDATE Z_PRIMARYKEY SET Z_MAX = {factor * top} WHERE Z_NAME IN ('Item', 'SpecialItem')")
        con.execute(f"UPDATE Z_PRIMARYKEY SET Z_MAX = {factor * ptop} WHERE Z_NAME = 'Part'")
        con.execute("COMMIT")
        con.close()

    # -- judgement helpers
    def state(self, store):
        return open(store, "rb").read(), {s: os.path.exists(store + s) for s in ("-journal", "-wal", "-shm")}

    def unchanged(self, store, before, what, res=None):
        data, sides = self.state(store)
        if data != before[0]:
            raise Failure(f"{what}: the store's bytes changed", res)
        self.no_journal(store, what, res)

    def no_journal(self, store, what, res=None):
        for s in ("-journal", "-wal"):
            if os.path.exists(store + s):
                raise Failure(f"{what}: {os.path.basename(store)}{s} left beside the store ({os.path.getsize(store + s)} bytes)", res)

    def verify(self, store, what, res=None):
        probs = Snapshot(store, self.m).rule_problems()
        if probs:
            raise Failure(f"{what} exited 0 but the model's rules are broken: " + "; ".join(probs[:4]), res)
        v = run(self.cmd("apply", store, "--verify"), self.dir)
        if v.rc != 0 or crashed(v):
            raise Failure(f"{what} exited 0 but `apply --verify` then exits {v.rc}: {v.head()}", res)
        self.no_journal(store, f"apply --verify after {what}")

    # ================================================================ requests
    def requests(self):
        r = self.rng
        m = self.make_model()
        store = self.make_store("s.sqlite", 2)
        foreign = r.random() < 0.25
        if foreign:
            self.foreign(store)
        elif r.random() < 0.2:   # change counters at the top of their range (legit values)
            con = connect(store, ro=False)
            con.execute(f"UPDATE ZITEM SET Z_OPT = {2**63 - 1} WHERE Z_PK % 2 = 0")
            con.execute(f"UPDATE ZPART SET Z_OPT = {2**63 - 1} WHERE Z_PK % 3 = 0")
            con.close()
            self.notes.append("Z_OPT at Int64.max")
        for _ in range(r.randint(6, 12)):
            kind = r.choice(["update", "update", "delete", "delete", "load", "load", "fetch", "dump"])
            getattr(self, "req_" + kind)(store, foreign)
        self.outcome = "foreign" if foreign else "ok"

    def foreign(self, store):
        """Values our writers never write, as another program might leave them."""
        r, con = self.rng, connect(store, ro=False)
        cols = {c[1]: c[2] for c in con.execute('PRAGMA table_info("ZITEM")')}
        pks = [x for (x,) in con.execute("SELECT Z_PK FROM ZITEM")]
        for _ in range(r.randint(1, 4)):
            if not pks:
                break
            col = r.choice([c for c in cols if not c.startswith("Z_")])
            val = r.choice([1.5, 1e300, -0.0, 2**63 - 1, -2**63, "text", "12", b"\xff\xfe\x00bad", "\ud800".encode("utf-8", "surrogatepass"),
                            bytes(15), bytes(17), "2026", "NaN", "", 1e-320, "-", "0x10", "1e999"])
            if isinstance(val, bytes) and r.random() < 0.5:   # bytes stored as TEXT
                con.execute(f'UPDATE ZITEM SET "{col}" = CAST(? AS TEXT) WHERE Z_PK = ?', (val, r.choice(pks)))
            else:
                con.execute(f'UPDATE ZITEM SET "{col}" = ? WHERE Z_PK = ?', (val, r.choice(pks)))
            self.notes.append(f"foreign {col}={val!r:.30}")
        con.close()

    def judged(self, store, args, kind, foreign, stdin=None):
        """Runs a request; on failure the store must be unchanged. Returns (res, before snapshot, bytes)."""
        before_bytes = self.state(store)
        before = Snapshot(store, self.m)
        res = self.go(args, None, stdin=stdin)
        check(res, ALLOWED[kind], f"{kind}: ")
        EXITS[(kind, res.rc)] = EXITS.get((kind, res.rc), 0) + 1
        self.no_journal(store, kind, res)
        if res.rc != 0 or kind in ("fetch", "dump") or "--dry-run" in args:
            self.unchanged(store, before_bytes, f"{kind} exit {res.rc}", res)
        return res, before

    def req_update(self, store, foreign):
        r, m = self.rng, self.m
        ent = r.choice(["Item", "Item", "SpecialItem" if m.child else "Item", "Part", "Nope", "item", "Z_PRIMARYKEY"])
        pred = simple_pred(m, r) if r.random() < 0.6 else hostile_pred(m, r)
        sets = [update_assignment(m, r, None) for _ in range(r.randint(1, 3))]
        if ent == "Part":
            sets = [(r.choice(["weight = weight + 1", "label = 'p'", "weight = 2147483647 + 1", "item = nil", "weight = nil"]), None)]
            pred = Pred(r.choice(["weight > 3", "item == nil", "item.qty > 2", "item.name BEGINSWITH 'n1'", "TRUEPREDICATE"]))
        args = ["update", store, ent] + [x for s, _ in sets for x in ("--set", s)]
        if pred.text or r.random() < 0.5:
            args += ["--where", pred.text]
        if r.random() < 0.1:
            args.append("--dry-run")
        if r.random() < 0.1:
            args.append("--no-subentities")
        if r.random() < 0.2:
            args.append("--json")
        res, before = self.judged(store, args, "update", foreign)
        if res.rc != 0 or "--dry-run" in args:
            return
        after = Snapshot(store, m)
        if not foreign:
            self.verify(store, "update", res)
        count = reported(res, "updated")
        root = "Part" if ent == "Part" else "Item"
        old, new = before.rows.get(root, {}), after.rows.get(root, {})
        if set(old) != set(new):
            raise Failure("update exited 0 but rows appeared or vanished", res)
        changed = {pk for pk in old if new[pk]["Z_OPT"] != old[pk]["Z_OPT"]}
        for pk in old:
            if pk not in changed and new[pk] != old[pk]:
                raise Failure(f"update exited 0 and changed {root} {pk} without raising its Z_OPT", res)
            if pk in changed and new[pk]["Z_OPT"] != (old[pk]["Z_OPT"] or 0) % (2**63 - 1) + 1:   # wraps at Int64.max
                raise Failure(f"update: Z_OPT of {root} {pk} went {old[pk]['Z_OPT']} -> {new[pk]['Z_OPT']}", res)
        if count is not None and count != len(changed):
            raise Failure(f"update said {count} objects, {len(changed)} rows changed", res)
        if root == "Item" and pred.fn and "--no-subentities" not in args and ent == "Item" and "--where" in args:
            want = {pk for pk, row in before.of("Item").items() if pred.fn(before, row)}
            if None not in [pred.fn(before, row) for row in before.of("Item").values()] and want != changed:
                raise Failure(f"update --where {pred.text!r}: changed {sorted(changed)[:8]}, Python selects {sorted(want)[:8]}", res)
            for text, fn in sets:
                key = text.split("=")[0].strip()
                if fn and [s for s, _ in sets].count(text) == 1 and sum(s.split("=")[0].strip() == key for s, _ in sets) == 1:
                    for pk in changed:
                        exp = fn(before, old[pk])
                        got = after.value(new[pk], key)
                        if exp is not None and got != exp:
                            raise Failure(f"update --set {text!r}: {root} {pk} holds {got!r}, expected {exp!r}", res)

    def req_delete(self, store, foreign):
        r, m = self.rng, self.m
        ent = r.choice(["Item", "Item", "SpecialItem" if m.child else "Item", "Part", "Tag" if m.tags else "Part", "Ghost"])
        pred = (simple_pred(m, r) if ent == "Item" else Pred(r.choice(["TRUEPREDICATE", "weight > 10", "item == nil", "word == nil", "label BEGINSWITH 'p'"]))) \
            if r.random() < 0.7 else hostile_pred(m, r)
        args = ["delete", store, ent]
        if r.random() < 0.85:
            args += ["--where", pred.text]
        if r.random() < 0.1:
            args.append("--dry-run")
        if r.random() < 0.2:
            args.append("--json")
        res, before = self.judged(store, args, "delete", foreign)
        if res.rc != 0 or "--dry-run" in args:
            if res.rc == 1 and ent == "Item" and pred.fn and not foreign and "--where" in args and m.rule != "deny" \
                    and not m.part_required and not m.min_count:
                doomed = [pk for pk, row in before.of("Item").items() if pred.fn(before, row)]
                if None not in doomed:
                    raise Failure("delete refused although no rule forbids it", res)
            return
        after = Snapshot(store, m)
        if not foreign:
            self.verify(store, "delete", res)
        gone = {(root, pk) for root in before.rows for pk in before.rows[root] if pk not in after.rows.get(root, {})}
        count = reported(res, "deleted")
        if count is not None and count != len(gone):
            raise Failure(f"delete said {count} objects, {len(gone)} rows are gone", res)
        if ent == "Item" and pred.fn and "--where" in args:
            sel = {pk: pred.fn(before, row) for pk, row in before.of("Item").items()}
            if None not in sel.values():
                want = {pk for pk, v in sel.items() if v}
                got = {pk for root, pk in gone if root == "Item"}
                if want != got:
                    raise Failure(f"delete --where {pred.text!r}: deleted Items {sorted(got)[:8]}, Python selects {sorted(want)[:8]}", res)
                for pk, row in before.of("Part").items():
                    doomed_owner = row.get("ZITEM") in want
                    if doomed_owner and m.rule == "cascade" and pk in after.rows.get("Part", {}):
                        raise Failure(f"delete: Part {pk} of a deleted Item survived a cascade", res)
                    if not doomed_owner and pk not in after.rows.get("Part", {}):
                        raise Failure(f"delete: Part {pk} vanished though its Item stays", res)
        for root in before.rows:
            for pk, row in after.rows.get(root, {}).items():
                old = before.rows[root][pk]
                if row != old and row["Z_OPT"] == old["Z_OPT"]:
                    raise Failure(f"delete changed {root} {pk} without raising Z_OPT", res)

    def req_load(self, store, foreign):
        r, m = self.rng, self.m
        ent = r.choice(["Item", "Item", "Item", "Part", "Tag" if m.tags else "Item", "SpecialItem" if m.child else "Item", "Nope"])
        top = max([0] + list(Snapshot(store, m).rows.get("Item" if ent in ("Item", "SpecialItem") else ent, {})))
        lines, objs, hostile = [], [], r.random() < 0.6
        for i in range(r.randint(0, 8)):
            if ent in ("Item", "SpecialItem", "Nope"):
                o = {"_pk": top + 100 + i, "name": f"L{i}-{r.randint(0, 10**9)}", "qty": gen_value(m.qty_type, r, hostile and r.random() < 0.3)}
                if m.qty_min is not None and isinstance(o["qty"], int) and not hostile:
                    o["qty"] = max(o["qty"], m.qty_min)
                if m.qty_max is not None and isinstance(o["qty"], int) and not hostile:
                    o["qty"] = min(o["qty"], m.qty_max)
                for a, (t, opt) in m.extras.items():
                    if a != m.dropped and (not opt or r.random() < 0.5):
                        o[a] = gen_value(t, r, hostile and r.random() < 0.3)
                if m.min_count:
                    o["parts"] = r.choice([[], [1], [10**6]])
            elif ent == "Part":
                o = {"_pk": top + 100 + i, "weight": gen_value("integer32", r, hostile), "item": r.choice([1, 2, None, 10**6, "1"])}
            else:
                o = {"_pk": top + 100 + i, "word": gen_value("string", r, hostile)}
            if hostile and r.random() < 0.3:
                o[r.choice(["_pk", "_entity", "nosuch", "Z_PK", "name", "tags", "parts"])] = r.choice(
                    [None, -1, 0, 2**63, "x", "Part", "Tag", [1, 1], 1.5, ("raw", "[" * 5000 + "]" * 5000)])
            objs.append(o)
            lines.append(encode_line(o))
        text = "\n".join(lines) + r.choice(["\n", "", "\n\n"])
        data = text.encode("utf-8", "surrogatepass")
        if hostile:
            trick = r.choice(["crlf", "bom", "badutf8", "nul", "trunc", "blank", "array", "bigline", "none", "dir", "deep"])
            self.notes.append(f"load {trick}")
            if trick == "crlf":
                data = data.replace(b"\n", b"\r\n")
            elif trick == "bom":
                data = b"\xef\xbb\xbf" + data
            elif trick == "badutf8":
                data = data.replace(b"L", r.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xc0\xaf"]), 1)
            elif trick == "nul":
                data = data[: len(data) // 2] + b"\x00" + data[len(data) // 2:]
            elif trick == "trunc":
                data = data[: r.randrange(len(data) + 1)]
            elif trick == "blank":
                data = b"\n  \n\t\n" + data + b"\r\n\r\n"
            elif trick == "array":
                data = b"[" + b",".join(data.split(b"\n")) + b"]"
            elif trick == "bigline":
                data = data + b'{"_pk": 999999, "name": "' + b"y" * 2_000_000 + b'", "qty": 1}\n'
            elif trick == "deep":
                data = b"[" * 200000 + b"]" * 200000 + b"\n"
        if hostile and r.random() < 0.1:   # a directory, or nothing, where the file should be
            f = r.choice([self.dir, self.path("missing.jsonl")])
        else:
            f = self.path(f"load-{r.randrange(10**6)}.jsonl")
            open(f, "wb").write(data)
        stdin = None
        if r.random() < 0.15:
            stdin, f = data, "-"
        res, before = self.judged(store, ["load", store, ent, f] + (["--json"] if r.random() < 0.2 else []), "load", foreign, stdin=stdin)
        if res.rc != 0:
            return
        if not foreign:
            self.verify(store, "load", res)
        after = Snapshot(store, m)
        root = "Item" if ent in ("Item", "SpecialItem") else ent
        added = set(after.rows.get(root, {})) - set(before.rows.get(root, {}))
        count = reported(res, "loaded")
        if count is not None and count != len(added):
            raise Failure(f"load said {count} objects, {len(added)} rows appeared", res)
        if hostile:
            return
        if len(added) != len(objs):
            raise Failure(f"load exited 0 with {len(objs)} lines, {len(added)} rows appeared", res)
        for o in objs:
            row = after.rows.get(root, {}).get(o["_pk"])
            for a, v in o.items():
                if a.startswith("_") or not isinstance(v, (int, str)) or isinstance(v, bool) or a in ("parts", "tags", "item"):
                    continue
                t = m.attrs("Item" if root == "Item" else root).get(a, ("?", 0))[0]
                if t in INT_RANGE or t == "string":
                    got = after.value(row, a)
                    got = got.decode("utf-8", "surrogateescape") if isinstance(got, bytes) else got
                    if got != v:
                        raise Failure(f"load: {root} {o['_pk']}.{a} holds {got!r:.60}, the line said {v!r:.60}", res)

    def req_fetch(self, store, foreign):
        r, m = self.rng, self.m
        pred = simple_pred(m, r) if r.random() < 0.6 else hostile_pred(m, r)
        ent = r.choice(["Item", "Item", "Part", "SpecialItem" if m.child else "Item", "Nope"])
        args = ["fetch", store, ent]
        if ent == "Item" or r.random() < 0.3:
            args += ["--where", pred.text]
        if r.random() < 0.3:
            args += ["--sort", r.choice(["name", "-qty", "price,-name", "parts.@count", "nosuch", "item.name", "-", ",,", "qty,qty"])]
        if r.random() < 0.2:
            args += ["--limit", r.choice(["0", "1", "-1", "9223372036854775807", "99999999999999999999", "x"])]
        if r.random() < 0.2:
            args += ["--offset", r.choice(["0", "3", "-5", "9223372036854775807"])]
        if r.random() < 0.2:
            args += ["--properties", r.choice(["name,qty", "parts.@count", "name,item.name", "nosuch", "qty * 2", "qty * 9223372036854775807", ""])]
        count = r.random() < 0.3
        args += ["--count"] if count else ["--json"] if r.random() < 0.7 else []
        if r.random() < 0.1:
            args.append("--no-subentities")
        res, before = self.judged(store, args, "fetch", foreign)
        if res.rc != 0:
            return
        if "--json" in args:
            for line in res.out.splitlines():
                try:
                    json.loads(line)
                except ValueError:
                    raise Failure(f"fetch --json printed a line that is no JSON: {line[:100]!r}", res)
        if count and ent == "Item" and pred.fn and "--limit" not in args and "--offset" not in args and "--where" in args and "--no-subentities" not in args and not foreign:
            sel = [pred.fn(before, row) for row in before.of("Item").values()]
            if None not in sel and res.out.strip() != str(sum(sel)):
                raise Failure(f"fetch --count --where {pred.text!r} printed {res.out.strip()[:40]!r}, Python counts {sum(sel)}", res)

    def req_dump(self, store, foreign):
        r = self.rng
        ent = r.choice(["Item", "Part", "Tag", "SpecialItem", "Nope"])
        args = ["dump", store, ent] + (["--limit", r.choice(["0", "2", "-1", "99999999999999999999"])] if r.random() < 0.2 else [])
        res, before = self.judged(store, args, "dump", foreign)
        if res.rc == 0:
            n = 0
            for line in res.out.splitlines():
                try:
                    json.loads(line)
                    n += 1
                except ValueError:
                    raise Failure(f"dump printed a line that is no JSON: {line[:100]!r}", res)
            if "--limit" not in args and ent in ("Item", "Part") and n != len(before.of(ent)):
                raise Failure(f"dump {ent} printed {n} objects of {len(before.of(ent))}", res)

    # ================================================================ signals
    def signals(self):
        r = self.rng
        what = r.choice(["apply", "update", "delete", "load", "fleet apply", "create --force"])
        self.notes.append(what)
        m = self.make_model(big=True, mapping=r.random() < 0.3, deletable=True)
        version = 1 if what in ("apply", "fleet apply") else 2
        store = self.make_store("s.sqlite", version, items=r.randint(20, 60))
        loadfile = self.path("big.jsonl")
        cmd = {"apply": ["apply", store] + (["--verify"] if r.random() < 0.3 else []),
               "update": ["update", store, "Item", "--set", "qty = qty + 1" if m.qty_max is None else "qty = 1", "--set", "note = 'upd'"]
               + (["--where", "price != nil"] if r.random() < 0.3 else []),
               "delete": ["delete", store] + r.choice([["Item"], ["Item", "--where", "qty > 0"], ["Part"], ["Part", "--where", "weight > 10"]]),
               "load": ["load", store, "Tag" if m.tags and r.random() < 0.3 else "Part", loadfile],
               "fleet apply": ["fleet", "apply", store] + (["--jobs", "1"] if r.random() < 0.5 else []),
               "create --force": ["create", store, "--force", "--version", "2"]}[what]
        # Size the store so that the uninterrupted command takes at least ~0.3 s (on a copy).
        factor, secs = 1, 0.0
        for _ in range(6):
            if what == "load":
                n = 2000 * factor
                ent = cmd[2]
                objs = ({"word": f"w{i}"} if ent == "Tag" else dict({"label": f"l{i}", "weight": i % 100}, **({"item": 1} if m.part_required else {}))
                        for i in range(n))
                open(loadfile, "w").write("\n".join(json.dumps(o) for o in objs) + "\n")
            shutil.copyfile(store, self.path("timing.sqlite"))
            res = run(self.cmd(*[self.path("timing.sqlite") if a == store else a for a in cmd]), self.dir, timeout=120)
            check(res, {0}, f"uninterrupted {what} on a copy: ")
            secs = res.secs
            if secs >= 0.3 or what == "create --force":
                break
            grow = max(2, min(16, int(0.6 / max(secs, 0.02)) + 1))
            if what != "load":
                self.grow(store, grow)
            factor *= grow
        else:
            # Still under 0.3 s after the last growth: the reference is the grown store's.
            shutil.copyfile(store, self.path("timing.sqlite"))
            res = run(self.cmd(*[self.path("timing.sqlite") if a == store else a for a in cmd]), self.dir, timeout=120)
            check(res, {0}, f"uninterrupted {what} on a copy: ")
            secs = res.secs
        reference = logical(self.path("timing.sqlite"))
        before = self.state(store)
        delay = (r.uniform(0.0, 1.2) if r.random() < 0.7 else r.uniform(0.85, 1.05)) * secs   # also near the commit
        sig = r.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGXCPU, signal.SIGUSR1, signal.SIGUSR2])
        self.notes.append(f"{signal.Signals(sig).name} after {delay * 1000:.0f} of {secs * 1000:.0f} ms")
        p = subprocess.Popen(self.cmd(*cmd), cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        time.sleep(delay)
        p.send_signal(sig)
        try:
            out, err = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            raise Failure(f"{what} hung after {signal.Signals(sig).name}", Result(cmd, None, out.decode(errors='replace'), err.decode(errors='replace'), 0, True))
        res = Result(self.cmd(*cmd), p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), 0)
        self.last = res
        if any(x in res.err for x in CRASH_MARKS) or res.rc not in (0, 128 + sig, -sig):
            raise Failure(f"{what}: exit {res.rc} after {signal.Signals(sig).name}", res)
        self.no_journal(store, f"{what} after a signal", res)
        old = self.state(store)[0] == before[0]
        new = not old and logical(store) == reference
        if not old and not new:
            raise Failure(f"{what} exit {res.rc} after {signal.Signals(sig).name}: the store is neither as before nor as an "
                          f"uninterrupted run leaves it", res)
        if res.rc == 128 + sig and what == "fleet apply":   # the summary says what was done; the rest rolled back
            if f"stopped by signal {sig}" not in res.out:
                raise Failure(f"fleet apply exit {res.rc} without `stopped by signal {sig}` in its summary", res)
            if new != bool(re.search(r"\b1 migrated", res.out)):
                raise Failure(f"fleet apply stopped: the summary says {res.out.splitlines()[0][:120]!r}, the store is {'new' if new else 'old'}", res)
            self.outcome = "stopped, store " + ("migrated" if new else "unchanged")
        elif res.rc == 128 + sig:
            if INTERRUPTED not in res.err:
                raise Failure(f"{what}: exit {res.rc} without `{INTERRUPTED}`", res)
            if not old:
                raise Failure(f"{what}: `{INTERRUPTED}` but the store is the new one", res)
            self.outcome = "rolled back"
        elif res.rc == -sig:   # the signal's default action: before the watcher is installed, or after it stopped
            if new and what != "create --force":
                raise Failure(f"{what} was killed by {signal.Signals(sig).name} after its commit: the shell sees exit {128 + sig} "
                              f"(`interrupted`) but the store changed", res)
            self.outcome = "died before work" if old else "died after commit"
        else:
            if old:
                raise Failure(f"{what} exited 0 after {signal.Signals(sig).name} but the store is unchanged", res)
            self.outcome = "completed"
        self.outcome = f"{what}: {self.outcome}"
        again = run(self.cmd(*cmd), self.dir, timeout=120)
        if what == "load" and self.outcome.endswith(("completed", "died after commit")):
            check(again, {0, 1}, f"{what} run again: ")
        else:
            check(again, {0}, f"{what} run again: ")
        self.no_journal(store, f"{what} run again", again)
        if what != "create --force":
            self.verify(store, what + " run again", again) if version == 2 or "apply" in what else None

    # ================================================================ mapping-folder
    def mapping_folder(self):
        r = self.rng
        m = self.make_model(mapping=True, lean=True)
        store = self.make_store("s.sqlite", 1)
        start = Snapshot(store, m, 1)
        qty = {pk: row["ZQTY"] for pk, row in start.rows["Item"].items()}
        mapped = {pk for pk, row in start.rows["Item"].items() if row["Z_ENT"] == start.ent["Item"]}   # SpecialItem: inferred
        if m.qty_max is not None and any(abs(2 * q) > m.qty_max for q in qty.values()):
            pass   # a doubled value above max: apply may refuse it (exit 1/4), never infer
        folder, mfile, mig = self.path("Migrations", m.name), self.path("Migrations", m.name, "1-to-2.yaml"), self.path("Migrations")
        how = r.choice(["nobody-folder", "nobody-migrations", "nobody-file", "loop", "loop2", "file", "migrations-file", "file-dir",
                        "dangling", "ulimit-n", "nobody-ok"])
        if how.startswith("nobody") and not (os.geteuid() == 0 and shutil.which("setpriv")):   # then another user's files
            how = r.choice(["loop", "loop2", "file", "migrations-file", "file-dir", "dangling", "ulimit-n"])
        self.notes.append(how)
        prefix = None
        if how.startswith("nobody"):
            for root, dirs, files in os.walk(self.dir):
                for x in dirs + files:
                    os.chown(os.path.join(root, x), 65534, 65534)
            os.chown(self.dir, 65534, 65534)
            os.chmod(self.dir, 0o755)
            target = {"nobody-folder": folder, "nobody-migrations": mig, "nobody-file": mfile, "nobody-ok": None}[how]
            if target:
                os.chown(target, 0, 0)
                os.chmod(target, 0o600 if target == mfile else 0o700)
            prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        elif how == "loop":
            shutil.rmtree(folder)
            os.symlink(folder, folder)
        elif how == "loop2":
            shutil.rmtree(folder)
            os.symlink(folder + "-b", folder)
            os.symlink(folder, folder + "-b")
        elif how == "file":
            shutil.rmtree(folder)
            open(folder, "w").write(m.mapping())
        elif how == "migrations-file":
            shutil.rmtree(mig)
            open(mig, "w").write("")
        elif how == "file-dir":
            os.remove(mfile)
            os.makedirs(mfile)
        elif how == "dangling":
            os.remove(mfile)
            os.symlink(self.path("nowhere.yaml"), mfile)
        elif how == "ulimit-n":
            n = r.randint(3, 12)
            self.notes.append(f"ulimit -n {n}")
            prefix = ["bash", "-c", f'ulimit -n {n}; exec "$0" "$@"']
        before = self.state(store)
        codes = []
        for c in (["status", store], ["plan", store], ["apply", store], ["fleet", "status", store], ["fleet", "apply", store]):
            kind = " ".join(c[:2]) if c[0] == "fleet" else c[0]
            res = run(self.cmd(*c), self.dir, prefix=prefix)
            self.last = res
            if res.rc == 127 and "error while loading shared libraries" in res.err:
                self.outcome = f"{how}: the loader itself cannot start"
                return
            check(res, ALLOWED[kind] | {64}, f"{kind}: ")
            codes.append(str(res.rc))
            if kind in ("status", "fleet status") and res.rc == 0:
                raise Failure(f"{kind} exit 0 on a store that needs a migration", res)
            if kind == "plan" and res.rc == 0 and "1-to-2.yaml" not in res.out + res.err:
                raise Failure("plan exit 0 without naming the mapping file 1-to-2.yaml (the hop was inferred)", res)
            if kind in ("apply", "fleet apply") and res.rc == 0:
                after = Snapshot(store, m)
                got = {pk: row["ZQTY"] for pk, row in after.rows["Item"].items()}
                if got != {pk: 2 * q if pk in mapped else q for pk, q in qty.items()}:
                    raise Failure(f"{kind} exit 0 but Item.qty was not doubled by 1-to-2.yaml: the hop was inferred "
                                  f"(before {sorted(qty.items())[:3]}, after {sorted(got.items())[:3]})", res)
                self.outcome = f"{how}: {kind} applied the mapping"
                return
            self.no_journal(store, kind, res)
            self.unchanged(store, before, f"{kind} exit {res.rc}", res)
        self.outcome = f"{how}: refused ({'/'.join(codes)})"
        if how == "nobody-ok":
            raise Failure("a readable mapping folder (run as nobody) was refused", self.last)

    # ================================================================ limits
    def limits(self):
        r = self.rng
        what = r.choice(["apply", "update", "delete", "load", "fleet apply", "fleet status"])
        limit = r.choice(["v", "v", "n", "f"])
        m = self.make_model(lean=True, mapping=r.random() < 0.3)
        version = 1 if what in ("apply", "fleet apply", "fleet status") else 2
        store = self.make_store("s.sqlite", version, items=r.randint(5, 40))
        if r.random() < 0.5:
            self.grow(store, r.randint(2, 30))
        loadfile = self.path("more.jsonl")
        open(loadfile, "w").write("\n".join(json.dumps(dict({"label": f"l{i}", "weight": i}, **({"item": 1} if m.part_required else {})))
                                            for i in range(r.randint(1, 3000))) + "\n")
        cmd = {"apply": ["apply", store] + r.choice([[], ["--verify"], ["--backup", self.path("b.sqlite")]]),
               "update": ["update", store, "Item", "--set", "note = name + 'x'", "--set", "qty = 0"],
               "delete": ["delete", store, r.choice(["Item", "Part"]), "--where", "qty > 0" if r.random() < 0.5 else "TRUEPREDICATE"],
               "load": ["load", store, "Part", loadfile], "fleet apply": ["fleet", "apply", store] + r.choice([[], ["--jobs", "2"], ["--verify"]]),
               "fleet status": ["fleet", "status", store]}[what]
        if cmd[0] == "delete" and cmd[2] == "Part":
            cmd[-1] = "weight > 3"
        shutil.copyfile(store, self.path("ref.sqlite"))
        ref = run(self.cmd(*[self.path("ref.sqlite") if a == store else a for a in cmd]), self.dir)
        check(ref, ALLOWED[what] - {1} | ({1} if what == "delete" else set()), f"unlimited {what} on a copy: ")
        val = {"v": r.randint(100, 400) * 1024, "n": r.randint(3, 20), "f": None}[limit]
        if limit == "f":
            val = max(1, os.path.getsize(store) // 1024 + r.randint(-8, 16))
        self.notes.append(f"ulimit -{limit} {val}")
        before = self.state(store)
        res = run(self.cmd(*cmd), self.dir, prefix=["bash", "-c", f"ulimit -{limit} {val}; trap '' XFSZ; exec \"$0\" \"$@\""])
        self.last = res
        if res.rc == 127 and "error while loading shared libraries" in res.err:
            self.unchanged(store, before, f"{what} not started", res)
            self.outcome = f"loader cannot start (ulimit -{limit})"
            return
        if res.hung:
            raise Failure(f"{what} under ulimit -{limit} {val} hung", res)
        if os.path.exists(store + "-journal") and res.rc != 0 and limit == "f":
            # A file over the size limit cannot be written back, not even by SQLite's rollback: the journal stays,
            # and the next opener replays it. Then the command must say it could not prove the store unchanged.
            for s in ("", "-journal"):
                shutil.copyfile(store + s, self.path("replay.sqlite" + s))
            connect(self.path("replay.sqlite"), ro=False).execute("SELECT count(*) FROM sqlite_master").fetchall()
            if open(self.path("replay.sqlite"), "rb").read() != before[0]:
                raise Failure(f"{what} under ulimit -f {val}: the store with its journal replayed is not the store before", res)
            claim = re.search(r"nothing was (changed|loaded|deleted)", res.err)
            if claim and "could not be proven unchanged" not in res.err:
                raise Failure(f"{what} under ulimit -f {val} says `{claim.group(0)}` and leaves a hot journal "
                              f"({os.path.getsize(store + '-journal')} bytes) without checking the store (apply says it could not prove it unchanged)", res)
            self.outcome = f"-f {what}: journal left, said so, replays to the original"
            return
        self.no_journal(store, what, res)
        if limit == "v" and (res.rc < 0 or res.rc >= 128):
            # The Swift runtime cannot run in too small an address space: "failed to allocate" (134), or a
            # trap or fault while it reports that. Counted apart, where it happened, when the store is unchanged.
            self.unchanged(store, before, f"{what} aborted for memory", res)
            probe = run([self.migrate, "--help"], self.dir, prefix=["bash", "-c", f'ulimit -v {val}; exec "$0" "$@"'])
            first = [l for l in res.err.splitlines() if l.startswith("Fatal error") or any(l.startswith(x) for x in OOM_MARKS)]
            where = "at startup (--help dies too)" if probe.rc != 0 else (first[0][:60] if first else f"in {what}, silently")
            self.outcome = f"oom-abort exit {res.rc} {where}"
            return
        check(res, ALLOWED[what] | {64}, f"{what} under ulimit -{limit} {val}: ")
        if res.rc == ref.rc and res.rc == 0:
            if what != "fleet status" and logical(store) != logical(self.path("ref.sqlite")):
                raise Failure(f"{what} exited 0 under ulimit -{limit} {val} with data other than an unlimited run's", res)
            self.outcome = f"-{limit} {what}: completed"
        elif res.rc == 0:
            raise Failure(f"{what} exited 0 under ulimit -{limit} {val} where an unlimited run exits {ref.rc}", res)
        else:
            self.unchanged(store, before, f"{what} exit {res.rc} under ulimit -{limit}", res)
            self.outcome = f"-{limit} {what}: " + (f"refused ({res.head()[:70]})" if res.rc != ref.rc else f"exit {res.rc} as unlimited")


    # ================================================================ exits
    def exits(self):
        """A closed stdout under apply, kill -9 during a backup copy or a reader's private copy, a full $TMPDIR."""
        r = self.rng
        how = r.choice(["pipe", "kill-backup", "kill-reader", "full-tmp"])
        self.notes.append(how)
        tmp = self.path("tmp")
        os.makedirs(tmp, exist_ok=True)
        env = dict(os.environ, TMPDIR=tmp)
        self.make_model(big=True, mapping=r.random() < 0.3)
        store = self.make_store("s.sqlite", 1 if how in ("pipe", "kill-backup") else 2, items=r.randint(20, 60))
        self.grow(store, r.choice([4, 16, 64]))
        before = self.state(store)

        def leftovers():
            found = []
            for root, dirs, files in os.walk(self.dir):
                found += [os.path.join(root, x) for x in dirs + files if ".mm-scratch." in x]
            return found

        if how == "pipe":
            shutil.copyfile(store, self.path("ref.sqlite"))
            check(run(self.cmd("apply", self.path("ref.sqlite")), self.dir, env=env), {0}, "uninterrupted apply on a copy: ")
            reader = r.choice(["head -n 1", "head -c 1", "true", "sleep 0.05"])
            self.notes.append(reader)
            line = " ".join(shlex_quote(a) for a in self.cmd("apply", store, "--json")) + f" | {reader}; exit ${{PIPESTATUS[0]}}"
            res = run(["bash", "-c", line], self.dir, env=env)
            self.last = res
            if res.rc != 0 or crashed(res):
                raise Failure(f"apply with its stdout closed by `{reader}` exited {res.rc} (SIGPIPE is 141)", res)
            self.no_journal(store, "apply under a closed pipe", res)
            if logical(store) != logical(self.path("ref.sqlite")):
                raise Failure("apply exited 0 under a closed pipe, and the store is not what an uninterrupted run leaves", res)
            self.outcome = "pipe: migrated" + (", said so" if "standard output could not be written" in res.err else "")
        elif how in ("kill-backup", "kill-reader"):
            if how == "kill-backup":
                args = self.cmd("apply", store, "--backup-dir", "bk")
            else:
                self.wal_store(store)
                args = self.cmd("dump", store, "Item")
            p = subprocess.Popen(args, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
            time.sleep(r.uniform(0.0, 0.6))
            p.kill()
            p.wait()
            left = leftovers()
            self.notes.append(f"{len(left)} left by the kill")
            nxt = (self.cmd("apply", store, "--backup-dir", "bk") if how == "kill-backup" else self.cmd("validate"))
            res = check(run(nxt, self.dir, env=env), {0}, "the run after a kill -9: ")
            if leftovers():
                raise Failure(f"temporary files of the killed run are still there after the next run: {leftovers()}", res)
            for path in left:
                if f"note: removed {os.path.relpath(path, self.dir)}" not in res.err and f"note: removed {path}" not in res.err:
                    raise Failure(f"the next run removed {path} without saying so", res)
            self.outcome = f"{how}: {'removed ' + str(len(left)) if left else 'nothing left'}"
        else:
            self.wal_store(store)
            before = self.state(store)
            what = r.choice([["status", store], ["plan", store], ["dump", store, "Item"], ["inspect", store]])
            limit = r.choice([1, 4, 16])
            res = run(self.cmd(*what), self.dir, env=env, prefix=["bash", "-c", f'ulimit -f {limit}; exec "$0" "$@"'])
            self.last = res
            if crashed(res):
                raise Failure(f"{what[0]} with a full $TMPDIR crashed (exit {res.rc})", res)
            if res.rc not in (0, 1):
                raise Failure(f"{what[0]} with a full $TMPDIR exited {res.rc}", res)
            if res.rc == 1 and "set TMPDIR to a folder with room" not in res.err:
                raise Failure(f"{what[0]} failed with a full $TMPDIR without saying what to do", res)
            if os.listdir(tmp):
                raise Failure(f"{what[0]} left {os.listdir(tmp)} in $TMPDIR", res)
            if self.state(store) != before or os.path.exists(store + "-shm"):
                raise Failure(f"{what[0]} with a full $TMPDIR changed the store, its -wal, or made a -shm", res)
            self.outcome = f"full-tmp {what[0]}: exit {res.rc}"

    # ================================================================ values
    def values(self):
        """Values that no attribute holds exactly: abs: of Int64.min, decimals beyond NSDecimalNumber."""
        r = self.rng
        m = self.make_model(lean=True)
        store = self.make_store("s.sqlite", 2, items=r.randint(3, 15))
        decimals = [n for n, (t, _) in m.extras.items() if t == "decimal" and n != m.dropped]
        minimum = "(qty * 0 - 9223372036854775807 - 1)"
        ops = [("update abs", ["update", store, "Item", "--set", f"qty = abs:{minimum}"], {1}),
               ("delete abs", ["delete", store, "Item", "--where", f"NOT (abs:{minimum} > 5)"], {1})]
        if decimals:
            d = r.choice(decimals)
            ops += [("update decimal", ["update", store, "Item", "--set", f"{d} = {d} * 1e200"], {0, 1}),
                    ("load decimal", ["load", store, "Item", self.path("dec.jsonl")], {1})]
            big = r.choice(["1e200", "-1e-200", "1e166", "99999999999999999999999999999999999999e128"])
            open(self.path("dec.jsonl"), "w").write(json.dumps({"name": "d", "qty": 1, d: big}) + "\n")
        what, args, allowed = r.choice(ops)
        self.notes.append(what)
        before = self.state(store)
        res = check(run(self.cmd(*args), self.dir), allowed, f"{what}: ")
        self.last = res
        if res.rc != 0:
            self.unchanged(store, before, what, res)
            self.outcome = f"{what}: refused"
            return
        # Exit 0 (an update of nil decimals): every decimal stored is one NSDecimalNumber holds.
        import decimal as _decimal
        con = sqlite3.connect(store)
        for d in decimals:
            for (v,) in con.execute(f'SELECT "Z{d.upper()}" FROM ZITEM WHERE "Z{d.upper()}" IS NOT NULL'):
                x = _decimal.Decimal(str(v))
                if not x.is_finite() or (x != 0 and not (_decimal.Decimal("1e-128") <= abs(x) < _decimal.Decimal("1e165"))):
                    raise Failure(f"{what} exited 0 and stored {v!r}, which no decimal holds", res)
        con.close()
        self.outcome = f"{what}: nothing to refuse"

    def wal_store(self, store):
        """Turns the store into a WAL store whose last commit is only in its -wal (no -shm): readers must copy it."""
        con = sqlite3.connect(store, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA wal_autocheckpoint=0")
        con.execute("UPDATE ZITEM SET Z_OPT = Z_OPT + 1 WHERE Z_PK = 1")
        for suffix in ("", "-wal"):
            shutil.copyfile(store + suffix, store + ".copy" + suffix)
        con.close()
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
        for suffix in ("", "-wal"):
            os.rename(store + ".copy" + suffix, store + suffix)


def shlex_quote(a):
    return "'" + a.replace("'", "'\\''") + "'"


def reported(res, verb):
    """The count a command printed: `updated 3 objects`, `{"matched": 3}`, `loaded 3 Item objects`."""
    m = re.search(r"^\{.*\}$", res.out.strip(), re.S)
    if m:
        try:
            j = json.loads(res.out.strip())
            return sum(j["byEntity"].values()) if "byEntity" in j else j.get("loaded")
        except ValueError:
            return None
    m = re.search(rf"{verb} (\d+)", res.out)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=40, help="number of trials (default 40), dealt to the families in turn")
    ap.add_argument("--seed", default=str(random.randrange(10**6)))
    ap.add_argument("--start", type=int, default=1, help="number of the first trial")
    ap.add_argument("--migrate", default=".build/debug/migrate")
    ap.add_argument("--family", help="comma-separated families: " + ", ".join(FAMILIES))
    ap.add_argument("--keep", action="store_true", help="keep the folders of passing trials too")
    args = ap.parse_args()
    migrate = os.path.abspath(args.migrate)
    fams = args.family.split(",") if args.family else FAMILIES
    if not set(fams) <= set(FAMILIES):
        sys.exit(f"hostile_commands: unknown family in {fams}; the families: {', '.join(FAMILIES)}")
    if not os.access(migrate, os.X_OK):
        sys.exit(f"hostile_commands: {migrate} is not an executable (build it, or pass --migrate)")
    if "mapping-folder" in fams and os.geteuid() == 0:   # nobody must reach the binary and the temp folders
        p = migrate
        while p != "/":
            if not os.stat(p).st_mode & 0o001:
                print(f"hostile_commands: note: {p} is not searchable by others; setpriv trials will fail to start", file=sys.stderr)
            p = os.path.dirname(p)
    print(f"hostile_commands: seed {args.seed}, trials {args.start}..{args.start + args.n - 1}, families {','.join(fams)}, {migrate}", flush=True)
    passed, failed, per = 0, 0, {f: {} for f in fams}
    for k in range(args.start, args.start + args.n):
        fam = fams[(k - 1) % len(fams)]
        t = Trial(args.seed, k, fam, migrate, args.keep)
        try:
            getattr(t, fam.replace("-", "_"))()
            passed += 1
            if not args.keep:
                shutil.rmtree(t.dir, ignore_errors=True)
        except Exception as e:
            failed, t.outcome = failed + 1, "FAILED"
            f = e if isinstance(e, Failure) else Failure(f"SCRIPT ERROR {e!r}", t.last)
            res = f.res
            line = (f"FAIL seed={args.seed} trial={k} family={fam} [{'; '.join(map(str, t.notes))[:300]}] {f.what}"
                    + (f" | cmd: {res.show()}" if res else "") + (f" | exit {res.rc}: {res.head()}" if res else "") + f" | dir: {t.dir}")
            print(line, flush=True)
            open(os.path.join(t.dir, "FAILURE.txt"), "w").write(line + "\n" + (res.err if res else "") + "\n" + traceback.format_exc())
        per[fam][t.outcome] = per[fam].get(t.outcome, 0) + 1
    for fam, c in per.items():
        if c:
            print(f"{fam}: {sum(c.values())} trials: " + ", ".join(f"{o} x{n}" for o, n in sorted(c.items())))
    if EXITS:
        print("requests run: " + ", ".join(f"{k} exit {c} x{n}" for (k, c), n in sorted(EXITS.items())))
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
