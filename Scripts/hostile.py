#!/usr/bin/env python3
"""Hostile stores for `migrate`: random model histories and stores, one hostility per trial.

    python3 Scripts/hostile.py [N] [--seed S] [--start K] [--migrate PATH] [--only H,H] [--keep]

N trials (default 100); trial K draws from random.Random("S/K"): `hostile.py 1 --seed S --start K`
replays it. --migrate defaults to .build/debug/migrate. Needs Python 3 and bash only. A failed trial
prints one line (seed, trial, hostility, what failed, command, exit code, first stderr lines) and
keeps its folder (FAILURE.txt; hostile/: the store as the hostility left it; ref/: the reference).
Last lines: outcomes per hostility, then `N passed, M failed` (exit 1 if any failed).

A trial, in a temp folder:
 1. Models/<Name>/1..N.yaml, N = 2-4. Version 1: a root A, one-to-many to B, many-to-many to C; a
    hierarchy H (maybe abstract) with children H1, H2; to-ones A -> H1 and H1 -> H; a many-to-many
    H2 <-> B; attributes of every stored type, optional or required, some with defaults. Each later
    version makes 1-4 changes: attributes added, removed, renamed (renamedFrom), widened (integer16
    -> 32 -> 64 -> double/decimal, float -> double), made required with a default or optional;
    entities renamed or added, children added anywhere; a to-one made to-many; order added or
    dropped; relationships renamed or added; index/default-only changes; a required attribute
    without default filled by a mapping file (`{ default: V }` or `$source.q`). Models that
    `migrate validate` refuses fail the trial as a SCRIPT BUG.
 2. `migrate create --version 1` (1 in 4 --for-core-data); a few hundred rows (thousands for kills)
    written with sqlite3 in the layout `migrate compile` reports.
 3. One hostility ("legit": a correct store, which apply must migrate):
      none                 control (legit)
      swap_names           two Z_PRIMARYKEY.Z_NAME swapped, mostly of two children of one parent
      zent_unknown         a row's Z_ENT set to 999, 0, -1, NULL, 2^62, 'x' or max+1
      zent_other           a row's Z_ENT set to an entity of another table
      dangling_to_one/join a to-one key, or a join-table pair, at a missing row (legit)
      wrong_entity         a key into a hierarchy table at a row of the wrong entity
      huge_pk              a Z_PK near 2^63; Z_MAX and, half the time, references follow (legit)
      huge_zmax            a Z_MAX near 2^63 (legit)
      huge_zent            Z_PRIMARYKEY gains, or an entity moves to, a Z_ENT of 2^31-1 ... 2^63-1
      delete_pk_rows       one or all Z_PRIMARYKEY rows deleted
      truncate, overwrite  the file cut; random bytes or pages written into it
      stale_journal        a -journal: hot (a writer killed mid-transaction), garbage, empty, zeroed (legit)
      fifo, symlink, symlink_dangling: the store path is a FIFO, a symlink to the store (legit), to nothing
      wrong_mapping        a mapping file moved or copied to another hop's name
      ulimit               apply under `ulimit -f K`, SIGXFSZ ignored, K near the store's size
      kill, kill_backup    apply (with --backup) SIGKILLed at a random moment, then run again (legit)
      reader               another process holds a read transaction during apply --timeout 1 (legit)
      two_paths            one store reached by several paths (itself, a hard link, relative and absolute
                           symlinks, a path listed twice), migrated at once by 2-3 `apply --backup-dir`, by one
                           `fleet apply --backup-dir --jobs J` over those paths, or both (legit)
 4. status, plan, apply --verify (3 in 10 with --backup), each within 60 s. A failure: a hang; a crash
    (exit >= 128, a signal, "Fatal error", "arithmetic overflow"... on stderr); an exit code the README
    does not give that command; status or plan changing the file or leaving a hot journal; and
    - apply exit 0: then status 0, PRAGMA quick_check ok, and every row of the reference there (same
      table through renames, Z_PK, entity), every value as the versions say (renames, widening,
      defaults filling new or newly required attributes, mapping values; not the properties a
      wrong-hop mapping names), every relationship's (source, destination) pairs, dangling ones
      included; a --backup equal to the reference;
    - apply exit != 0: after the next status no hot journal, the file byte-identical to the reference,
      no partial backup; for a legit hostility the refusal itself is a failure;
    - kills: status 3 and the file identical, or 0 and everything migrated; a backup that exists equals
      the reference; a second apply migrates everything. reader: apply --timeout 1 exits 1 within 6 s,
      store unchanged, then migrates. fifo, symlink_dangling: every command exits 1, 4 or 5, the FIFO
      stays a FIFO, the symlink's target is not created.
    - two_paths: exactly one run reports "migrated"; every apply exits 0 ("migrated", or "nothing to do"), or 1
      saying the store changed or was locked "..., so this run kept no backup in backups"; the fleet reports each
      path once, the first one listed migrated (or current: an apply was first) and every later path to the
      same file "duplicate" of it; exactly one file in backups/ (searched, temporary files included), named
      <the migrating path>.v1-to-N.<time>.sqlite, whose dump equals the reference; the store migrated as above.
    Any apply that exits != 0 with --backup leaves no file at the backup path.
    The reference: a copy of the hostile store and journal opened by sqlite3 (which rolls a hot journal
    back); its rows, read as version 1, are carried through the versions in Python.
"""
import argparse, copy, hashlib, json, os, random, re, shutil, signal, sqlite3, stat, subprocess, sys, tempfile, time, traceback
from decimal import Decimal, InvalidOperation

TIMEOUT = 60
CRASH_MARKS = ("Fatal error", "arithmetic overflow", "Illegal instruction", "Segmentation fault", "Bus error",
               "Trace/breakpoint", "Current stack trace", "Stack dump", "core dumped")
INT_RANGE = {"integer16": (-2**15, 2**15 - 1), "integer32": (-2**31, 2**31 - 1), "integer64": (-2**63, 2**63 - 1)}
TYPES = list(INT_RANGE) + ["double", "float", "string", "boolean", "date", "decimal", "binary", "uuid"]
FILLABLE = list(INT_RANGE) + ["double", "string", "boolean"]   # defaults whose stored form is plain
WIDEN = {"integer16": ["integer32", "integer64", "double", "decimal"], "integer32": ["integer64", "double", "decimal"],
         "integer64": ["double", "decimal"], "float": ["double"]}
STRINGS = ["", "plain", "O'Brien \"q\"", "línea\nzwei 漢字 🙂", "nul\x00inside", "%s;--", " lead and trail "]
WORDS = "amber basil cedar dune ember fjord grove heath iris juniper kelp lotus maple nettle olive pine quartz reed sage thyme umber vale willow yarrow zinnia".split()
MENU = ["none", "swap_names", "zent_unknown", "zent_other", "dangling_to_one", "dangling_join", "wrong_entity", "huge_pk",
        "huge_zmax", "huge_zent", "delete_pk_rows", "truncate", "overwrite", "stale_journal", "fifo", "symlink",
        "symlink_dangling", "wrong_mapping", "ulimit", "kill", "kill_backup", "reader", "two_paths"]
LEGIT = {"none", "dangling_to_one", "dangling_join", "huge_pk", "huge_zmax", "symlink", "stale_journal", "kill", "kill_backup", "reader",
         "two_paths"}
CHANGES = ["add_attr", "remove_attr", "rename_attr", "widen", "require", "unrequire", "rename_entity", "add_entity",
           "add_child", "to_many", "order", "rename_rel", "add_rel", "layout_only", "mapping"]
MISSING = object()
UNREADABLE = (sqlite3.Error, KeyError, TypeError, UnicodeDecodeError)   # a store that cannot be read as the model says


class Failure(Exception):
    def __init__(self, what, cmd=None, res=None):
        super().__init__(what)
        self.what, self.cmd, self.res = what, cmd, res


# ---------------------------------------------------------------- model histories
# A version: {"ents": {id: entity}, "rels": {id: pair}, "map": the mapping file of the hop into it}. Ids are
# stable across versions (names change with renames); a pair has sides a and b: entity a, name an, to-many
# am, ordered ao, renamedFrom afrom, and the same for b.
def ancestors(v, eid):   # the entity, its parent, ..., its root
    return [eid] + ancestors(v, v["ents"][eid]["parent"]) if eid is not None else []

def attrs_of(v, eid):   # own and inherited attributes
    return {aid: a for x in ancestors(v, eid) for aid, a in v["ents"][x]["attrs"].items()}

def subtree(v, eid):
    return [x for x in v["ents"] if eid in ancestors(v, x)]

def children(v, eid):
    return [x for x, e in v["ents"].items() if e["parent"] == eid]


class History:
    def __init__(self, rng, need_mapping=False):
        self.rng, self.n, self.names = rng, 0, set()
        self.model = rng.choice(WORDS).capitalize() + "Model"
        v = {"ents": {}, "rels": {}, "map": None}
        A, B = self.entity(v, None, 2, 4), self.entity(v, None, 1, 3)
        H = self.entity(v, None, 1, 2, abstract=rng.random() < 0.3)
        H1, H2 = self.entity(v, H, 1, 2), self.entity(v, H, 0, 1)
        self.rel(v, A, True, B, False)
        for p, a, am, b, bm in [(0.8, A, True, None, True), (0.7, A, False, H1, True), (0.6, H1, False, H, True), (0.5, H2, True, B, True)]:
            if rng.random() < p:
                self.rel(v, a, am, b or self.entity(v, None, 1, 2), bm)
        self.versions = [v]
        for k in range(2, rng.randint(2, 4) + 1):
            prev, v = v, copy.deepcopy(v)
            v["map"] = None
            for x in list(v["ents"].values()) + [a for e in v["ents"].values() for a in e["attrs"].values()]:
                x["from"] = None
            for r in v["rels"].values():
                r["afrom"] = r["bfrom"] = None
            todo = rng.randint(1, 4)
            if need_mapping and k == 2:
                self.mapping(prev, v)
            while todo:
                todo -= bool(self.change(rng.choice(CHANGES), prev, v))
            self.versions.append(v)

    def pname(self):
        self.n += 1
        return f"{self.rng.choice(WORDS)}{self.n}"   # unique and lower-case: column Z<NAME> never clashes

    def entity(self, v, parent, lo, hi, abstract=False):
        words = iter(lambda: self.rng.choice(WORDS).capitalize() + self.rng.choice(["", "s", "Log", "Item", "X"]), None)
        name = next(n for n in words if n.lower() not in self.names)   # never reused, even after a rename
        self.names.add(name.lower())
        self.n += 1
        v["ents"][self.n] = e = {"id": self.n, "name": name, "parent": parent, "abstract": abstract, "from": None, "attrs": {}}
        for _ in range(self.rng.randint(lo, hi)):
            self.new_attr(e, first=True)
        return e["id"]

    def default(self, t):
        """(stored value, YAML literal) of a default of a FILLABLE type."""
        x = {"double": self.rng.randint(-1000, 1000) / 4, "string": f"d{self.rng.randint(0, 999)}",
             "boolean": self.rng.randint(0, 1)}.get(t, self.rng.randint(-100, 100))
        return x, repr(x) if t == "double" else f'"{x}"' if t == "string" else ("true" if x else "false") if t == "boolean" else str(x)

    def new_attr(self, e, first=False, t=None, opt=None):
        t = t or self.rng.choice(TYPES)
        opt = (self.rng.random() < 0.5 if opt is None else opt) or (not first and t not in FILLABLE)
        a = {"id": self.pname(), "type": t, "opt": opt, "dflt": None, "lit": None, "from": None, "idx": False}
        a["name"] = a["id"]
        if t in FILLABLE and ((not opt and not first) or self.rng.random() < 0.3):
            a["dflt"], a["lit"] = self.default(t)
        e["attrs"][a["id"]] = a
        return a

    def rel(self, v, a, am, b, bm):
        self.n += 1
        v["rels"][self.n] = {"id": self.n, "a": a, "an": self.pname(), "am": am, "ao": False,
                             "b": b, "bn": self.pname(), "bm": bm, "bo": False, "afrom": None, "bfrom": None}

    def change(self, op, prev, v):
        """One change between versions; False when it does not apply to this version."""
        r, ents, rels = self.rng, list(v["ents"].values()), list(v["rels"].values())
        mapped = set(v["map"]["props"]) if v["map"] else set()
        old = [(e, a) for e in ents for a in e["attrs"].values()   # attributes the previous version had
               if e["id"] in prev["ents"] and a["id"] in prev["ents"][e["id"]]["attrs"] and a["id"] not in mapped]
        pick = lambda c: r.choice(c) if c else None
        other = lambda s: "ab".replace(s, "")
        if op == "add_attr":
            return self.new_attr(r.choice(ents))
        if op == "add_entity":
            e = self.entity(v, None, 1, 2)
            return r.random() < 0.5 and self.rel(v, e, True, r.choice(list(v["ents"])), r.random() < 0.5) or True
        if op == "add_child":   # anywhere: under a root that had none, its references gain an entity column
            return self.entity(v, r.choice([x for x in v["ents"] if not (v["map"] and v["map"]["ent"] == x)]), 0, 1)
        if op == "add_rel":
            return self.rel(v, r.choice(ents)["id"], True, r.choice(ents)["id"], r.random() < 0.5) or True
        if op == "rename_entity":
            e = r.choice([e for e in ents if e["id"] in prev["ents"] and not e["from"]])
            e["from"], e["name"] = e["name"], v["ents"][self.entity(v, None, 0, 0)]["name"]
            return v["ents"].pop(self.n)
        if op == "mapping":
            return self.mapping(prev, v)
        if op == "remove_attr" and (x := pick([(e, a) for e, a in old if len(e["attrs"]) > 1])):
            return x[0]["attrs"].pop(x[1]["id"])
        if op == "rename_attr" and (a := pick([a for e, a in old if not a["from"]])):
            a["from"], a["name"] = a["name"], self.pname()
        elif op == "widen" and (a := pick([a for e, a in old if a["type"] in WIDEN])):
            a["type"] = t = r.choice(WIDEN[a["type"]])
            if a["dflt"] is not None and t in ("double", "decimal"):
                a["dflt"] = float(a["dflt"]) if t == "double" else Decimal(a["dflt"])
                a["lit"] = repr(a["dflt"]) if t == "double" else f'"{a["dflt"]}"'
        elif op == "require" and (a := pick([a for e, a in old if a["opt"] and a["type"] in FILLABLE])):
            a["opt"] = False
            if a["dflt"] is None:
                a["dflt"], a["lit"] = self.default(a["type"])
        elif op == "unrequire" and (a := pick([a for e, a in old if not a["opt"]])):
            a["opt"] = True
        elif op == "to_many" and (x := pick([(q, s) for q in rels for s in "ab" if not q[s + "m"] and q[other(s) + "m"]])):
            x[0][x[1] + "m"] = True
        elif op == "order" and (x := pick([(q, s) for q in rels for s in "ab" if q[s + "m"] and not q[other(s) + "o"]])):
            x[0][x[1] + "o"] = not x[0][x[1] + "o"]
        elif op == "rename_rel" and (x := pick([(q, s) for q in rels if q["id"] in prev["rels"] for s in "ab" if not q[s + "from"]])):
            x[0][x[1] + "from"], x[0][x[1] + "n"] = x[0][x[1] + "n"], self.pname()
        elif op == "layout_only" and (a := pick([a for e in ents for a in e["attrs"].values()])):
            if a["dflt"] is not None and a["type"] in FILLABLE and r.random() < 0.5:
                a["dflt"], a["lit"] = self.default(a["type"])
            else:
                a["idx"] = not a["idx"]
        else:
            return False
        return True

    def mapping(self, prev, v):
        """A new required attribute without default on a root without children, filled by a mapping file."""
        c = [e for e in v["ents"].values() if e["id"] in prev["ents"] and e["parent"] is None
             and not children(v, e["id"]) and not children(prev, e["id"])]
        if v["map"] or not c:
            return False
        e = self.rng.choice(c)
        a = self.new_attr(e, t=self.rng.choice(FILLABLE), opt=False)
        a["dflt"] = a["lit"] = None
        srcs = [s for s in prev["ents"][e["id"]]["attrs"].values() if s["type"] == a["type"] and not s["opt"]]
        ov = ("copy", self.rng.choice(srcs)["id"]) if srcs and self.rng.random() < 0.5 else ("const",) + self.default(a["type"])
        v["map"] = {"ent": e["id"], "props": {a["id"]: ov}}
        return True

    def yaml(self, k):
        v = self.versions[k - 1]
        flow = lambda name, keys: f"      {name}: {{ {', '.join(k for k in keys if k)} }}"
        out = [f"model: {self.model}", f"version: {k}", "entities:"]
        for eid, e in v["ents"].items():
            out += [f"  {e['name']}:"] + ([f"    parent: {v['ents'][e['parent']]['name']}"] if e["parent"] else [])
            out += ["    abstract: true"] * e["abstract"] + [f"    renamedFrom: {e['from']}"] * bool(e["from"])
            out += ["    attributes:"] * bool(e["attrs"])
            for a in e["attrs"].values():
                out.append(flow(a["name"], [f"type: {a['type']}", a["opt"] and "optional: true", a["lit"] is not None and f"default: {a['lit']}",
                                            a["from"] and f"renamedFrom: {a['from']}", a["idx"] and "indexed: true"]))
            sides = [(r, s, "ab".replace(s, "")) for r in v["rels"].values() for s in "ab" if r[s] == eid]
            out += ["    relationships:"] * bool(sides)
            for r, s, o in sides:
                out.append(flow(r[s + "n"], [f"destination: {v['ents'][r[o]]['name']}", r[s + "m"] and "toMany: true",
                                             r[s + "o"] and "ordered: true", f"inverse: {r[o + 'n']}", r[s + "from"] and f"renamedFrom: {r[s + 'from']}"]))
        return "\n".join(out) + "\n"

    def mapping_yaml(self, k):
        v, prev = self.versions[k - 1], self.versions[k - 2]
        out = ["entities:", f"  {v['ents'][v['map']['ent']]['name']}:", "    properties:"]
        for aid, ov in v["map"]["props"].items():
            source = ov[0] == "copy" and prev["ents"][v["map"]["ent"]]["attrs"][ov[1]]["name"]
            out.append(f"      {attrs_of(v, v['map']['ent'])[aid]['name']}: " + (f"$source.{source}" if source else f"{{ default: {ov[2]} }}"))
        return "\n".join(out) + "\n"


# ---------------------------------------------------------------- values, layouts, and what a store holds
def gen_value(t, r):
    """A random stored value of type t, extremes included."""
    if t in INT_RANGE:
        return r.choice([*INT_RANGE[t], 0, -1]) if r.random() < 0.2 else r.randint(*INT_RANGE[t])
    return {"double": lambda: r.choice([0.0, -0.0, 1e300, -2.5e-300, 5e-324]) if r.random() < 0.2 else r.uniform(-1e9, 1e9),
            "float": lambda: r.randint(-8000, 8000) / 8, "boolean": lambda: r.randint(0, 1), "date": lambda: r.uniform(-3e9, 3e9),
            "string": lambda: r.choice(STRINGS + ["x" * r.randint(100, 3000)]) + str(r.randint(0, 99)),
            "decimal": lambda: f"{r.choice(['', '-'])}{r.randint(0, 10**r.randint(1, 14))}.{r.randint(0, 999):03d}",
            "uuid": lambda: r.randbytes(16), "binary": lambda: r.randbytes(r.randint(0, 40))}[t]()

def canon(x, t):   # comparable values: SQLite may store 5.0 as 5, a decimal as text or as a number
    try:
        return x if x is None or x is MISSING else float(x) if t in ("double", "float", "date") else Decimal(str(x)) if t == "decimal" else x
    except (TypeError, ValueError, InvalidOperation):
        return x

def convert(x, f, t):   # a widening
    return x if x is None or f == t else float(x) if t == "double" else Decimal(str(x)) if t == "decimal" else x

def layout_of(compiled, k):
    """Version k's tables (root entity -> table) and columns ((role, entity, property) -> (table, column))."""
    lay = [v for v in compiled["models"][0]["versions"] if v["version"] == k][0]["layout"]
    tables = {t["entity"]: t["name"] for t in lay["tables"] if "joinRelationship" not in t}
    cols = {(kind, i["entity"], i.get("property") or i.get("relationship")): (t["name"], c["name"])
            for t in lay["tables"] for c in t["columns"] for kind, i in c["role"].items() if isinstance(i, dict) and "entity" in i}
    return {"tables": tables, "cols": cols}

def connect(path):
    con = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=rw", uri=True, isolation_level=None, timeout=5)
    con.text_factory = lambda b: b.decode("utf-8", "surrogateescape")   # a store may hold any bytes as text
    return con

def logical(path):
    """A digest of every table's rows, sorted, and the schema."""
    con = connect(path)
    try:
        out = [("schema",) + tuple(r) for r in con.execute("SELECT type, name, sql FROM sqlite_master")]
        for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            out += [(t,) + tuple(r) for r in con.execute(f'SELECT * FROM "{t}"')]
        return hashlib.sha256("\n".join(sorted(map(repr, out))).encode()).hexdigest()
    finally:
        con.close()

def join_table(con, an, bn):
    """(table, column of a-keys, column of b-keys), found by the columns Z_<n><NAME>; NAME's column holds its destination's keys."""
    for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        keys = {re.sub(r"^Z_\d+", "", c[1]): c[1] for c in con.execute(f'PRAGMA table_info("{t}")') if re.match(r"^Z_\d+[A-Z]", c[1])}
        if set(keys) == {an.upper(), bn.upper()}:
            return t, keys[bn.upper()], keys[an.upper()]
    return None

def extract(path, h, k, lay, ident):
    """What a store holds, read as version k: rows {(root, pk): entity}, values {(root, pk, attr): value}, pairs {rel: {(a, b)}}."""
    v = h.versions[k - 1]
    names = {e["name"]: eid for eid, e in v["ents"].items()}
    con = connect(path)
    try:
        rows, vals, pairs = {}, {}, {}
        for rname, table in lay["tables"].items():
            root = names[rname]
            owned = [a for x in subtree(v, root) for a in v["ents"][x]["attrs"].values()]
            cols = "".join(f', "{lay["cols"][("attribute", v["ents"][x]["name"], a["name"])][1]}"' for x in subtree(v, root) for a in v["ents"][x]["attrs"].values())
            for row in con.execute(f'SELECT Z_PK, Z_ENT{cols} FROM "{table}"'):
                e = ident(row[1])
                rows[(root, row[0])] = e if e in subtree(v, root) else ("#", row[1])   # a row of no entity of its table
                vals.update({(root, row[0], a["id"]): x for a, x in zip(owned, row[2:])})
        for pid, r in v["rels"].items():
            if r["am"] and r["bm"]:
                jt = join_table(con, r["an"], r["bn"])
                pairs[pid] = {tuple(p) for p in con.execute(f'SELECT "{jt[1]}", "{jt[2]}" FROM "{jt[0]}"')} if jt else None
                continue
            s = "a" if not r["am"] else "b"
            t, c = lay["cols"][("toOne", v["ents"][r[s]]["name"], r[s + "n"])]
            got = con.execute(f'SELECT Z_PK, "{c}" FROM "{t}" WHERE "{c}" IS NOT NULL').fetchall()
            pairs[pid] = {(pk, x) if s == "a" else (x, pk) for pk, x in got}
        return rows, vals, pairs
    finally:
        con.close()

def simulate(h, state):
    """What a correct migration to the last version leaves, hop by hop (values; rows and pairs stay)."""
    rows, vals, pairs = state
    for k in range(1, len(h.versions)):
        prev, v, new = h.versions[k - 1], h.versions[k], {}
        for (root, pk), eid in rows.items():
            if isinstance(eid, tuple):
                continue
            old = attrs_of(prev, eid)
            for aid, a in attrs_of(v, eid).items():
                ov = v["map"]["props"].get(aid) if v["map"] and v["map"]["ent"] == eid else None
                src = old.get(ov[1] if ov and ov[0] == "copy" else aid)
                x = convert(vals.get((root, pk, src["id"])), src["type"], a["type"]) if src else a["dflt"]
                new[(root, pk, aid)] = ov[1] if ov and ov[0] == "const" else a["dflt"] if x is None and not a["opt"] else x
        vals = new
    return rows, vals, pairs

def compare(h, exp, act, unchecked):
    v = h.versions[-1]
    ename = lambda e: v["ents"][e]["name"] if not isinstance(e, tuple) else f"Z_ENT {e[1]}"
    attrs = {a["id"]: (e["name"], a) for e in v["ents"].values() for a in e["attrs"].values()}
    (er, ev, ep), (ar, av, ap), probs = exp, act, []
    for what, keys in (("lost", [k for k in er if k not in ar]), ("appeared", [k for k in ar if k not in er])):
        if keys:
            probs.append(f"{len(keys)} of {len(er)} rows {what}, e.g. " + ", ".join(f"{ename(r)} Z_PK {pk}" for r, pk in keys[:3]))
    moved = [k for k in er if k in ar and er[k] != ar[k]]
    if moved:
        probs.append(f"{len(moved)} rows changed entity, e.g. Z_PK {moved[0][1]}: {ename(er[moved[0]])} -> {ename(ar[moved[0]])}")
    bad = [k for k, x in ev.items() if k[2] not in unchecked and k[:2] in ar
           and canon(x, attrs[k[2]][1]["type"]) != canon(av.get(k, MISSING), attrs[k[2]][1]["type"])]
    if bad:
        (e, a), k = attrs[bad[0][2]], bad[0]
        probs.append(f"{len(bad)} values wrong, e.g. {e}.{a['name']} ({a['type']}) of Z_PK {k[1]}: expected {ev[k]!r:.60}, "
                     f"found {'no column' if k not in av else repr(av[k])[:60]}")
    for pid, r in v["rels"].items():
        want, got = ep.get(pid, set()), ap.get(pid)
        if got != want:
            probs.append(f"relationship {v['ents'][r['a']]['name']}.{r['an']}: " + ("no join table" if got is None else
                         f"{len(want - got)} pairs lost (e.g. {sorted(want - got)[:2]}), {len(got - want)} appeared (e.g. {sorted(got - want)[:2]})"))
    return probs


# ---------------------------------------------------------------- running migrate
class Result:
    def __init__(self, cmd, rc, out, err, secs, hung=False):
        self.cmd, self.rc, self.out, self.err, self.secs, self.hung = cmd, rc, out, err, secs, hung

    def head(self):
        lines = [l for l in self.err.splitlines() if l.strip()] or [l for l in self.out.splitlines() if l.strip()]
        return " | ".join(lines[:3])[:400]

def run(cmd, cwd, timeout=TIMEOUT):
    t0, hung = time.monotonic(), False
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)   # its own session: the command and anything it started
        (out, err), hung = p.communicate(), True
    return Result(cmd, p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), time.monotonic() - t0, hung)

def check(res, allowed):
    if res.hung:
        raise Failure(f"hung (killed after {TIMEOUT} s)", res.cmd, res)
    if res.rc < 0 or res.rc >= 128 or any(m in res.err for m in CRASH_MARKS):
        raise Failure("crashed", res.cmd, res)
    if res.rc not in allowed:
        raise Failure(f"exit {res.rc}, expected one of {sorted(allowed)}", res.cmd, res)
    return res

READER = """import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN'); c.execute('SELECT count(*) FROM Z_PRIMARYKEY').fetchall()
open(sys.argv[2], 'w').close(); time.sleep(120)"""
HOT = """import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('PRAGMA cache_size=1'); c.execute('BEGIN IMMEDIATE')
for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%'").fetchall():
    c.execute(f'UPDATE "{t}" SET rowid = -rowid')
c.execute('CREATE TABLE junk(x)'); c.execute("INSERT INTO junk SELECT randomblob(3000) FROM Z_PRIMARYKEY, Z_PRIMARYKEY")
os._exit(0)"""


# ---------------------------------------------------------------- one trial
class Trial:
    def __init__(self, seed, k, migrate, only):
        self.rng = r = random.Random(f"{seed}/{k}")
        self.hostility = r.choice(only or MENU)
        self.dir = tempfile.mkdtemp(prefix=f"hostile-{seed}-{k}-")
        self.migrate, self.store, self.extra, self.outcome = migrate, "store.sqlite", [], "setup"
        self.unchecked, self.backup, self.core_data = set(), None, r.random() < 0.25

    def cmd(self, sub, *rest):
        return [self.migrate, sub, self.store, "--models", "Models", "--migrations", "Migrations", *rest]

    def run(self, cmd, allowed, timeout=TIMEOUT):
        return check(run(cmd, self.dir, timeout), allowed)

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def setup(self):
        self.h = h = History(self.rng, need_mapping=self.hostility == "wrong_mapping")
        os.makedirs(self.path("Models", h.model))
        os.makedirs(self.path("Migrations", h.model))
        for k in range(1, len(h.versions) + 1):
            open(self.path("Models", h.model, f"{k}.yaml"), "w").write(h.yaml(k))
            if h.versions[k - 1]["map"]:
                open(self.path("Migrations", h.model, f"{k - 1}-to-{k}.yaml"), "w").write(h.mapping_yaml(k))
        res = run([self.migrate, "validate", "--models", "Models"], self.dir)
        if res.rc != 0:
            raise Failure("SCRIPT BUG: generated model is invalid", res.cmd, res)
        compiled = json.loads(self.run([self.migrate, "compile", "--models", "Models"], {0}).out)
        self.lay = [layout_of(compiled, k) for k in range(1, len(h.versions) + 1)]
        self.run([self.migrate, "create", self.store, "--version", "1", "--models", "Models"] + ["--for-core-data"] * self.core_data, {0})
        self.fill()

    def fill(self):
        """Rows in version 1's layout, with relationships; self.rows: entity -> its primary keys."""
        r, v, lay = self.rng, self.h.versions[0], self.lay[0]
        con = connect(self.path(self.store))
        nums = {n: z for z, n in con.execute("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")}
        self.pristine = {nums[e["name"]]: eid for eid, e in v["ents"].items()}   # Z_ENT -> entity, before any hostility
        self.rows = {eid: [] for eid in v["ents"]}
        con.execute("BEGIN")
        for root in [e for e in v["ents"] if v["ents"][e]["parent"] is None]:
            pk, table = 0, lay["tables"][v["ents"][root]["name"]]
            for eid in [x for x in subtree(v, root) if not v["ents"][x]["abstract"]]:
                owned = [(x, a) for x in ancestors(v, eid) for a in v["ents"][x]["attrs"].values()]
                cols = ["Z_PK", "Z_ENT", "Z_OPT"] + [lay["cols"][("attribute", v["ents"][x]["name"], a["name"])][1] for x, a in owned]
                batch = []
                for _ in range(r.randint(5, 60) * (10 if self.hostility.startswith("kill") else 1)):   # kills need a longer apply
                    pk += r.randint(1, 3)
                    self.rows[eid].append(pk)
                    batch.append([pk, nums[v["ents"][eid]["name"]], 1] + [None if a["opt"] and r.random() < 0.25 else gen_value(a["type"], r) for x, a in owned])
                con.executemany(f'INSERT INTO "{table}" ({", ".join(cols)}) VALUES ({", ".join("?" * len(cols))})', batch)
            con.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", (pk, nums[v["ents"][root]["name"]]))
        tree_rows = lambda e: [(pk, x) for x in subtree(v, e) for pk in self.rows[x]]
        for rel in v["rels"].values():
            A, B = tree_rows(rel["a"]), tree_rows(rel["b"])
            if A and B and rel["am"] and rel["bm"]:
                t, ca, cb = join_table(con, rel["an"], rel["bn"])
                pairs = {(r.choice(A)[0], r.choice(B)[0]) for _ in range(len(A) + len(B))}
                con.executemany(f'INSERT INTO "{t}" ("{ca}", "{cb}") VALUES (?, ?)', sorted(pairs))
            elif A and B:
                s, own, dst = ("a", A, B) if not rel["am"] else ("b", B, A)
                t, c = lay["cols"][("toOne", v["ents"][rel[s]]["name"], rel[s + "n"])]
                ent = lay["cols"].get(("toOneEntity", v["ents"][rel[s]]["name"], rel[s + "n"]))   # Z<n>_NAME: the target's Z_ENT
                for pk, _ in own:
                    dpk, dent = r.choice(dst)
                    if r.random() < 0.8:
                        con.execute(f'UPDATE "{t}" SET "{c}" = ? WHERE Z_PK = ?', (dpk, pk))
                        if ent:
                            con.execute(f'UPDATE "{t}" SET "{ent[1]}" = ? WHERE Z_PK = ?', (nums[v["ents"][dent]["name"]], pk))
        con.execute("COMMIT")
        con.close()

    def ident(self, after):
        """Z_ENT -> entity id: numbers are stable in our stores; in Core Data's they follow the names."""
        names = {e["name"]: eid for eid, e in self.h.versions[-1 if after else 0]["ents"].items()}
        by_name = {}
        if after:
            con = connect(self.path(self.store))
            by_name = {z: names[n] for z, n in con.execute("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") if n in names}
            con.close()
        table = {**self.pristine, **by_name} if self.core_data else {**by_name, **self.pristine}
        return lambda z: table.get(z) or ("#", z)

    def key_columns(self, con):
        """Version 1's key columns: (table, column, entity it points at, rows it is on or None in a join table)."""
        v, out = self.h.versions[0], []
        for rel in v["rels"].values():
            if rel["am"] and rel["bm"]:
                jt = join_table(con, rel["an"], rel["bn"])
                out += [(jt[0], jt[1], rel["a"], None), (jt[0], jt[2], rel["b"], None)]
            for s, o in (("a", "b"), ("b", "a")):
                if not rel[s + "m"]:
                    t, c = self.lay[0]["cols"][("toOne", v["ents"][rel[s]]["name"], rel[s + "n"])]
                    out.append((t, c, rel[o], [pk for x in subtree(v, rel[s]) for pk in self.rows[x]]))
        return out

    def hostile(self):
        """The hostilities that change the store before anything runs."""
        r, h, v, kind, store = self.rng, self.h, self.h.versions[0], self.hostility, self.path(self.store)
        root_of = lambda e: ancestors(v, e)[-1]
        rows_of = lambda e: [pk for x in subtree(v, e) for pk in self.rows[x]]
        nonempty = [(e, self.lay[0]["tables"][v["ents"][e]["name"]]) for e in v["ents"] if v["ents"][e]["parent"] is None and rows_of(e)]
        con = connect(store)
        if kind == "swap_names":
            rows = con.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY").fetchall()
            sibs = [(x, y) for x in rows for y in rows if x[0] < y[0] and x[2] == y[2] != 0]   # rows stay in their hierarchy
            (a, an, _), (b, bn, _) = r.choice(sibs) if sibs and r.random() < 0.6 else r.sample(rows, 2)
            con.executemany("UPDATE Z_PRIMARYKEY SET Z_NAME = ? WHERE Z_ENT = ?", [(bn, a), (an, b)])
            self.extra.append(f"swapped {an} <-> {bn}")
        elif kind in ("zent_unknown", "zent_other"):
            root, t = r.choice(nonempty)
            pk = r.choice(rows_of(root))
            z = r.choice([999, 0, -1, None, 2**62, "x", max(self.pristine) + 1] if kind == "zent_unknown"
                         else [z for z, e in self.pristine.items() if root_of(e) != root])
            con.execute(f'UPDATE "{t}" SET Z_ENT = ? WHERE Z_PK = ?', (z, pk))
            self.extra.append(f"{t} Z_PK {pk} Z_ENT := {z!r}")
        elif kind in ("dangling_to_one", "dangling_join", "wrong_entity"):
            self.bad_reference(con, kind, rows_of)
        elif kind == "huge_pk":
            root, t = r.choice(nonempty)
            pk, new = r.choice(rows_of(root)), r.choice([2**63 - 1, 2**63 - 2, 2**62 + r.randint(0, 99)])
            con.execute(f'UPDATE "{t}" SET Z_PK = ? WHERE Z_PK = ?', (new, pk))
            con.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = ?", (new, v["ents"][root]["name"]))
            for tt, c, dest, _ in self.key_columns(con) if r.random() < 0.5 else []:   # references follow the row
                if root_of(dest) == root:
                    con.execute(f'UPDATE "{tt}" SET "{c}" = ? WHERE "{c}" = ?', (new, pk))
            self.extra.append(f"{t} Z_PK {pk} -> {new}")
        elif kind == "huge_zmax":
            con.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", (2**63 - 1 - r.randint(0, 2), r.choice(list(self.pristine))))
        elif kind == "huge_zent":
            self.extra.append(f"Z_ENT {(z := r.choice([2**31 - 1, 2**31, 2**32 + 1, 2**63 - 1]))}")
            if r.random() < 0.5:
                con.execute("INSERT INTO Z_PRIMARYKEY VALUES (?, 'Ghost', 0, 0)", (z,))
            else:
                con.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = ? WHERE Z_ENT = ?", (z, r.choice(list(self.pristine))))
        elif kind == "delete_pk_rows":
            con.execute("DELETE FROM Z_PRIMARYKEY" + r.choice(["", f" WHERE Z_ENT = {r.choice(list(self.pristine))}"]))
        con.close()
        size = os.path.getsize(store)
        if kind == "truncate":
            os.truncate(store, r.choice([r.randrange(size), r.randrange(size // 4096 + 1) * 4096]))
        elif kind == "overwrite":
            with open(store, "r+b") as f:
                for n in [r.choice([1, 4, 64, 4096]) for _ in range(r.randint(1, 6))]:
                    f.seek(r.randrange(size) // n * n if n == 4096 else r.randrange(size))
                    f.write(r.randbytes(n))
        elif kind == "stale_journal":
            self.extra.append(what := r.choice(["hot", "garbage", "empty", "zeroed"]))
            if what == "hot":   # a writer killed mid-transaction, its changes spilled into the file
                subprocess.run([sys.executable, "-c", HOT, store], timeout=TIMEOUT)
            else:
                open(store + "-journal", "wb").write({"garbage": r.randbytes(r.randint(1, 9000)), "empty": b"", "zeroed": bytes(2560)}[what])
        elif kind == "wrong_mapping":
            maps = sorted(os.listdir(self.path("Migrations", h.model)))
            m = h.versions[int(maps[0].split("-to-")[1][:-5]) - 1]["map"]
            a = r.choice([x for x in range(1, len(h.versions)) if f"{x}-to-{x + 1}.yaml" not in maps] or [len(h.versions)])
            move = shutil.copy if r.random() < 0.5 else shutil.move
            move(self.path("Migrations", h.model, maps[0]), self.path("Migrations", h.model, f"{a}-to-{a + 1}.yaml"))
            names = {attrs_of(x, m["ent"])[aid]["name"] for x in h.versions for aid in m["props"] if aid in attrs_of(x, m["ent"])}
            self.unchecked = {a["id"] for x in h.versions for e in x["ents"].values() for a in e["attrs"].values() if a["name"] in names}
            self.extra.append(f"{maps[0]} {move.__name__} to {a}-to-{a + 1}.yaml")

    def bad_reference(self, con, kind, rows_of):
        """A key at a missing row (dangling), or at a row of the wrong entity of a hierarchy table."""
        r, v = self.rng, self.h.versions[0]
        wrong = lambda d: [pk for x in subtree(v, ancestors(v, d)[-1]) if x not in subtree(v, d) for pk in self.rows[x]]
        cands = [c for c in self.key_columns(con) if c[3] != []]
        if kind == "wrong_entity" and not [c for c in cands if wrong(c[2])]:
            kind = self.hostility = "dangling_to_one"   # no hierarchy table with a reference into a part of it
        cands = ([c for c in cands if wrong(c[2])] if kind == "wrong_entity"
                 else [c for c in cands if (c[3] is None) == (kind == "dangling_join")] or cands)
        t, c, dest, own = r.choice(cands)
        target = r.choice(wrong(dest)) if kind == "wrong_entity" else \
            r.choice([max([0] + rows_of(ancestors(v, dest)[-1])) + r.randint(1, 50), 2**62, -7])
        if own is None:
            other = [x[0] for x in con.execute(f'SELECT * FROM "{t}" LIMIT 1').description if x[0] != c][0]
            src = con.execute(f'SELECT "{other}" FROM "{t}" ORDER BY random() LIMIT 1').fetchone()
            if src:
                con.execute(f'INSERT OR IGNORE INTO "{t}" ("{other}", "{c}") VALUES (?, ?)', (src[0], target))
            return self.extra.append(f"{t} + ({other}={src[0]}, {c}={target})" if src else "empty join table: no change")
        pk = r.choice(own)
        con.execute(f'UPDATE "{t}" SET "{c}" = ? WHERE Z_PK = ?', (target, pk))
        self.extra.append(f"{t}.{c} of Z_PK {pk} := {target}")

    def snapshot(self):
        """Copies of the hostile store and journal: hostile/ as they are, ref/ after SQLite's own recovery."""
        for d in ("hostile", "ref"):
            os.makedirs(self.path(d))
            for s in ("", "-journal"):
                if os.path.exists(self.path(self.store + s)):
                    shutil.copyfile(self.path(self.store + s), self.path(d, self.store + s))
        ref = self.path("ref", self.store)
        self.state = self.ref_logical = None
        try:
            self.ref_logical = logical(ref)
            self.state = extract(ref, self.h, 1, self.lay[0], self.ident(False))
        except UNREADABLE as e:
            self.extra.append(f"reference unreadable: {e!r}"[:200])
        self.ref_bytes = open(ref, "rb").read()
        self.expected = simulate(self.h, self.state) if self.state else None

    # -- judgement
    def unchanged(self, what):
        if open(self.path(self.store), "rb").read() != self.ref_bytes:
            raise Failure(f"{what}: the store's bytes differ from the reference")

    def read_only(self, what):
        """After reading commands: a hot journal a writer left stays for the next writer
        (they read a private copy rolled back, Docs/ReadOnly.md); judged as SQLite recovers
        it. Anything else: no hot journal, and the store unchanged."""
        j = self.path(self.store) + "-journal"
        if "hot" in self.extra and os.path.exists(j) and open(j, "rb").read(8).strip(b"\0"):
            os.makedirs(self.path("recovered-read"), exist_ok=True)
            for s in ("", "-journal"):
                shutil.copyfile(self.path(self.store + s), self.path("recovered-read", self.store + s))
            c = sqlite3.connect(self.path("recovered-read", self.store))
            c.execute("SELECT count(*) FROM sqlite_master").fetchall()
            c.close()
            if open(self.path("recovered-read", self.store), "rb").read() != self.ref_bytes:
                raise Failure(f"{what}: the store as SQLite recovers it differs from the reference")
            return
        self.no_hot_journal(what)
        self.unchanged(what)

    def no_hot_journal(self, what):
        j = self.path(self.store) + "-journal"
        if os.path.exists(j) and open(j, "rb").read(8).strip(b"\0"):
            raise Failure(f"{what}: a hot journal ({os.path.getsize(j)} bytes) is still beside the store")

    def migrated(self, what):
        """After apply exited 0: current, intact, and every row there."""
        st = self.run(self.cmd("status"), {0, 1, 3, 4, 5})
        self.no_hot_journal(what)
        if self.expected is None:
            raise Failure(f"{what}: apply succeeded on a store whose reference copy sqlite3 cannot read")
        probs = [] if st.rc == 0 else [f"then status exits {st.rc} ({st.head()[:200]})"]
        try:
            con = connect(self.path(self.store))
            ok = con.execute("PRAGMA quick_check").fetchone()[0]
            probs += [] if ok == "ok" else [f"quick_check: {ok}"]
            for name, table in self.lay[-1]["tables"].items():   # the next key allocated must be a new one
                zmax = con.execute("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?", (name,)).fetchone()
                top = con.execute(f'SELECT max(Z_PK) FROM "{table}"').fetchone()[0]
                probs += [f"Z_PRIMARYKEY.Z_MAX of {name} is {zmax[0]}, below its largest Z_PK {top}"] if zmax and top and zmax[0] < top else []
            con.close()
            after = extract(self.path(self.store), self.h, len(self.h.versions), self.lay[-1], self.ident(True))
            probs += [f"DATA LOSS: {'; '.join(loss)}" for loss in [compare(self.h, self.expected, after, self.unchecked)] if loss]
        except UNREADABLE as e:
            probs.append(f"the store cannot be read as version {len(self.h.versions)}: {e!r}")
        if probs:
            raise Failure(f"{what} exited 0, but: " + "; ".join(probs))

    def judge(self, res, legit):
        check(res, {0, 1, 4, 5})
        if res.rc == 0:
            return self.migrated("apply")
        self.run(self.cmd("status"), {0, 1, 3, 4, 5})
        self.no_hot_journal("after a failed apply")
        self.unchanged(f"apply exited {res.rc}")
        if self.backup and os.path.lexists(self.path(self.backup)):
            raise Failure(f"apply exited {res.rc}, the store unchanged, and left a backup", res.cmd, res)
        if legit:
            raise Failure("a legitimate store was refused", res.cmd, res)

    def check_backup(self, res=None):
        b = self.backup and self.path(self.backup)
        if b and os.path.exists(b) and self.ref_logical is not None:   # a malformed store backs up malformed
            try:
                same = logical(b) == self.ref_logical
            except UNREADABLE as e:
                raise Failure(f"the backup cannot be read: {e}", res and res.cmd, res)
            if not same:
                raise Failure("the backup's dump differs from the original", res and res.cmd, res)
        elif b and res and res.rc == 0:
            raise Failure("apply --backup exited 0 without a backup", res.cmd, res)
        if b and res and [f for f in os.listdir(self.dir) if f.startswith(self.backup + ".")]:
            raise Failure("apply left a partial backup beside the backup path", res.cmd, res)

    def execute(self):
        kind, r, store = self.hostility, self.rng, self.path(self.store)
        if kind in ("fifo", "symlink", "symlink_dangling"):
            os.makedirs(self.path("real"))
            target = self.path("real", "target.sqlite") if r.random() < 0.5 else os.path.join("real", "target.sqlite")
            os.rename(store, self.path("real", "target.sqlite")) if kind == "symlink" else os.remove(store)
            os.mkfifo(store) if kind == "fifo" else os.symlink(target, store)
        if kind in ("fifo", "symlink_dangling"):   # every command fails cleanly and creates nothing
            for c in (self.cmd("status"), self.cmd("plan"), self.cmd("apply", "--verify")):
                self.outcome = f"exit {self.run(c, {1, 4, 5}, timeout=20).rc}"
                if kind == "fifo" and not stat.S_ISFIFO(os.lstat(store).st_mode):
                    raise Failure("the FIFO was replaced", c)
                if os.listdir(self.path("real")):
                    raise Failure("the symlink's missing target was created", c)
            return
        legit = kind in LEGIT
        self.run(self.cmd("status"), {3} if legit else {0, 1, 3, 4, 5})
        self.run(self.cmd("plan"), {0} if legit else {0, 1, 4, 5})
        self.read_only("status and plan")
        apply = self.cmd("apply", "--verify")
        if kind in ("kill", "kill_backup", "reader"):
            return self.reader(apply) if kind == "reader" else self.kill(apply)
        if kind == "two_paths":
            return self.two_paths()
        if kind == "ulimit":
            self.extra.append(f"ulimit -f {(k := r.randint(max(1, len(self.ref_bytes) // 1024 - 16), len(self.ref_bytes) // 1024 + 48))}")
            apply = ["bash", "-c", f"ulimit -f {k}; trap '' XFSZ; exec \"$0\" \"$@\""] + apply
        if r.random() < 0.3:
            self.backup = "backup.sqlite"
            apply += ["--backup", self.backup]
        res = run(apply, self.dir)
        self.outcome = f"exit {res.rc}"
        self.judge(res, legit)
        self.check_backup(res)
        if kind == "symlink" and not os.path.islink(store):
            raise Failure("the symlink was replaced by a file (its target was left behind)", res.cmd, res)

    def kill(self, apply):
        """SIGKILL after a random share of an uninterrupted apply's time (on a copy): the store is old or new, never between."""
        os.makedirs(self.path("timing"))
        shutil.copyfile(self.path("hostile", self.store), self.path("timing", self.store))
        secs = run([a.replace(self.store, "timing/" + self.store) for a in apply], self.dir).secs
        if self.hostility == "kill_backup":
            self.backup = "backup.sqlite"
            apply = apply + ["--backup", self.backup]
        delay = self.rng.uniform(0.2, 1.3) * secs
        self.extra.append(f"killed after {delay * 1000:.0f} ms of {secs * 1000:.0f}")
        p = subprocess.Popen(apply, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        hot = os.path.exists(self.path(self.store + "-journal"))
        st = self.run(self.cmd("status"), {0, 3})
        self.outcome = ("committed" if st.rc == 0 else "rolled back") + (" from a journal" if hot else "")
        j = self.path(self.store) + "-journal"
        if st.rc == 3 and os.path.exists(j) and open(j, "rb").read(8).strip(b"\0"):
            # Reading commands recover a hot journal in a private copy and leave it for
            # the next writer (Docs/ReadOnly.md): judge the store as SQLite recovers it.
            os.makedirs(self.path("recovered"))
            for s in ("", "-journal"):
                shutil.copyfile(self.path(self.store + s), self.path("recovered", self.store + s))
            c = sqlite3.connect(self.path("recovered", self.store))
            c.execute("SELECT count(*) FROM sqlite_master").fetchall()
            c.close()
            if open(self.path("recovered", self.store), "rb").read() != self.ref_bytes:
                raise Failure("killed before commit: the store as SQLite recovers it differs from the reference")
        else:
            self.no_hot_journal("after the kill")
            self.unchanged("killed before commit") if st.rc == 3 else self.migrated("killed after commit")
        self.check_backup()
        self.run(self.cmd("apply", "--verify"), {0})
        self.no_hot_journal("after the next apply")
        self.migrated("apply after the kill")

    def reader(self, apply):
        ready = self.path("reader-ready")
        p = subprocess.Popen([sys.executable, "-c", READER, self.path(self.store), ready])
        try:
            for _ in range(200):
                if not os.path.exists(ready):
                    time.sleep(0.05)
            res = self.run(apply + ["--timeout", "1"], {1}, timeout=30)
            self.outcome = "timed out"
            if res.secs > 6:
                raise Failure(f"apply --timeout 1 took {res.secs:.1f} s beside a reader", res.cmd, res)
            self.unchanged("apply beside a reader")
        finally:
            p.kill()
            p.wait()
        self.run(apply, {0})
        self.migrated("apply after the reader left")


    def two_paths(self):
        """Several paths to the store, and several migrators at once: one migration, one backup, of the old version."""
        r, last = self.rng, len(self.h.versions)
        os.link(self.path(self.store), self.path("hard.sqlite"))
        os.symlink(self.store, self.path("soft.sqlite"))
        os.makedirs(self.path("links"))
        os.symlink(self.path(self.store), self.path("links", "abs.sqlite"))
        paths = [self.store, "hard.sqlite", "soft.sqlite", "links/abs.sqlite"]
        way = r.choice(["apply", "fleet", "both"])
        applies = r.sample(paths, r.randint(2, 3)) if way == "apply" else r.sample(paths, r.randint(1, 2)) if way == "both" else []
        listed = [] if way == "apply" else r.sample(paths, r.randint(2, 4))
        if listed and r.random() < 0.3:
            listed.insert(r.randint(1, len(listed)), r.choice(listed))   # the same path twice
        jobs = r.randint(1, 3)
        self.extra.append(f"{way}: apply {applies}, fleet --jobs {jobs} {listed}")
        flags = lambda: ["--backup-dir", "backups"] + ["--verify"] * (r.random() < 0.3)
        cmds = [[self.migrate, "apply", p, "--models", "Models", "--migrations", "Migrations"] + flags() for p in applies]
        if listed:
            cmds.append([self.migrate, "fleet", "apply", *listed, "--models", "Models", "--migrations", "Migrations",
                         "--jobs", str(jobs), "--json"] + flags())
        r.shuffle(cmds)
        procs = []
        for c in cmds:   # at once, or a little apart: a fleet compiles its models first, an apply plans at once
            time.sleep(r.choice([0, 0, r.uniform(0, 0.4)]))
            procs.append(subprocess.Popen(c, cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True))
        results = []
        for c, p in zip(cmds, procs):
            t0 = time.monotonic()
            try:
                out, err = p.communicate(timeout=TIMEOUT)
                hung = False
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                (out, err), hung = p.communicate(), True
            results.append(check(Result(c, p.returncode, out.decode(errors="replace"), err.decode(errors="replace"),
                                        time.monotonic() - t0, hung), {0, 1}))
        migrations, migrator, by, others = 0, None, None, set()
        for res in results:
            if res.cmd[1] == "apply":
                path = res.cmd[2]
                if res.rc == 0 and res.out.startswith(f"migrated {path} from version 1 to {last}: "):
                    migrations, migrator, by = migrations + 1, path, "apply"
                elif res.rc == 0 and res.out.startswith(f"{path}: ") and f" version {last} is current; nothing to do" in res.out:
                    others.add("current")
                elif res.rc == 0 and res.out.startswith(f"{path}: ") and f" version {last} is current (another process migrated it" in res.out \
                        and res.out.rstrip("\n").endswith("; nothing to do"):
                    # Lost the race after planning: the store is at the target, migrated by the other.
                    others.add("migrated by the other")
                elif not (res.rc == 1 and res.out == "" and res.err.rstrip("\n").endswith("nothing was changed, so this run kept no backup in backups")
                          and ("the store changed since it was planned" in res.err or "holds the store" in res.err)):
                    raise Failure("an apply beside another migrator neither migrated, found nothing to do, nor kept no backup", res.cmd, res)
                else:
                    others.add("changed" if "the store changed" in res.err else "locked")
                continue
            records = [json.loads(l) for l in res.out.splitlines() if l.strip()]
            stores = [x for x in records if x.get("event") == "store"]
            if res.rc != 0 or sorted(x["store"] for x in stores) != sorted(listed):
                raise Failure(f"fleet apply reported {[(x['store'], x['status']) for x in stores]} for {listed}", res.cmd, res)
            first = {}
            for x in stores:
                if x["status"] == "migrated":
                    migrations, migrator, by = migrations + 1, x["store"], "fleet"
            for p in listed:
                first.setdefault(os.stat(self.path(p)).st_ino, p)
            primary = [x for x in stores if x["store"] == listed[0] and x["status"] != "duplicate"]
            if len(primary) != 1 or primary[0]["status"] not in ("migrated", "current"):
                raise Failure(f"fleet apply: the first path listed, {listed[0]}, was not migrated once: {stores}", res.cmd, res)
            dups = [x for x in stores if x["status"] == "duplicate"]
            if len(dups) != len(listed) - 1 or any(x.get("duplicateOf") != listed[0] for x in dups):
                raise Failure(f"fleet apply: the later paths are not all duplicates of {listed[0]}: {stores}", res.cmd, res)
        self.outcome = (f"{way}: migrated by {by}" + (f", other applies {'/'.join(sorted(others))}" if others else "")
                        if migrations == 1 else f"{way}: {migrations} migrations")
        if migrations != 1:
            raise Failure(f"{migrations} runs report a migration of the one store", cmds[0])
        backups = [os.path.join(d, f) for d, _, fs in os.walk(self.path("backups")) for f in fs]
        # Named after the path given, or (apply) after the file a link leads to.
        stems = {os.path.basename(p)[:-len(".sqlite")] for p in (migrator, os.path.realpath(self.path(migrator)))}
        stem = "|".join(sorted(stems))
        if len(backups) != 1 or not re.fullmatch(rf"({'|'.join(map(re.escape, sorted(stems)))})\.v1-to-{last}\.\d{{8}}T\d{{6}}Z\.sqlite",
                                                 os.path.basename(backups[0])):
            raise Failure(f"expected one backup {stem}.v1-to-{last}.<time>.sqlite, found {[os.path.relpath(b, self.dir) for b in backups]}")
        if self.ref_logical is not None and logical(backups[0]) != self.ref_logical:
            raise Failure(f"the backup {os.path.relpath(backups[0], self.dir)} does not hold the store as it was before")
        self.migrated("two paths")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=100, help="number of trials (default 100)")
    ap.add_argument("--seed", default=str(random.randrange(10**6)), help="default: a random one, printed")
    ap.add_argument("--start", type=int, default=1, help="number of the first trial")
    ap.add_argument("--migrate", default=".build/debug/migrate")
    ap.add_argument("--only", help="comma-separated hostilities to draw from")
    ap.add_argument("--keep", action="store_true", help="keep the folders of passing trials too")
    args = ap.parse_args()
    migrate, only = os.path.abspath(args.migrate), args.only.split(",") if args.only else None
    if not os.access(migrate, os.X_OK):
        sys.exit(f"hostile: {migrate} is not an executable (build it, or pass --migrate)")
    if only and not set(only) <= set(MENU):
        sys.exit(f"hostile: unknown hostility in {only}; the menu: {', '.join(MENU)}")
    print(f"hostile: seed {args.seed}, trials {args.start}..{args.start + args.n - 1}, {migrate}", flush=True)
    passed, failed, outcomes = 0, 0, {}
    for k in range(args.start, args.start + args.n):
        t = Trial(args.seed, k, migrate, only)
        try:
            t.setup()
            t.hostile()
            t.snapshot()
            t.execute()
            passed += 1
            if not args.keep:
                shutil.rmtree(t.dir, ignore_errors=True)
        except Exception as e:   # a Failure, or a bug of this script: reported the same way
            failed, t.outcome = failed + 1, "FAILED"
            f = e if isinstance(e, Failure) else Failure(f"SCRIPT ERROR {e!r}")
            res, cmd = f.res, " ".join(f.cmd or (f.res.cmd if f.res else []))
            line = (f"FAIL seed={args.seed} trial={k} hostility={t.hostility} [{'; '.join(t.extra)}] {f.what}"
                    + (f" | cmd: {cmd}" if cmd else "") + (f" | exit {res.rc}: {res.head()}" if res else "") + f" | dir: {t.dir}")
            print(line, flush=True)
            open(os.path.join(t.dir, "FAILURE.txt"), "w").write(line + "\n" + (res.err if res else "") + "\n" + traceback.format_exc())
        counts = outcomes.setdefault(t.hostility, {})
        counts[t.outcome] = counts.get(t.outcome, 0) + 1
    print("outcomes: " + "; ".join(f"{h} " + ", ".join(f"{o} x{n}" for o, n in sorted(c.items())) for h, c in sorted(outcomes.items())))
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
