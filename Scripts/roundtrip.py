#!/usr/bin/env python3
"""Dump and load as a property: every generated store round-trips.

    python3 Scripts/roundtrip.py [N] [--seed S] [--migrate PATH] [--keep DIR]

Each trial makes a random model (2-4 root entities, subentities under some of them, an
abstract parent now and then; attributes of every type, with boundary values; to-one
relationships to the entity itself and across entities, with and without inverses;
ordered and unordered one-to-many lists whose members span a hierarchy's subentities;
many-to-many with an ordered side; one-to-one), a random store written with
`migrate load --all` from lines in a random order (references to later lines and to
the object itself included), then checks:

  1. `dump --all` of the store, loaded with `load --all` into a fresh store, dumps the
     same lines (and so does the same dump loaded from its lines reversed);
  2. `apply --verify` passes on the fresh store (the model's rules hold);
  3. per-entity dumps of the concrete entities, loaded file by file in an order no
     reference points forward in (when the model has one), give the same store.

Python 3 and the `migrate` under test only. Last line: `N passed, M failed` (exit 1 if any).
"""
import argparse, base64, json, os, random, shutil, subprocess, sys, tempfile

TYPES = ["integer16", "integer32", "integer64", "decimal", "double", "float", "string", "boolean", "date", "binary",
         "uuid", "uri", "transformable"]
BOUNDS = {"integer16": [-2**15, 2**15 - 1, 0], "integer32": [-2**31, 2**31 - 1, 1], "integer64": [-2**63, 2**63 - 1, -1]}
STRINGS = ["", "plain", "O'Brien \"q\"", "línea 漢字 🙂", "x" * 200, "tab\tnew\nline", "\\back"]


def value(t, r):
    if r.random() < 0.15:
        return None
    if t in BOUNDS:
        return r.choice(BOUNDS[t] + [r.randint(-1000, 1000)])
    if t == "decimal":
        return r.choice(["0", "12.345", "-0.001", "99999999999999999999.5", str(r.randint(-10**6, 10**6))])
    if t == "double":
        return r.choice([0.0, -1.5, 1e308, 5e-324, 0.1, "inf", "-inf", r.uniform(-1e6, 1e6)])
    if t == "float":
        return r.choice([0.5, -2.0, 0.25, 1024.0])
    if t == "string":
        return r.choice(STRINGS)
    if t == "boolean":
        return r.random() < 0.5
    if t == "date":
        return r.choice(["2001-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2038-01-19T03:14:08.5Z", r.uniform(-1e9, 1e9)])
    if t in ("binary", "transformable"):
        return base64.b64encode(bytes(r.randrange(256) for _ in range(r.randint(0, 20)))).decode()
    if t == "uuid":
        return "%08X-%04X-%04X-%04X-%012X" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48))
    if t == "uri":
        return r.choice(["https://example.com/a?b=c", "x-coredata://ABC/Entity/p1", "file:///tmp/a%20b"])
    raise ValueError(t)


class Model:
    """A random model: entities (name → dict), relationships, as YAML and as rules for the data."""

    def __init__(self, r):
        self.r = r
        self.entities = {}
        roots = ["E%d" % i for i in range(r.randint(2, 4))]
        for name in roots:
            self.entities[name] = {"parent": None, "abstract": False, "attributes": {}, "relationships": {}}
            if r.random() < 0.6:
                subs = ["%sS%d" % (name, i) for i in range(r.randint(1, 2))]
                self.entities[name]["abstract"] = r.random() < 0.4
                for sub in subs:
                    self.entities[sub] = {"parent": name, "abstract": False, "attributes": {}, "relationships": {}}
        for name, e in self.entities.items():
            for i in range(r.randint(1, 4)):
                e["attributes"]["%sa%d" % (name.lower(), i)] = r.choice(TYPES)
        self.roots = roots
        # Relationships (all optional: the rules are not the subject here).
        a = r.choice(roots)
        self.add(a, "parent", a, inverse="children", to_many_inverse=True)  # self, one-to-many
        self.add(r.choice(roots), "me", None, self_target=True)  # to-one without inverse, to its own entity
        x, y = r.sample(roots, 2)
        self.add(x, "other", y)  # cross, no inverse
        self.add(y, "back", x)  # cycle across entities
        owner, member = r.sample(roots, 2) if r.random() < 0.7 else (a, a)
        self.add(member, "owner", owner, inverse="items", to_many_inverse=True, ordered=True)
        p, q = r.choice(roots), r.choice(roots)
        self.add(p, "tags", q, to_many=True, inverse="tagged", inverse_to_many=True, ordered=r.random() < 0.5)
        s, t = r.sample(roots, 2)
        self.add(s, "twin", t, inverse="twinOf")  # one-to-one

    def add(self, entity, name, destination, inverse=None, to_many=False, to_many_inverse=False, inverse_to_many=False,
            ordered=False, self_target=False):
        destination = entity if self_target else destination
        rel = {"destination": destination, "toMany": to_many, "inverse": inverse}
        if to_many and ordered:
            rel["ordered"] = True
        self.entities[entity]["relationships"][name] = rel
        if inverse:
            back = {"destination": entity, "toMany": to_many_inverse or inverse_to_many, "inverse": name}
            if (to_many_inverse and ordered) or (inverse_to_many and not to_many and ordered):
                back["ordered"] = True
            if name == inverse and destination == entity:
                return
            self.entities[destination]["relationships"][inverse] = back

    def yaml(self):
        lines = ["model: RT", "version: 1", "entities:"]
        for name, e in self.entities.items():
            lines.append("  %s:" % name)
            if e["parent"]:
                lines.append("    parent: %s" % e["parent"])
            if e["abstract"]:
                lines.append("    abstract: true")
            lines.append("    attributes:")
            for a, t in e["attributes"].items():
                lines.append("      %s: { type: %s, optional: true }" % (a, t))
            if e["relationships"]:
                lines.append("    relationships:")
                for rn, rel in e["relationships"].items():
                    parts = ["destination: %s" % rel["destination"], "optional: true"]
                    if rel["toMany"]:
                        parts.append("toMany: true")
                    if rel.get("ordered"):
                        parts.append("ordered: true")
                    if rel["inverse"]:
                        parts.append("inverse: %s" % rel["inverse"])
                    lines.append("      %s: { %s }" % (rn, ", ".join(parts)))
        return "\n".join(lines) + "\n"

    def root(self, name):
        while self.entities[name]["parent"]:
            name = self.entities[name]["parent"]
        return name

    def concrete(self):
        return [n for n, e in self.entities.items() if not e["abstract"]]

    def family(self, name):
        """The entity and every entity below it."""
        return [n for n in self.entities if self.is_under(n, name)]

    def is_under(self, n, ancestor):
        while n:
            if n == ancestor:
                return True
            n = self.entities[n]["parent"]
        return False

    def all_attributes(self, name):
        out = {}
        while name:
            out.update(self.entities[name]["attributes"])
            name = self.entities[name]["parent"]
        return out

    def all_relationships(self, name):
        out = {}
        while name:
            out.update(self.entities[name]["relationships"])
            name = self.entities[name]["parent"]
        return out


def objects(model, r):
    """Random objects with keys per root, and lines that set each relationship pair once."""
    keys = {}
    made = []
    for name in model.concrete():
        for _ in range(r.randint(0, 6)):
            root = model.root(name)
            keys.setdefault(root, [])
            pk = (max(keys[root]) if keys[root] else 0) + r.randint(1, 3)
            keys[root].append(pk)
            made.append({"_entity": name, "_pk": pk})
    by_family = lambda dest: [o for o in made if model.is_under(o["_entity"], dest)]
    twin_used = set()
    for o in made:
        for a, t in model.all_attributes(o["_entity"]).items():
            o[a] = value(t, r)
        for rn, rel in model.all_relationships(o["_entity"]).items():
            targets = by_family(rel["destination"])
            inverse = rel["inverse"]
            inverse_rel = model.all_relationships(rel["destination"]).get(inverse) if inverse else None
            if rel["toMany"]:
                # Set from this side only for many-to-many (the pair's first side by name) or no inverse.
                if inverse_rel is None or (inverse_rel["toMany"] and (rn < inverse or (rn == inverse))):
                    picks = r.sample(targets, min(len(targets), r.randint(0, 3)))
                    o[rn] = [t["_pk"] for t in picks]
                continue
            if inverse_rel is not None and not inverse_rel["toMany"]:
                # One-to-one: set from the side whose name sorts first, each target once.
                if rn > inverse:
                    continue
                free = [t for t in targets if (rel["destination"], t["_pk"]) not in twin_used]
                if free and r.random() < 0.6:
                    t = r.choice(free)
                    twin_used.add((rel["destination"], t["_pk"]))
                    o[rn] = t["_pk"]
                continue
            if targets and r.random() < 0.7:
                o[rn] = r.choice(targets)["_pk"]
    return made


def run(migrate, args, cwd, stdin=None):
    return subprocess.run([migrate] + args + ["--models", "Models"], cwd=cwd, capture_output=True, text=True, input=stdin, timeout=120)


def trial(migrate, seed, index, keep):
    r = random.Random("%s/%s" % (seed, index))
    model = Model(r)
    folder = tempfile.mkdtemp(prefix="roundtrip-")
    problems = []
    try:
        os.makedirs(os.path.join(folder, "Models", "RT"))
        with open(os.path.join(folder, "Models", "RT", "1.yaml"), "w") as f:
            f.write(model.yaml())
        made = objects(model, r)
        r.shuffle(made)
        with open(os.path.join(folder, "in.jsonl"), "w") as f:
            for o in made:
                f.write(json.dumps(o, ensure_ascii=False) + "\n")
        for args in (["create", "s.sqlite"], ["load", "s.sqlite", "--all", "in.jsonl"]):
            res = run(migrate, args, folder)
            if res.returncode != 0:
                problems.append("%s exited %d: %s" % (" ".join(args), res.returncode, res.stderr.strip()[:400]))
                return problems, folder
        first = run(migrate, ["dump", "s.sqlite", "--all"], folder)
        if first.returncode != 0:
            return ["dump --all exited %d: %s" % (first.returncode, first.stderr[:300])], folder
        with open(os.path.join(folder, "all.jsonl"), "w") as f:
            f.write(first.stdout)
        with open(os.path.join(folder, "reversed.jsonl"), "w") as f:
            f.write("".join(reversed(first.stdout.splitlines(keepends=True))))
        for source in ("all.jsonl", "reversed.jsonl"):
            fresh = "fresh-%s.sqlite" % source[:-6]
            for args in (["create", fresh], ["load", fresh, "--all", source], ["apply", fresh, "--verify"]):
                res = run(migrate, args, folder)
                if res.returncode != 0:
                    problems.append("%s exited %d: %s" % (" ".join(args), res.returncode, res.stderr.strip()[:400]))
                    break
            else:
                again = run(migrate, ["dump", fresh, "--all"], folder).stdout
                if again != first.stdout:
                    problems.append("dump --all of the store loaded from %s differs:\n%s" % (source, diff(first.stdout, again)))
        # Per concrete entity, loaded in an order no reference points forward in.
        order = entity_order(model)
        if order is not None:
            fresh = "per-entity.sqlite"
            ok = run(migrate, ["create", fresh], folder).returncode == 0
            for name in order:
                dumped = run(migrate, ["dump", "s.sqlite", name], folder).stdout
                only = "".join(line for line in dumped.splitlines(keepends=True) if json.loads(line)["_entity"] == name)
                res = run(migrate, ["load", fresh, name, "-"], folder, stdin=only)
                if res.returncode != 0:
                    problems.append("per-entity load of %s exited %d: %s" % (name, res.returncode, res.stderr.strip()[:400]))
                    ok = False
                    break
            if ok:
                again = run(migrate, ["dump", fresh, "--all"], folder).stdout
                if again != first.stdout:
                    problems.append("per-entity dumps loaded in order %s differ:\n%s" % (order, diff(first.stdout, again)))
    except subprocess.TimeoutExpired as e:
        problems.append("timeout: %s" % e)
    return problems, folder


def entity_order(model):
    """Concrete entities in an order where each line's stored-side references point back, or None."""
    concrete = model.concrete()
    needs = {n: set() for n in concrete}
    for n in concrete:
        for rn, rel in model.all_relationships(n).items():
            inverse = rel["inverse"]
            inverse_rel = model.all_relationships(rel["destination"]).get(inverse) if inverse else None
            stored = (not rel["toMany"] and (inverse_rel is None or inverse_rel["toMany"] or rn <= inverse)) or \
                (rel["toMany"] and (inverse_rel is None or inverse_rel["toMany"]))
            if stored:
                needs[n] |= {d for d in model.family(rel["destination"]) if d in needs and d != n}
    order, done = [], set()
    while len(order) < len(concrete):
        ready = [n for n in concrete if n not in done and needs[n] <= done]
        if not ready:
            return None
        order.append(ready[0])
        done.add(ready[0])
    # Self references within one entity's file are fine; across entities of one family are not ordered here.
    return order


def diff(a, b):
    al, bl = a.splitlines(), b.splitlines()
    out = []
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else "<none>"
        y = bl[i] if i < len(bl) else "<none>"
        if x != y:
            out.append("  - %s\n  + %s" % (x[:300], y[:300]))
        if len(out) >= 4:
            break
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=20)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--migrate", default=".build/debug/migrate")
    ap.add_argument("--keep", action="store_true", help="keep every trial's folder (failed ones are always kept)")
    args = ap.parse_args()
    migrate = os.path.abspath(args.migrate)
    passed = failed = 0
    for i in range(args.n):
        problems, folder = trial(migrate, args.seed, i, args.keep)
        if problems:
            failed += 1
            print("trial %d (seed %s): %s\n  kept in %s" % (i, args.seed, "\n  ".join(problems), folder))
        else:
            passed += 1
            if not args.keep:
                shutil.rmtree(folder, ignore_errors=True)
    print("roundtrip: seed %s, %d trials" % (args.seed, args.n))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
