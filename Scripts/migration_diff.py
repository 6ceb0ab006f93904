#!/usr/bin/env python3
"""Randomized differential test of `migrate apply` against a reference migration manager.

    python3 Scripts/migration_diff.py TRIALS [--seed N] [--migrate PATH] [--keep DIR] [--trial K]
                                      [--jobs N] [--without KIND,…]
    python3 Scripts/migration_diff.py --case fixed|all|open|intermediate-default|intermediate-check|found|NAME
                                      [--migrate PATH]

Each trial makes a random model history of 3 to 6 versions over 2 to 4 entities
(attributes added, removed, renamed with `renamedFrom` in both of Core Data's styles
and re-added; defaults added, changed and removed; optional ↔ required; integer
widening; min/max; uniqueness constraints; entities added, removed and renamed; to-one
↔ to-many relationship pairs added and removed; a to-one made required; a to-many's
minCount; hop and spanning mapping files with `filter:`, `source:`, `$source.x`,
`{ default: }` and `{ value: }`), and over relationships and hierarchies
(migration_diff_graph.py): a parent, abstract or not, with subentities; many-to-many
pairs added, removed, renamed; a one-to-many's to-one side made to-many and back; a
to-many side made to-one; ordered ↔ unordered; minCount and maxCount; subentities
added; a new parent; properties moved up from one or both siblings and down to a
subentity; a to-one's destination widened to the parent; a subentity leaving its
hierarchy. Random data at version 1 (nils, duplicates, integer boundaries, many-to-many
pairs, ordered lists in shuffled order) loaded with `migrate create` and `migrate
load`, and then migrates a copy of the store along each path:

- `apply --path chain`, and `apply --to 2`, `--to 3`, … one version at a time: each
  must give what the reference's chain gives (one mapping per hop, each with its own
  three stages);
- `apply --path direct`: what the reference's direct mapping gives;
- `apply`: what the reference gives on the path the toolkit documents as its default
  (with hop files only, the chain).

The result is read back with `migrate dump` for every entity and compared, row by
row, with the reference's (objects named by their entity and the `key` attribute
every root entity has and subentities inherit; an ordered to-many in its order, except
the side of an ordered many-to-many that the dump does not write, compared as a set).
A refusal of the reference must be a non-zero exit of `migrate` that leaves the
store's bytes unchanged, and a non-zero exit of `migrate` must be a refusal of the
reference. Every difference prints the trial's seed, the path, the history and the
first differing rows; the last line is `N passed, M failed`, and the exit status 1
when any failed. `--trial K` runs trial K of the seed alone. The same seed gives the
same histories. The reference's semantics: Scripts/migration_reference.py,
Scripts/migration_reference_graph.py and Docs/Reference.md. Every change kind can be
left out with `--without KIND` (the names of CHANGES and OTHER_KINDS below); `--case
open` runs the cases of toolkit bugs found and still open (not in `fixed`, which CI
runs).

Where the first runs differed and the reference was changed (each a choice between
Core Data's documented behaviour and the toolkit's, written in Docs/Reference.md):
- renamedFrom: a destination pairs with the source that has its identifier as name or
  identifier (the toolkit's chaining of previous names, beyond Apple's shared
  identifier), never by its own name when its renamedFrom names nothing there
  (NSEntityDescription.renamingIdentifier); the toolkit's name fallback is reported.
- A relationship whose destination entity is no longer made from its old destination
  fails inference (the toolkit's "moved to an unrelated entity"), before any data.
- The toolkit's gate against a silent loss (an unread source entity whose name is
  given to objects made from another) is modelled as a refusal; Core Data would drop
  the objects.
- nil → default only for the inferred mapping into a required attribute with a
  default; `$source.x` in a mapping file sets nil (the toolkit fills the default: a
  reported difference).
- A relationship side with no source relationship takes the pairs its inverse was given
  (Core Data maintains inverses), so renaming one side twice loses nothing on the
  direct path while its other side still pairs (the toolkit keeps them too, though
  its plan warns they are dropped).
- The default path follows Docs/MappingFiles.md's documented choice (a spanning file
  from the version reached first, else the hops, else the direct inferred mapping).
- A relationship widened to an ancestor or narrowed to a subentity is related as the
  source model relates them, even when its old destination leaves the hierarchy in the
  same mapping (the toolkit's rule; its old destination's objects are then not
  targets); the reference had refused it as "an unrelated entity" (seed 2 trial 10).
- A to-many made to-one counts the members the destination would hold (a filter's
  left-out members are not migrated), not the source's (case filter-to-one-members).
- Two destination properties of one entity claiming one source property by renaming
  identifier (F.p10 renamed p11 and moved up to C while the sibling E keeps p10: E has
  p10 and, inherited, p11 with `renamedFrom: p10`) make inference ambiguous, as the
  toolkit refuses "ambiguous renames"; the reference had paired both (seed 7 trial 11).
  The same for two destination entities claiming one source entity (a new B beside D,
  renamedFrom B, on the direct path), where the reference had split B's objects into both
  (seeds 2302–2305); a mapping file settles the claim: entities it gives that source as
  `source:` take it and the other claimants are new; properties it sets drop out of the
  claim. A source element of the destination's own name sharing its identifier is
  itself (seed 2303 trial 60).
- A to-one side given two objects through its to-many inverse (a many-to-many made
  one-to-many by a new to-one beside the kept inverse: Delta's Game.gameCollection) is
  refused, as the toolkit refuses a to-many made to-one holding several objects; Core
  Data would keep the last one its relationship stage set.
"""

import argparse
import concurrent.futures
import copy
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import migration_reference as ref  # noqa: E402
import migration_diff_graph as gr  # noqa: E402

MODEL = "Fz"
POOLS = {
    "integer16": [-32768, -1, 0, 1, 5, 7, 100, 32767],
    "integer32": [-2147483648, -1, 0, 1, 5, 7, 40000, 2147483647],
    "integer64": [-9223372036854775808, -1, 0, 1, 5, 7, 9007199254740993, 9223372036854775807],
    "string": ["", "a", "b", "Ab", "x y", "é"],
    "boolean": [True, False],
}
DEFAULTS = {"integer16": [0, 5, -1, 100], "integer32": [0, 5, 40000], "integer64": [0, 5, 9007199254740993],
            "string": ["a", "z", ""], "boolean": [True, False]}
TYPES = ["integer16", "integer16", "integer32", "integer64", "string", "string", "boolean"]
INTEGERS = ("integer16", "integer32", "integer64")


# MARK: Model histories

class History:
    """Versions as YAML-shaped dicts, mapping files, and what changed in each version."""

    def __init__(self):
        self.versions = []  # dicts: {"model", "version", "entities"}
        self.files = {}  # (a, b) -> mapping file dict
        self.changes = {}  # version -> [text]
        self.data = {}  # entity -> [objects] at version 1 (its own, not its subentities')
        self.load_order = []
        self.data_sides = set()  # (entity, relationship): the side version 1's data gives (ordered as given)

    def describe(self):
        lines = []
        for v in self.versions:
            n = v["version"]
            lines.append("  v%d: %s" % (n, "; ".join(self.changes.get(n, [])) or "(no change)"))
            for (a, b), spec in sorted(self.files.items()):
                if b == n:
                    lines.append("    mapping file %d-to-%d.yaml: %s" % (a, b, json.dumps(spec, sort_keys=True)))
        return "\n".join(lines)

    def yaml_of(self, n):
        return yaml.safe_dump(self.versions[n - 1], sort_keys=False, allow_unicode=True, width=1000)


def identifier(spec, name):
    return spec.get("renamedFrom") or name


def used_names(entity):
    names = set()
    for group in ("attributes", "relationships"):
        for name, spec in entity.get(group, {}).items():
            names.add(name)
            names.add(identifier(spec, name))
    return names


class Generator:
    def __init__(self, rng, without=()):
        self.rng = rng
        self.without = set(without)
        self.changes = [f for kind, (f, weight) in CHANGES.items() if kind not in self.without for _ in range(weight)]
        self.counter = 0
        self.entity_counter = 0
        self.relationship_counter = 0
        self.removed = {}  # entity name -> removed attribute names (re-added sometimes)
        self.removed_entities = []
        self.previous_names = set()
        self.previous_entities = set()
        self.renamed = set()
        self.first_sides = set()  # version 1's data sides (History.data_sides)

    def fresh_attribute(self, entity_name, entity, model=None):
        # A name no attribute or relationship has, or is identified by, in this version or the previous one:
        # re-adding a name paired with a renamed attribute's identifier would pair the two; nor any in its
        # hierarchy (inherited, or a subentity's).
        used = used_names(entity) | self.previous_names
        if model is not None and entity_name in model["entities"]:
            used |= gr.family_names(model, entity_name)
        old = [n for n in self.removed.get(entity_name, []) if n not in used]
        if old and self.rng.random() < 0.3:
            return old[0]
        self.counter += 1
        return "p%d" % self.counter

    def fresh_entity(self, model):
        used = set(model["entities"]) | {e.get("renamedFrom") for e in model["entities"].values()}
        used |= self.previous_entities
        old = [n for n in self.removed_entities if n not in used]
        if old and self.rng.random() < 0.3:
            return old[0]
        while True:
            name = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[self.entity_counter % 26] + (
                str(self.entity_counter // 26) if self.entity_counter >= 26 else "")
            self.entity_counter += 1
            if name not in used:
                return name

    def value(self, spec, allow_nil=True):
        if allow_nil and spec.get("optional") and self.rng.random() < 0.3:
            return None
        candidates = [v for v in POOLS[spec["type"]] if within(spec, v)]
        return self.rng.choice(candidates) if candidates else None

    def default(self, spec):
        candidates = [v for v in DEFAULTS[spec["type"]] if within(spec, v)]
        return self.rng.choice(candidates) if candidates else None

    def attribute(self):
        kind = self.rng.choice(TYPES)
        spec = {"type": kind, "optional": self.rng.random() < 0.6}
        if kind in INTEGERS and self.rng.random() < 0.2:
            spec["min"], spec["max"] = self.rng.choice([(0, 100), (-1, 7), (1, 32767)])
        if not spec["optional"] or self.rng.random() < 0.4:
            d = self.default(spec)
            if d is not None:
                spec["default"] = d
        if not spec["optional"] and "default" not in spec:
            spec["optional"] = True
        return spec

    # The first version, and its data.

    def first(self, history):
        model = {"model": MODEL, "version": 1, "entities": {}}
        names = []
        for _ in range(self.rng.randint(2, 4)):
            name = self.fresh_entity(model)
            names.append(name)
            entity = {"attributes": {"key": {"type": "string"}}, "relationships": {}}
            model["entities"][name] = entity
            for _ in range(self.rng.randint(1, 3)):
                entity["attributes"][self.fresh_attribute(name, entity, model)] = self.attribute()
            if self.rng.random() < 0.2:
                candidates = [a for a in entity["attributes"] if a != "key"]
                entity["uniqueness"] = [[self.rng.choice(candidates)]]
        if "hierarchy" not in self.without and self.rng.random() < 0.5:
            names = self.first_hierarchy(model, names)
        # Pairs from a later entity to an earlier one (the later one's objects give them), so that loading in
        # order resolves them.
        for i, name in enumerate(names):
            for j in range(i):
                if self.rng.random() < 0.3:
                    kind = gr.pair_kind(self)
                    self.add_pair(model, name, names[j], kind, ordered=gr.random_order(self, kind))
        if len([n for n in names if gr.parent(model, n)]) == 2 and self.rng.random() < 0.4:
            # Two siblings with a to-one of the same name to one earlier entity (moved up together later).
            first_sibling = min(names.index(n) for n in names if gr.parent(model, n))
            earlier = [n for n in names[:first_sibling]]
            if earlier:
                x = self.rng.choice(earlier)
                siblings = [n for n in names if gr.parent(model, n)]
                self.add_pair(model, siblings[0], x)
                self.add_pair(model, siblings[1], x, name=self.last_pair[1])
        history.versions.append(model)
        history.changes[1] = ["entities %s" % describe_model(model)]
        history.load_order = [n for n in names if not model["entities"][n].get("abstract")]
        history.data_sides = set(self.first_sides)
        next_pk = {}
        for name in names:
            entity = model["entities"][name]
            if entity.get("abstract"):
                continue
            attributes = {a: s for a, (_, s) in gr.full(model, name, "attributes").items()}
            objects = []
            for i in range(self.rng.choice([0, 2, 3, 4, 4, 5, 6])):
                obj = {"_pk": i + 1, "key": "%s%d" % (name, i + 1)}
                for attribute, spec in attributes.items():
                    if attribute != "key":
                        obj[attribute] = self.value(spec)
                objects.append(obj)
            for constraint in entity.get("uniqueness", []):
                seen, kept = set(), []
                for obj in objects:
                    values = tuple(obj[p] for p in constraint)
                    if None not in values and values in seen:
                        optional = [p for p in constraint if entity["attributes"][p].get("optional")]
                        if not optional:
                            continue  # a duplicate that cannot be made nil is not loaded
                        obj[optional[0]] = None
                    elif None not in values:
                        seen.add(values)
                    kept.append(obj)
                objects = kept
            top = gr.root(model, name)  # primary keys are unique in a hierarchy (one table)
            start = next_pk.get(top, 1)
            for number, obj in enumerate(objects):
                obj["_pk"] = start + number
                obj["key"] = "%s%d" % (name, number + 1)
            next_pk[top] = start + len(objects)
            gr.relationship_values(self, model, history, name, objects, history.data_sides)
            history.data[name] = objects

    def first_hierarchy(self, model, names):
        """One of version 1's entities made a parent (abstract or not) of one or two new subentities, placed
        after it in load order; two siblings sometimes share an attribute's name and type."""
        p = self.rng.choice(names)
        entity = model["entities"][p]
        entity.pop("uniqueness", None)
        if self.rng.random() < 0.5:
            entity["abstract"] = True
        subentities = []
        for k in range(self.rng.choice([1, 2, 2])):
            name = self.fresh_entity(model)
            sub = {"parent": p, "attributes": {}, "relationships": {}}
            model["entities"][name] = sub
            for _ in range(self.rng.randint(0, 2)):
                sub["attributes"][self.fresh_attribute(name, sub, model)] = self.attribute()
            if subentities and self.rng.random() < 0.6:
                sibling = model["entities"][subentities[0]]["attributes"]
                if sibling:
                    a = self.rng.choice(sorted(sibling))
                    sub["attributes"][a] = copy.deepcopy(sibling[a])
            subentities.append(name)
        at = names.index(p) + 1
        return names[:at] + subentities + names[at:]

    def add_pair(self, model, owner, destination, kind="one-to-many", required=False, ordered=(False, False),
                 name=None):
        text = gr.add_pair(self, model, owner, destination, kind, required, ordered, name)
        if model["version"] == 1:
            self.first_sides.add(self.last_pair[:2])
        return text

    # The next versions.

    def next(self, history):
        model = copy.deepcopy(history.versions[-1])
        model["version"] += 1
        self.renamed = set()  # what this version renamed: renamed once, its renamedFrom kept, in one version
        self.previous_names = set()
        self.previous_entities = set(model["entities"]) | {e.get("renamedFrom") for e in model["entities"].values()}
        for entity in model["entities"].values():
            self.previous_names |= used_names(entity)
        changes = []
        attempts = 0
        wanted = self.rng.choice([1, 1, 2, 2, 3])
        while len(changes) < wanted and attempts < 40:
            attempts += 1
            change = self.rng.choice(self.changes)
            text = change(self, model)
            if text:
                changes.append(text)
        gr.sanitize(model)
        history.versions.append(model)
        history.changes[model["version"]] = changes

    def entity(self, model):
        return self.rng.choice(sorted(model["entities"]))

    def attribute_of(self, model, predicate=lambda spec: True):
        choices = [(e, a) for e, entity in sorted(model["entities"].items())
                   for a, spec in entity["attributes"].items() if a != "key" and predicate(spec)]
        return self.rng.choice(choices) if choices else (None, None)


def within(spec, value):
    if value is None:
        return True
    measure = len(value) if isinstance(value, str) else value
    if "min" in spec and measure < spec["min"]:
        return False
    return "max" not in spec or measure <= spec["max"]


def describe_attribute(spec):
    if isinstance(spec, str):
        return spec
    text = spec["type"] + ("?" if spec.get("optional") else "")
    extras = ["%s %s" % (k, json.dumps(spec[k], ensure_ascii=False)) for k in ("default", "min", "max", "renamedFrom")
              if k in spec]
    return text + (" (%s)" % ", ".join(extras) if extras else "")


def describe_model(model):
    parts = []
    for name, entity in model["entities"].items():
        attributes = ", ".join("%s: %s" % (a, describe_attribute(s)) for a, s in entity.get("attributes", {}).items()
                               if a != "key")
        relationships = ", ".join("%s → %s%s%s" % (
            r, s["destination"], "*" if s.get("toMany") else "",
            "".join(" (%s)" % x for x, on in (("required", s.get("optional") is False),
                                               ("ordered", s.get("ordered")),
                                               ("minCount %s" % s.get("minCount"), "minCount" in s),
                                               ("maxCount %s" % s.get("maxCount"), "maxCount" in s),
                                               ("renamedFrom %s" % s.get("renamedFrom"), "renamedFrom" in s)) if on))
            for r, s in entity.get("relationships", {}).items())
        extras = " unique %s" % entity["uniqueness"] if entity.get("uniqueness") else ""
        renamed = " (renamedFrom %s)" % entity["renamedFrom"] if entity.get("renamedFrom") else ""
        kind = "".join(x for x, on in (("abstract ", entity.get("abstract")),) if on)
        below = " < %s" % entity["parent"] if entity.get("parent") else ""
        parts.append("%s%s%s%s{%s}%s" % (kind, name, below, renamed,
                                         "; ".join(p for p in (attributes, relationships) if p), extras))
    return " ".join(parts)


def change_add_attribute(g, model):
    e = g.entity(model)
    entity = model["entities"][e]
    name = g.fresh_attribute(e, entity, model)
    spec = g.attribute()
    entity["attributes"][name] = spec
    return "%s.%s added: %s" % (e, name, describe_attribute(spec))


def change_add_beside_renamed(g, model):
    """A new attribute takes the old name of a renamed one that stays (b, renamedFrom: a, beside a new a): b
    continues the old attribute, a is new (toolkit and reference, Docs/Reference.md "Pairing")."""
    choices = [(e, n, s["renamedFrom"]) for e, entity in sorted(model["entities"].items())
               for n, s in entity["attributes"].items()
               if s.get("renamedFrom") and s["renamedFrom"] != n and s["renamedFrom"] not in names_taken(model, e, n)]
    if not choices:
        return None
    e, n, old = g.rng.choice(choices)
    spec = g.attribute()
    model["entities"][e]["attributes"][old] = spec
    g.renamed.add((e, old))
    return "%s.%s added beside %s (renamedFrom: %s): %s" % (e, old, n, old, describe_attribute(spec))


def change_remove_attribute(g, model):
    e, a = g.attribute_of(model)
    if not a:
        return None
    entity = model["entities"][e]
    del entity["attributes"][a]
    g.removed.setdefault(e, []).append(a)
    entity["uniqueness"] = [u for u in entity.get("uniqueness", []) if a not in u]
    if not entity["uniqueness"]:
        del entity["uniqueness"]
    return "%s.%s removed" % (e, a)


def change_rename_attribute(g, model):
    e, a = g.attribute_of(model)
    if not a or (e, a) in g.renamed:
        return None
    entity = model["entities"][e]
    spec = entity["attributes"].pop(a)
    new = g.fresh_attribute(e, entity, model)
    if new in used_names(entity) or new in gr.family_names(model, e) or new == a:
        entity["attributes"][a] = spec
        return None
    canonical = g.rng.random() < 0.5
    spec["renamedFrom"] = identifier(spec, a) if canonical else a
    entity["attributes"] = {(new if k == a else k): v for k, v in list(entity["attributes"].items()) + [(new, spec)]}
    for below in gr.subtree(model, e):
        for u in model["entities"][below].get("uniqueness", []):
            u[:] = [new if p == a else p for p in u]
    g.renamed.add((e, new))
    return "%s.%s renamed to %s (renamedFrom: %s)" % (e, a, new, spec["renamedFrom"])


def names_taken(model, e, own):
    """The names and identifiers of every property of e's hierarchy but e's own `own`: a name `own` may take back
    must be none of them."""
    taken = set()
    for other in gr.subtree(model, gr.root(model, e)):
        for group in ("attributes", "relationships"):
            for name, spec in model["entities"][other].get(group, {}).items():
                if not (other == e and name == own):
                    taken.update({name, spec.get("renamedFrom") or name})
    return taken


def change_rename_back(g, model):
    """An attribute renamed before (renamedFrom: old) is named old again, its renamedFrom kept or dropped: either
    way its identifier is old, the identifier of the source attribute it pairs with (seed 2100 trial 20)."""
    choices = []
    for e, entity in sorted(model["entities"].items()):
        for n, spec in entity["attributes"].items():
            old = spec.get("renamedFrom")
            if not old or old == n or (e, n) in g.renamed:
                continue
            if old not in names_taken(model, e, n):
                choices.append((e, n, old))
    if not choices:
        return None
    e, n, old = g.rng.choice(choices)
    entity = model["entities"][e]
    spec = entity["attributes"][n]
    if g.rng.random() < 0.5:
        spec.pop("renamedFrom")
    entity["attributes"] = {(old if k == n else k): v for k, v in entity["attributes"].items()}
    for below in gr.subtree(model, e):
        for u in model["entities"][below].get("uniqueness", []):
            u[:] = [old if p == n else p for p in u]
    g.renamed.add((e, old))
    return "%s.%s renamed back to %s (%s)" % (e, n, old, "renamedFrom: %s" % old if "renamedFrom" in spec
                                                      else "no renamedFrom")


def change_drop_renamed_from(g, model):
    choices = [(e, "attributes", n) for e, entity in sorted(model["entities"].items())
               for n, s in entity["attributes"].items() if "renamedFrom" in s and (e, n) not in g.renamed]
    choices += [(e, None, None) for e, entity in sorted(model["entities"].items())
                if "renamedFrom" in entity and e not in g.renamed]
    if not choices:
        return None
    e, group, n = g.rng.choice(choices)
    if group:
        old = model["entities"][e][group][n].pop("renamedFrom")
        return "%s.%s drops renamedFrom %s" % (e, n, old)
    old = model["entities"][e].pop("renamedFrom")
    return "%s drops renamedFrom %s" % (e, old)


def change_default(g, model):
    e, a = g.attribute_of(model)
    if not a:
        return None
    spec = model["entities"][e]["attributes"][a]
    if "default" in spec and g.rng.random() < 0.5:
        if not spec.get("optional"):
            return None
        del spec["default"]
        return "%s.%s default removed" % (e, a)
    d = g.default(spec)
    if d is None or d == spec.get("default"):
        return None
    spec["default"] = d
    return "%s.%s default %s" % (e, a, json.dumps(d, ensure_ascii=False))


def change_make_required(g, model):
    e, a = g.attribute_of(model, lambda s: s.get("optional"))
    if not a:
        return None
    spec = model["entities"][e]["attributes"][a]
    spec["optional"] = False
    if "default" not in spec and g.rng.random() < 0.6:
        d = g.default(spec)
        if d is not None:
            spec["default"] = d
    return "%s.%s made required%s" % (e, a, " with default %s" % json.dumps(spec["default"], ensure_ascii=False)
                                      if "default" in spec else " without a default")


def change_make_optional(g, model):
    e, a = g.attribute_of(model, lambda s: not s.get("optional"))
    if not a:
        return None
    spec = model["entities"][e]["attributes"][a]
    spec["optional"] = True
    if "default" in spec and g.rng.random() < 0.5:
        del spec["default"]
        return "%s.%s made optional without a default" % (e, a)
    return "%s.%s made optional" % (e, a)


def change_widen(g, model):
    e, a = g.attribute_of(model, lambda s: s["type"] in ("integer16", "integer32"))
    if not a:
        return None
    spec = model["entities"][e]["attributes"][a]
    old = spec["type"]
    spec["type"] = "integer64" if old == "integer32" or g.rng.random() < 0.4 else "integer32"
    return "%s.%s widened %s → %s" % (e, a, old, spec["type"])


def change_min_max(g, model):
    e, a = g.attribute_of(model, lambda s: s["type"] in INTEGERS)
    if not a:
        return None
    spec = model["entities"][e]["attributes"][a]
    if ("min" in spec or "max" in spec) and g.rng.random() < 0.4:
        spec.pop("min", None)
        spec.pop("max", None)
        return "%s.%s min/max removed" % (e, a)
    low, high = g.rng.choice([(0, 100), (-1, 7), (1, 32767), (0, 5), (-32768, 1)])
    trial = dict(spec, min=low, max=high)
    if "default" in spec and not within(trial, spec["default"]):
        return None
    spec["min"], spec["max"] = low, high
    return "%s.%s min %d max %d" % (e, a, low, high)


def change_uniqueness(g, model):
    e = g.entity(model)
    entity = model["entities"][e]
    if entity.get("uniqueness") and g.rng.random() < 0.5:
        del entity["uniqueness"]
        return "%s uniqueness removed" % e
    candidates = [a for a in gr.full(model, e, "attributes") if a != "key"]
    if not candidates:
        return None
    constraint = sorted(g.rng.sample(candidates, min(len(candidates), g.rng.choice([1, 1, 2]))))
    if constraint in entity.get("uniqueness", []):
        return None
    entity.setdefault("uniqueness", []).append(constraint)
    return "%s uniqueness %s added" % (e, constraint)


def change_add_entity(g, model):
    if len(model["entities"]) >= 5:
        return None
    name = g.fresh_entity(model)
    entity = {"attributes": {"key": {"type": "string"}}, "relationships": {}}
    for _ in range(g.rng.randint(0, 2)):
        entity["attributes"][g.fresh_attribute(name, entity)] = g.attribute()
    model["entities"][name] = entity
    return "%s added {%s}" % (name, ", ".join("%s: %s" % (a, describe_attribute(s))
                                               for a, s in entity["attributes"].items() if a != "key"))


def change_add_entity_beside_renamed(g, model):
    """A new entity takes the old name of a renamed one that stays (Echo, renamedFrom: Card, beside a new Card)."""
    if len(model["entities"]) >= 5:
        return None
    choices = [(e, s["renamedFrom"]) for e, s in sorted(model["entities"].items())
               if s.get("renamedFrom") and s["renamedFrom"] != e and s["renamedFrom"] not in model["entities"]
               and not any(o.get("renamedFrom") == s["renamedFrom"] for n, o in model["entities"].items() if n != e)]
    if not choices:
        return None
    e, old = g.rng.choice(choices)
    entity = {"attributes": {"key": {"type": "string"}}, "relationships": {}}
    for _ in range(g.rng.randint(0, 2)):
        entity["attributes"][g.fresh_attribute(old, entity)] = g.attribute()
    model["entities"][old] = entity
    g.renamed.add(old)
    return "%s added beside %s (renamedFrom: %s) {%s}" % (old, e, old, ", ".join(
        "%s: %s" % (a, describe_attribute(s)) for a, s in entity["attributes"].items() if a != "key"))


def change_remove_entity(g, model):
    if len(model["entities"]) <= 1:
        return None
    e = g.entity(model)
    if gr.children(model, e):
        return None
    return change_remove_entity_named(g, model, e)


def change_remove_subentity(g, model):
    """A subentity without subentities removed, its objects left for a merge into an entity of its hierarchy
    (the hop's mapping file then often has one: `merge_into`)."""
    choices = [e for e in sorted(model["entities"]) if gr.parent(model, e) and not gr.children(model, e)]
    if not choices:
        return None
    return change_remove_entity_named(g, model, g.rng.choice(choices))


def change_remove_entity_named(g, model, e):
    del model["entities"][e]
    for entity in model["entities"].values():
        for r in [r for r, s in entity.get("relationships", {}).items() if s["destination"] == e]:
            del entity["relationships"][r]
    g.removed_entities.append(e)
    return "%s removed" % e


def change_rename_entity(g, model):
    e = g.entity(model)
    new = g.fresh_entity(model)
    if new in model["entities"] or e in g.renamed:
        return None
    g.renamed.add(new)
    entity = model["entities"][e]
    canonical = g.rng.random() < 0.5
    entity["renamedFrom"] = (entity.get("renamedFrom") or e) if canonical else e
    model["entities"] = {(new if k == e else k): v for k, v in model["entities"].items()}
    for other in model["entities"].values():
        if other.get("parent") == e:
            other["parent"] = new
        for s in other.get("relationships", {}).values():
            if s["destination"] == e:
                s["destination"] = new
    return "%s renamed to %s (renamedFrom: %s)" % (e, new, entity["renamedFrom"])


def change_rename_entity_back(g, model):
    """An entity renamed before (renamedFrom: old) is named old again, its renamedFrom kept or dropped."""
    choices = [(e, s["renamedFrom"]) for e, s in sorted(model["entities"].items())
               if s.get("renamedFrom") and s["renamedFrom"] != e and e not in g.renamed
               and s["renamedFrom"] not in set(model["entities"])
               and sum(1 for o in model["entities"].values() if o.get("renamedFrom") == s["renamedFrom"]) == 1]
    if not choices:
        return None
    e, old = g.rng.choice(choices)
    entity = model["entities"][e]
    if g.rng.random() < 0.5:
        entity.pop("renamedFrom")
    model["entities"] = {(old if k == e else k): v for k, v in model["entities"].items()}
    for other in model["entities"].values():
        if other.get("parent") == e:
            other["parent"] = old
        for r in other.get("relationships", {}).values():
            if r["destination"] == e:
                r["destination"] = old
    g.renamed.add(old)
    return "%s renamed back to %s (%s)" % (e, old, "renamedFrom: %s" % old if "renamedFrom" in entity
                                           else "no renamedFrom")


def change_add_relationship(g, model):
    names = sorted(model["entities"])
    if len(names) < 2:
        return None
    owner, destination = g.rng.sample(names, 2)
    return g.add_pair(model, owner, destination, ordered=(False, "ordered" not in g.without and g.rng.random() < 0.3))


def change_remove_relationship(g, model):
    choices = [(e, r, s) for e, entity in sorted(model["entities"].items())
               for r, s in entity.get("relationships", {}).items() if r[0] in "on"]
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    del model["entities"][e]["relationships"][r]
    del model["entities"][s["destination"]]["relationships"][s["inverse"]]
    return "%s.%s ↔ %s.%s removed" % (e, r, s["destination"], s["inverse"])


def change_required_to_one(g, model):
    choices = [(e, r, s) for e, entity in sorted(model["entities"].items())
               for r, s in entity.get("relationships", {}).items() if not s.get("toMany")]
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    s["optional"] = not s.get("optional", True)
    return "%s.%s made %s" % (e, r, "optional" if s["optional"] else "required")


def change_min_count(g, model):
    choices = [(e, r, s) for e, entity in sorted(model["entities"].items())
               for r, s in entity.get("relationships", {}).items() if s.get("toMany")]
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    if "minCount" in s:
        del s["minCount"]
        return "%s.%s minCount removed" % (e, r)
    s["minCount"] = g.rng.choice([1, 2])
    if s["minCount"] > s.get("maxCount", 2):
        del s["minCount"]
        return None
    return "%s.%s minCount %d (optional: none or at least that)" % (e, r, s["minCount"])


def change_rename_relationship(g, model):
    choices = [(e, r, s) for e, entity in sorted(model["entities"].items())
               for r, s in entity.get("relationships", {}).items() if (e, r) not in g.renamed]
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    g.relationship_counter += 1
    new = "%s%d" % (r[0], g.relationship_counter)
    relationships = model["entities"][e]["relationships"]
    s["renamedFrom"] = identifier(s, r) if g.rng.random() < 0.5 else r
    model["entities"][e]["relationships"] = {(new if k == r else k): v for k, v in relationships.items()}
    model["entities"][s["destination"]]["relationships"][s["inverse"]]["inverse"] = new
    g.renamed.add((e, new))
    return "%s.%s renamed to %s (renamedFrom: %s)" % (e, r, new, s["renamedFrom"])


def change_rename_relationship_back(g, model):
    """A relationship renamed before (renamedFrom: old) is named old again, its renamedFrom kept or dropped."""
    choices = []
    for e, entity in sorted(model["entities"].items()):
        for r, spec in entity.get("relationships", {}).items():
            old = spec.get("renamedFrom")
            if not old or old == r or (e, r) in g.renamed or not spec.get("inverse"):
                continue
            holder = next((d for d in [spec["destination"]] + gr.ancestors(model, spec["destination"])
                           if spec["inverse"] in model["entities"][d].get("relationships", {})), None)
            if old not in names_taken(model, e, r) and holder:
                choices.append((e, r, old, holder))
    if not choices:
        return None
    e, r, old, holder = g.rng.choice(choices)
    spec = model["entities"][e]["relationships"][r]
    if g.rng.random() < 0.5:
        spec.pop("renamedFrom")
    model["entities"][e]["relationships"] = {(old if k == r else k): v
                                             for k, v in model["entities"][e]["relationships"].items()}
    model["entities"][holder]["relationships"][spec["inverse"]]["inverse"] = old
    g.renamed.add((e, old))
    return "%s.%s renamed back to %s (%s)" % (e, r, old, "renamedFrom: %s" % old if "renamedFrom" in spec
                                                      else "no renamedFrom")


def change_to_many_to_one(g, model):
    """The to-many side of a pair (`m`, `n`, `k`) made to-one (the data decides: one-to-one, or a many-to-many
    made one-to-many), or back to to-many."""
    choices = [(e, r, s) for e, entity in sorted(model["entities"].items())
               for r, s in entity.get("relationships", {}).items() if r[0] in "mnk"]
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    if s.get("toMany"):
        for key in ("toMany", "minCount", "maxCount", "ordered"):
            s.pop(key, None)
        shape = "one-to-many" if gr.inverse_spec(model, s).get("toMany") else "one-to-one"
        return "%s.%s made to-one (%s with %s.%s)" % (e, r, shape, s["destination"], s["inverse"])
    s["toMany"] = True
    return "%s.%s made to-many again" % (e, r)


# Change kinds (for --without) and their weights.
CHANGES = {
    "add-attribute": (change_add_attribute, 3), "remove-attribute": (change_remove_attribute, 2),
    "rename-attribute": (change_rename_attribute, 2), "rename-back": (change_rename_back, 3),
    "add-beside-renamed": (change_add_beside_renamed, 2), "add-entity-beside-renamed": (change_add_entity_beside_renamed, 2),
    "default": (change_default, 3),
    "make-required": (change_make_required, 2), "make-optional": (change_make_optional, 2),
    "widen": (change_widen, 2), "min-max": (change_min_max, 1), "uniqueness": (change_uniqueness, 1),
    "add-entity": (change_add_entity, 1), "remove-entity": (change_remove_entity, 1),
    "remove-subentity": (change_remove_subentity, 2),
    "rename-entity": (change_rename_entity, 1), "rename-entity-back": (change_rename_entity_back, 2),
    "add-relationship": (change_add_relationship, 1),
    "remove-relationship": (change_remove_relationship, 1), "required-to-one": (change_required_to_one, 1),
    "min-count": (change_min_count, 1), "drop-renamed-from": (change_drop_renamed_from, 1),
    "rename-relationship": (change_rename_relationship, 1),
    "rename-relationship-back": (change_rename_relationship_back, 2), "to-one": (change_to_many_to_one, 1),
    # Many-to-many, ordered, counts (Scripts/migration_diff_graph.py).
    "many-to-many": (gr.change_add_many_to_many, 1), "to-many": (gr.change_to_many, 1),
    "ordered": (gr.change_ordered, 1), "max-count": (gr.change_max_count, 1),
    # Hierarchies.
    "add-subentity": (gr.change_add_subentity, 1), "new-parent": (gr.change_new_parent, 1),
    "move-up": (gr.change_move_up, 2), "move-down": (gr.change_move_down, 2),
    "widen-destination": (gr.change_widen_destination, 1), "leave-hierarchy": (gr.change_leave_hierarchy, 1),
}
# Not changes of a version, but also left out with --without: mapping files, their `source:`, spanning files,
# version 1's hierarchy (a parent with subentities); `many-to-many` and `ordered` also leave version 1's out.
OTHER_KINDS = ("mapping-files", "source", "spans", "hierarchy", "merges", "merge-tables")


# MARK: Mapping files

def mapping_file(g, source, destination):
    """A random mapping file between two versions (dicts), or None; only forms that fit both versions."""
    sv = ref.Version(source["version"], source)
    dv = ref.Version(destination["version"], destination)
    entities = {}
    for name, entity in dv.entities.items():
        if g.rng.random() < 0.5:
            continue
        partner = ref.pair(entity, sv.entities.values(), set(dv.entities))
        spec = {}
        # `source:` only between entities outside any hierarchy (two mappings of one source entity into one
        # hierarchy are refused) and without relationships.
        lonely = not entity.relationships and not entity.parent and not entity.children
        others = [e for e in sv.entities.values() if e is not partner and not e.relationships
                  and not e.parent and not e.children]
        if (lonely and others and "source" not in g.without and g.rng.random() < 0.15
                and (partner is None or (not partner.relationships and not partner.parent
                                         and not partner.children))):
            partner = g.rng.choice(others)
            spec["source"] = partner.name
        if partner is None:
            continue
        if g.rng.random() < 0.4:
            spec["filter"] = random_filter(g, partner)
        properties = {}
        for attribute in entity.stored_attributes():
            if attribute.name == "key" or g.rng.random() < 0.6:
                continue
            form = property_form(g, attribute, partner)
            if form is not None:
                properties[attribute.name] = form
        if properties:
            spec["properties"] = properties
        if spec:
            entities[name] = spec
    if "merges" not in g.without:
        merge_into(g, sv, dv, entities)
    return {"entities": entities} if entities else None


def merge_into(g, sv, dv, entities):
    """Further entity mappings (merges): a source entity no destination entity pairs with, made into objects
    of an entity of its hierarchy (`<S>To<D>: {destination: D, source: S}`), as olvid-ios merges its Locked
    subentities into their siblings. Only the shape the toolkit runs set-based: one source table, and no
    relationship of the destination entity that the source entity declares itself (its pairs would be in a
    storage of their own)."""
    def top(version, e):
        while version.entities[e].parent:
            e = version.entities[e].parent
        return e
    paired = {}
    for name, entity in dv.entities.items():
        given = entities.get(name) or {}
        partner = (sv.entities.get(given["source"]) if "source" in given
                   else ref.pair(entity, sv.entities.values(), set(dv.entities)))
        if partner is not None:
            paired[name] = partner
    read = {p.name for p in paired.values()}
    for s in sorted(sv.entities):
        source = sv.entities[s]
        if s in read or source.abstract or g.rng.random() < 0.2:
            continue
        if not source.parent and (source.children or "merge-tables" in g.without):
            continue  # from another table: an entity without subentities (it takes new keys there)

        def fits(d, p):
            if not source.parent:
                return top(sv, p.name) != top(sv, s)
            return top(sv, p.name) == top(sv, s) and not set(source.own_relationships) & set(dv.entities[d].relationships)
        targets = [d for d, p in sorted(paired.items())
                   if fits(d, p) and not dv.entities[d].abstract and not (entities.get(d) or {}).get("source")
                   and not any(r.to_many and r.name in source.relationships
                               for r in dv.entities[d].relationships.values())]
        if not targets:
            continue
        d = g.rng.choice(targets)
        spec = {"destination": d, "source": s}
        if g.rng.random() < 0.3:
            spec["filter"] = random_filter(g, source)
        properties = {}
        for attribute in dv.entities[d].stored_attributes():
            if attribute.name != "key" and g.rng.random() < 0.4:
                form = property_form(g, attribute, source)
                if form is not None:
                    properties[attribute.name] = form
        if properties:
            spec["properties"] = properties
        entities["%sTo%s" % (s, d)] = spec


def random_filter(g, entity):
    attributes = [a for a in entity.stored_attributes()]
    a = g.rng.choice(attributes)
    if a.name == "key":
        return "key != '%s%d'" % (entity.name, g.rng.randint(1, 4))
    if a.type in INTEGERS:
        return g.rng.choice(["%s != nil", "%s == nil", "%s > 0", "%s <= 5", "NOT (%s > 1)"]).replace("%s", a.name)
    if a.type == "string":
        return g.rng.choice(["%s != nil", "%s == 'a'", "%s BEGINSWITH 'a'", "%s != ''"]).replace("%s", a.name)
    return g.rng.choice(["%s == YES", "%s != nil", "%s == NO OR %s == nil"]).replace("%s", a.name)


def property_form(g, attribute, source):
    kind = g.rng.randrange(4)
    same = [a for a in source.stored_attributes()
            if a.type == attribute.type or (a.type, attribute.type) in ref.WIDENING]
    if kind == 0:
        candidates = [v for v in DEFAULTS[attribute.type] if within_attribute(attribute, v)]
        if attribute.optional and g.rng.random() < 0.3:
            return {"default": None}
        return {"default": g.rng.choice(candidates)} if candidates else None
    if kind == 1 and same:
        return "$source.%s" % g.rng.choice(same).name
    if attribute.type in INTEGERS:
        numbers = [a for a in source.stored_attributes() if a.type in INTEGERS]
        strings = [a for a in source.stored_attributes() if a.type == "string"]
        if numbers and g.rng.random() < 0.7:
            n = g.rng.choice(numbers).name
            return {"value": g.rng.choice(["$source.%s + 1", "$source.%s * 2", "$source.%s - 3", "abs:($source.%s)"])
                    .replace("%s", n)}
        if strings:
            return {"value": "length:($source.%s)" % g.rng.choice(strings).name}
    if attribute.type == "string":
        strings = [a for a in source.stored_attributes() if a.type == "string"]
        if strings:
            s = g.rng.choice(strings).name
            return {"value": g.rng.choice(["lowercase:($source.%s)", "uppercase:($source.%s)", "$source.%s + 'x'"])
                    .replace("%s", s)}
    return None


def within_attribute(attribute, value):
    spec = {}
    if attribute.minimum is not None:
        spec["min"] = attribute.minimum
    if attribute.maximum is not None:
        spec["max"] = attribute.maximum
    return within(spec, value)


def random_history(rng, without=()):
    g = Generator(rng, without)
    history = History()
    g.first(history)
    for _ in range(rng.randint(2, 5)):
        g.next(history)
    for n in range(1, len(history.versions)):
        # A hop that removes a subentity takes a mapping file more often: one that may merge its objects.
        removes_subentity = any(s.get("parent") and e not in history.versions[n]["entities"]
                                for e, s in history.versions[n - 1]["entities"].items())
        chance = 0.6 if removes_subentity and "merges" not in g.without else 0.25
        if rng.random() < chance and "mapping-files" not in g.without:
            spec = mapping_file(g, history.versions[n - 1], history.versions[n])
            if spec:
                history.files[(n, n + 1)] = spec
    # A span (a mapping model from an old version to a newer one): the default path takes it from its first
    # version, the direct path when it spans the whole migration; an empty one makes that piece inferred directly.
    last = len(history.versions)
    if last >= 3 and "spans" not in g.without and rng.random() < 0.2:
        a = 1 if rng.random() < 0.6 else rng.randint(1, last - 2)
        b = rng.randint(a + 2, last)
        history.files[(a, b)] = mapping_file(g, history.versions[a - 1], history.versions[b - 1]) or {"entities": {}}
    return history


# MARK: Fixed cases

# Each case: what it checks, its versions (YAML), mapping files, and data at version 1 (entities in load order).
# The first two groups are issue 35's fused-chain bugs; the others are what this fuzzer found (Docs/Reference.md).
FIXED = {
    "intermediate-default": (
        "version 2 adds A.x with default 5, version 3 makes it optional without a default: hop by hop x = 5",
        ["A: {attributes: {key: string, name: string?}}",
         "A: {attributes: {key: string, name: string?, x: {type: integer16, optional: true, default: 5}}}",
         "A: {attributes: {key: string, name: string?, x: integer16?}}"],
        {}, [("A", [{"key": "A1", "name": "a"}, {"key": "A2", "name": None}])]),
    "intermediate-default-required": (
        "version 2 adds A.x required with default 0, version 3 drops the default: hop by hop x = 0",
        ["A: {attributes: {key: string}}",
         "A: {attributes: {key: string, x: {type: integer16, default: 0}}}",
         "A: {attributes: {key: string, x: integer16}}"],
        {}, [("A", [{"key": "A1"}])]),
    "intermediate-check-unique": (
        "version 2 makes A.n unique, version 3 drops it: hop 1 → 2 is refused (two objects hold 5)",
        ["A: {attributes: {key: string, n: integer16?}}",
         "A: {attributes: {key: string, n: integer16?}, uniqueness: [[n]]}",
         "A: {attributes: {key: string, n: integer16?}}"],
        {}, [("A", [{"key": "A1", "n": 5}, {"key": "A2", "n": 5}])]),
    "intermediate-check-max": (
        "version 2 gives A.n max 7, version 3 drops it: hop 1 → 2 is refused (100 is above 7)",
        ["A: {attributes: {key: string, n: integer16?}}",
         "A: {attributes: {key: string, n: {type: integer16, optional: true, max: 7}}}",
         "A: {attributes: {key: string, n: integer16?}}"],
        {}, [("A", [{"key": "A1", "n": 5}, {"key": "A2", "n": 100}])]),
    "intermediate-check-required": (
        "version 2 makes A.n required without a default, version 3 optional again: hop 1 → 2 is refused (a nil)",
        ["A: {attributes: {key: string, n: integer16?}}",
         "A: {attributes: {key: string, n: integer16}}",
         "A: {attributes: {key: string, n: integer16?}}"],
        {}, [("A", [{"key": "A1", "n": 5}, {"key": "A2", "n": None}])]),
    "required-to-one": (
        "version 2 makes the to-one A.b required while A2 has none: validation refuses it",
        ["{A: {attributes: {key: string}, relationships: {b: {destination: B, inverse: as}}},"
         " B: {attributes: {key: string}, relationships: {as: {destination: A, toMany: true, inverse: b}}}}",
         "{A: {attributes: {key: string}, relationships: {b: {destination: B, inverse: as, optional: false}}},"
         " B: {attributes: {key: string}, relationships: {as: {destination: A, toMany: true, inverse: b}}}}"],
        {}, [("B", [{"key": "B1"}]), ("A", [{"key": "A1", "b": 1}, {"key": "A2", "b": None}])]),
    "min-count": (
        "version 2 gives B.as minCount 2 while B1 holds one A: validation refuses it",
        ["{A: {attributes: {key: string}, relationships: {b: {destination: B, inverse: as}}},"
         " B: {attributes: {key: string}, relationships: {as: {destination: A, toMany: true, inverse: b}}}}",
         "{A: {attributes: {key: string}, relationships: {b: {destination: B, inverse: as}}},"
         " B: {attributes: {key: string}, relationships: {as: {destination: A, toMany: true, inverse: b,"
         " minCount: 2}}}}"],
        {}, [("B", [{"key": "B1"}]), ("A", [{"key": "A1", "b": 1}])]),
    "gate-after-earlier-hop": (
        "1-to-2's filter leaves no A; 2-to-3 makes A from B: no A object of version 2 is lost, so it migrates",
        ["{A: {attributes: {key: string}}, B: {attributes: {key: string}}}"] * 3,
        {(1, 2): {"entities": {"A": {"filter": "key == 'none'"}}}, (2, 3): {"entities": {"A": {"source": "B"}}}},
        [("A", [{"key": "A1"}]), ("B", [{"key": "B1"}])]),
    "required-default-max": (
        "one hop makes A.n required with default 5 and gives it max 5: 32767 is above it, validation refuses",
        ["A: {attributes: {key: string, n: integer16?}}",
         "A: {attributes: {key: string, n: {type: integer16, default: 5, max: 5}}}"],
        {}, [("A", [{"key": "A1", "n": 32767}])]),
    "checks-see-filter": (
        "A.n becomes required without a default, and 1-to-2's filter keeps only objects with a value: it migrates",
        ["A: {attributes: {key: string, n: integer16?}}", "A: {attributes: {key: string, n: integer16}}"],
        {(1, 2): {"entities": {"A": {"filter": "n != nil"}}}},
        [("A", [{"key": "A1", "n": 1}, {"key": "A2", "n": None}])]),
    "composite-unique-fill": (
        "one hop adds uniqueness [s, n] and fills s's nils with 'a': (x, 1) and (a, 1) differ, so it migrates",
        ["B: {attributes: {key: string, s: string?, n: integer16}}",
         "B: {attributes: {key: string, s: {type: string, default: a}, n: integer16}, uniqueness: [[s, n]]}"],
        {}, [("B", [{"key": "B1", "s": "x", "n": 1}, {"key": "B2", "s": None, "n": 1}])]),
    "unique-removed-fill": (
        "one hop drops A.n's uniqueness and fills its nils with 5: two A with 5 are allowed now, so it migrates",
        ["A: {attributes: {key: string, n: integer16?}, uniqueness: [[n]]}",
         "A: {attributes: {key: string, n: {type: integer16, default: 5}}}"],
        {}, [("A", [{"key": "A1", "n": None}, {"key": "A2", "n": None}])]),
    "source-copy-nil": (
        "1-to-2 sets A.m (required, default 5) to $source.n, nil for A1: a mapping's value is set as computed, "
        "so validation refuses it (as { value: \"$source.n\" } already is)",
        ["A: {attributes: {key: string, n: integer16?, m: {type: integer32, default: 5}}}"] * 2,
        {(1, 2): {"entities": {"A": {"properties": {"m": "$source.n"}}}}},
        [("A", [{"key": "A1", "n": None, "m": 7}])]),
    "renamed-from-not-name": (
        "version 3's A is renamed from version 2's B (A was removed in 2): the direct mapping 1 → 3 pairs it "
        "with nothing (its renaming identifier is B), so no A object of version 1 survives on any path",
        ["A: {attributes: {key: string, n: integer16?}}", "B: {attributes: {key: string, n: integer16?}}",
         "A: {renamedFrom: B, attributes: {key: string, n: integer16?}}"],
        {}, [("A", [{"key": "A1", "n": 1}])]),
    "new-required-empty": (
        "version 2 adds a required A.x without a default while the store has no A: nothing fails validation",
        ["{A: {attributes: {key: string}}, B: {attributes: {key: string}}}",
         "{A: {attributes: {key: string, x: integer16}}, B: {attributes: {key: string}}}"],
        {}, [("B", [{"key": "B1"}])]),
    "later-default": (
        "version 2 adds A.x without a default, version 3 gives it default 5: objects made before keep nil (seed 20 trial 100)",
        ["A: {attributes: {key: string}}", "A: {attributes: {key: string, x: integer16?}}",
         "A: {attributes: {key: string, x: {type: integer16, optional: true, default: 5}}}"],
        {}, [("A", [{"key": "A1"}])]),
    "source-copy-same-type": (
        "1-to-2 sets the required A.m (default 5) to $source.n of the same type, nil for A1: validation refuses it "
        "(seed 20 trial 46, a span renaming the column in place)",
        ["A: {attributes: {key: string, n: integer64?}}", "A: {attributes: {key: string, m: {type: integer64, default: 5}}}"],
        {(1, 2): {"entities": {"A": {"properties": {"m": "$source.n"}}}}},
        [("A", [{"key": "A1", "n": None}])]),
    "later-default-required": (
        "version 2 makes A.n required without a default, version 3 gives it default 40: hop 1 → 2 refuses the nil "
        "(outside tester, F8; seed 3535 trial 94)",
        ["A: {attributes: {key: string, n: integer32?}}", "A: {attributes: {key: string, n: integer32}}",
         "A: {attributes: {key: string, n: {type: integer32, default: 40}}}"],
        {}, [("A", [{"key": "A1", "n": 7}, {"key": "A2", "n": None}])]),
    "inverse-on-subentity": (
        "one hop moves B.lp (one-to-one with L.lpb) and B.marks up to a new abstract parent P and renames their "
        "inverses lpi and item without renamedFrom: B's mapping carries lp and marks, and setting one side sets the "
        "other, so L1 keeps B1 and M1 keeps B1 (BookPlayer 7 → 8; known as: a half-set one-to-one, the required "
        "item refused as new)",
        ["{B: {attributes: {key: string}, relationships: {lp: {destination: L, inverse: lpb},"
         " marks: {destination: M, toMany: true, inverse: book}}},"
         " M: {attributes: {key: string}, relationships: {book: {destination: B, inverse: marks, optional: false}}},"
         " L: {attributes: {key: string}, relationships: {lpb: {destination: B, inverse: lp}}}}",
         "{P: {abstract: true, attributes: {key: string}, relationships: {lp: {destination: L, inverse: lpi},"
         " marks: {destination: M, toMany: true, inverse: item}}}, B: {parent: P},"
         " M: {attributes: {key: string}, relationships: {item: {destination: P, inverse: marks, optional: false}}},"
         " L: {attributes: {key: string}, relationships: {lpi: {destination: P, inverse: lp}}}}"],
        {}, [("L", [{"key": "L1"}]), ("B", [{"key": "B1", "lp": 1}]), ("M", [{"key": "M1", "book": 1}])]),
    "inverse-pairs": (
        "D.o is renamed o2, then o3 (required) with renamedFrom: o2; the direct mapping 1 → 3 pairs o3 with nothing, "
        "but its inverse A.m pairs, and setting one side sets the other: D1 keeps A1 (seed 60 trial 13)",
        ["{A: {attributes: {key: string}, relationships: {m: {destination: D, toMany: true, inverse: o}}},"
         " D: {attributes: {key: string}, relationships: {o: {destination: A, inverse: m}}}}",
         "{A: {attributes: {key: string}, relationships: {m: {destination: D, toMany: true, inverse: o2}}},"
         " D: {attributes: {key: string}, relationships: {o2: {destination: A, inverse: m, renamedFrom: o}}}}",
         "{A: {attributes: {key: string}, relationships: {m: {destination: D, toMany: true, inverse: o3}}},"
         " D: {attributes: {key: string}, relationships: {o3: {destination: A, inverse: m, renamedFrom: o2, optional: false}}}}"],
        {}, [("A", [{"key": "A1"}]), ("D", [{"key": "D1", "o": 1}])]),
    "filter-min-count": (
        "version 2 gives the optional A.m minCount 2, and 1-to-2's filter leaves A1 none of its one B: "
        "an empty optional to-many passes, so it migrates (seed 101 trial 153: the filtered B was counted)",
        ["{A: {attributes: {key: string}, relationships: {m: {destination: B, toMany: true, inverse: o}}},"
         " B: {attributes: {key: string, n: integer16?}, relationships: {o: {destination: A, inverse: m}}}}",
         "{A: {attributes: {key: string}, relationships: {m: {destination: B, toMany: true, inverse: o, minCount: 2}}},"
         " B: {attributes: {key: string, n: integer16?}, relationships: {o: {destination: A, inverse: m}}}}"],
        {(1, 2): {"entities": {"B": {"filter": "n != nil"}}}},
        [("A", [{"key": "A1"}]), ("B", [{"key": "B1", "n": None, "o": 1}])]),
    "later-default-changed": (
        "version 2 adds A.x with default 40000, version 3 keeps it, version 4 changes the default to 5: "
        "objects made before keep 40000 (seed 200 trial 2: the fused run compared only the next version)",
        ["A: {attributes: {key: string}}",
         "A: {attributes: {key: string, x: {type: integer32, default: 40000}}}",
         "A: {attributes: {key: string, x: {type: integer32, default: 40000}, y: string?}}",
         "A: {attributes: {key: string, x: {type: integer32, default: 5}, y: string?}}"],
        {}, [("A", [{"key": "A1"}])]),
    "ordered-through-unordered": (
        "version 2 makes the ordered A.m (one-to-many) and A.n (many-to-many) unordered, version 3 ordered again: "
        "hop by hop they take primary-key order, the direct mapping keeps version 1's order (B3, B1, B2 and B2, "
        "B3, B1); the comparison holds each path to its order",
        ["{A: {attributes: {key: string}, relationships: {m: {destination: B, toMany: true, inverse: o, ordered: true},"
         " n: {destination: B, toMany: true, inverse: k, ordered: true}}},"
         " B: {attributes: {key: string}, relationships: {o: {destination: A, inverse: m},"
         " k: {destination: A, toMany: true, inverse: n}}}}",
         "{A: {attributes: {key: string}, relationships: {m: {destination: B, toMany: true, inverse: o},"
         " n: {destination: B, toMany: true, inverse: k}}},"
         " B: {attributes: {key: string}, relationships: {o: {destination: A, inverse: m},"
         " k: {destination: A, toMany: true, inverse: n}}}}",
         "{A: {attributes: {key: string}, relationships: {m: {destination: B, toMany: true, inverse: o, ordered: true},"
         " n: {destination: B, toMany: true, inverse: k, ordered: true}}},"
         " B: {attributes: {key: string}, relationships: {o: {destination: A, inverse: m},"
         " k: {destination: A, toMany: true, inverse: n}}}}"],
        {}, [("B", [{"key": "B1"}, {"key": "B2"}, {"key": "B3"}]),
             ("A", [{"key": "A1", "m": [3, 1, 2], "n": [2, 3, 1]}])]),
}
# What the fuzzer found since it generates hierarchies, many-to-many and ordered relationships: toolkit bugs
# still open (Docs/Reference.md, "Open"), so not in `fixed` (CI) until the toolkit gives Core Data's answer.
# Data of a hierarchy's entities carry `_pk` (unique in the hierarchy's table).
OPEN = {
    "subentity-unique-inherited": (
        "version 2 adds B.p3 (default 'a') and a subentity C of B whose uniqueness [p3] is over the inherited p3; "
        "the store holds two B objects and no C: the constraint covers C's instances (none), so it migrates "
        "(seed 2 trial 16: plan compares every row of B's table and refuses, exit 4)",
        ["B: {attributes: {key: string}}",
         "{B: {attributes: {key: string, p3: {type: string, default: a}}}, C: {parent: B, uniqueness: [[p3]]}}"],
        {}, [("B", [{"key": "B1"}, {"key": "B2"}])]),
    "subentity-source-copy-range": (
        "1-to-2 sets the subentity E's inherited A.p2 (min 0, max 100) to $source.p1, -5 for E1: validation "
        "refuses it (seed 2 trial 53: exit 0 with p2 = -5, which `load` refuses; on a root entity plan refuses)",
        ["{A: {attributes: {key: string, p1: integer32, p2: {type: integer32, min: 0, max: 100}}},"
         " E: {parent: A}}"] * 2,
        {(1, 2): {"entities": {"E": {"properties": {"p2": "$source.p1"}}}}},
        [("E", [{"key": "E1", "p1": -5, "p2": 1}])]),
    "leave-hierarchy-to-many": (
        "one hop takes the subentity E out of D's hierarchy and makes D.o7 (to-one, inherited by E) to-many, a "
        "many-to-many with C.m7: C1 keeps D1 and E1 loses o7 (seed 2 trial 32: the join table got E1's pair "
        "and apply failed its own check, exit 1; one version at a time migrates)",
        ["{C: {attributes: {key: string}, relationships: {m7: {destination: D, toMany: true, inverse: o7}}},"
         " D: {attributes: {key: string}, relationships: {o7: {destination: C, inverse: m7}}}, E: {parent: D}}",
         "{C: {attributes: {key: string}, relationships: {m7: {destination: D, toMany: true, inverse: o7}}},"
         " D: {attributes: {key: string}, relationships: {o7: {destination: C, toMany: true, inverse: m7}}},"
         " E: {attributes: {key: string}}}"],
        {}, [("C", [{"key": "C1"}]), ("D", [{"key": "D1", "o7": 1}]), ("E", [{"_pk": 2, "key": "E1", "o7": 1}])]),
    "new-parent-widen": (
        "one hop gives D a new abstract parent E, moves D.o2 up to E, so its inverse B.m2 points to E: Apple's "
        "'create a new parent ... and move properties up', D1 keeps B1 (seed 3 trial 32: refused at plan, exit 4, "
        "'B.m2: destination changed from D to E, an unrelated entity'; with the new parent and the move in two "
        "versions, one version at a time migrates, and a fused run of the two is refused the same way)",
        ["{B: {attributes: {key: string}, relationships: {m2: {destination: D, toMany: true, inverse: o2}}},"
         " D: {attributes: {key: string}, relationships: {o2: {destination: B, inverse: m2}}}}",
         "{B: {attributes: {key: string}, relationships: {m2: {destination: E, toMany: true, inverse: o2}}},"
         " E: {abstract: true, attributes: {key: string}, relationships: {o2: {destination: B, inverse: m2}}},"
         " D: {parent: E}}"],
        {}, [("B", [{"key": "B1"}]), ("D", [{"key": "D1", "o2": 1}])]),
    "partial-widen": (
        "one hop moves B under a new entity E and points X.r (to A) at E, while A and C stay where they were: X1's "
        "target B1 is an E, so X1 keeps it; X2's C1 and X3's A1 are not, so theirs are removed (seed 1902 trial "
        "227, C renamed to G with its renamedFrom dropped later and F leaving: refused at plan, exit 4, 'F.o6: "
        "destination changed from C to G, an unrelated entity', as only some of the old targets are under G)",
        ["{X: {attributes: {key: string}, relationships: {r: {destination: A, optional: true}}},"
         " A: {attributes: {key: string}}, B: {parent: A}, C: {parent: A}}",
         "{X: {attributes: {key: string}, relationships: {r: {destination: E, optional: true}}},"
         " E: {attributes: {note: string?}}, A: {attributes: {key: string}},"
         " B: {parent: E, attributes: {key: string}}, C: {parent: A}}"],
        {}, [("A", [{"_pk": 3, "key": "A1"}]), ("B", [{"_pk": 1, "key": "B1"}]), ("C", [{"_pk": 2, "key": "C1"}]),
             ("X", [{"key": "X1", "r": 1}, {"key": "X2", "r": 2}, {"key": "X3", "r": 3}])]),
    "renamed-back": (
        "version 2 renames A.a to b (renamedFrom: a), version 3 names it a again without renamedFrom: its identifier "
        "is a, b's identifier is a, so they pair and A1 keeps 7 on every path (seed 2100 trial 20, where a to-one "
        "moved up under its old name beside the renamed copy: migrate paired by name only, so hop 2 -> 3 gave a new, "
        "empty a here, and in the trial missed the ambiguity the reference refuses)",
        ["{A: {attributes: {key: string, a: integer16?}}}",
         "{A: {attributes: {key: string, b: {type: integer16, optional: true, renamedFrom: a}}}}",
         "{A: {attributes: {key: string, a: integer16?}}}"],
        {}, [("A", [{"key": "A1", "a": 7}, {"key": "A2"}])]),
    "new-beside-renamed": (
        "version 2 renames B to D (renamedFrom: B), version 3 adds a new B beside it, version 4 adds B.y: hop by hop "
        "B1 is a D and the new B is empty; the direct 1 -> 4 mapping has two claims on the old B and is refused by "
        "both (seed 2303 trial 60: hop 3 -> 4, which changes nothing of D, paired D with the new B, so migrate "
        "refused it and the reference split B1 into a B and a D)",
        ["{B: {attributes: {key: string, x: integer16?}}}",
         "{D: {renamedFrom: B, attributes: {key: string, x: integer16?}}}",
         "{D: {renamedFrom: B, attributes: {key: string, x: integer16?}}, B: {attributes: {key: string?}}}",
         "{D: {renamedFrom: B, attributes: {key: string, x: integer16?}}, B: {attributes: {key: string?, y: integer16?}}}"],
        {}, [("B", [{"key": "B1", "x": 3}])]),
    "file-settles-rename": (
        "version 2 renames A.a to b, version 3 adds a new a beside b (renamedFrom: a): the span 1-to-3 sets a, which "
        "settles the two claims on the old a, so b keeps A1's 7 (seed 2304 trial 170: migrate refused the "
        "ambiguous rename although the file set one of the two)",
        ["{A: {attributes: {key: string, a: integer16?}}}",
         "{A: {attributes: {key: string, b: {type: integer16, optional: true, renamedFrom: a}}}}",
         "{A: {attributes: {key: string, a: integer16?, b: {type: integer16, optional: true, renamedFrom: a}}}}"],
        {(1, 3): {"entities": {"A": {"properties": {"a": {"default": 1}}}}}},
        [("A", [{"key": "A1", "a": 7}, {"key": "A2"}])]),
    "file-on-ambiguous-entity": (
        "version 2 renames B to D, version 3 adds a new B beside it, and the span 1-to-3 sets D.x from $source.x "
        "without saying D's source: the rename stays ambiguous, refused with exit 4 (seed 2302 trial 19: exit 1, "
        "'$source.x is not a property of the source', a consequence of the ambiguity, not its cause)",
        ["{B: {attributes: {key: string, x: integer16?}}}",
         "{D: {renamedFrom: B, attributes: {key: string, x: integer16?}}}",
         "{D: {renamedFrom: B, attributes: {key: string, x: integer16?}}, B: {attributes: {key: string?}}}"],
        {(1, 3): {"entities": {"D": {"properties": {"x": "$source.x"}}}}},
        [("B", [{"key": "B1", "x": 3}])]),
    "file-source-settles-entity": (
        "version 2 renames B to D (y renamed from x and widened) and adds a new B; 1-to-2 gives D `source: B`: D "
        "continues B, with y = x, and the new B is empty (an outside tester: y came out nil, D paired by name only, "
        "and the new B, inferred, would have copied every B)",
        ["{B: {attributes: {key: string, x: integer16?}}}",
         "{D: {renamedFrom: B, attributes: {key: string, y: {type: integer32, optional: true, renamedFrom: x}}},"
         " B: {attributes: {key: string?}}}"],
        {(1, 2): {"entities": {"D": {"source": "B"}}}},
        [("B", [{"key": "B1", "x": 5}, {"key": "B2", "x": 7}])]),
    "inverse-to-one-several": (
        "one hop makes the many-to-many G.cs <-> C.gs one-to-many by giving G a new to-one c (no renamedFrom) while "
        "C.gs keeps its name: C1 and C2 both hold G1, so G1.c would get two objects through the inverse; refused by "
        "both (Delta, hop 3 -> 4: Game.gameCollections -> gameCollection; the reference kept the first)",
        ["{G: {attributes: {key: string}, relationships: {cs: {destination: C, toMany: true, inverse: gs}}},"
         " C: {attributes: {key: string}, relationships: {gs: {destination: G, toMany: true, inverse: cs}}}}",
         "{G: {attributes: {key: string}, relationships: {c: {destination: C, inverse: gs}}},"
         " C: {attributes: {key: string}, relationships: {gs: {destination: G, toMany: true, inverse: c}}}}"],
        {}, [("G", [{"key": "G1"}, {"key": "G2"}]), ("C", [{"key": "C1", "gs": [1]}, {"key": "C2", "gs": [1, 2]}])]),
    "inverse-to-one-single": (
        "as inverse-to-one-several, with each G in one C: G1.c = C1 and G2.c = C2 through the inverse C.gs",
        ["{G: {attributes: {key: string}, relationships: {cs: {destination: C, toMany: true, inverse: gs}}},"
         " C: {attributes: {key: string}, relationships: {gs: {destination: G, toMany: true, inverse: cs}}}}",
         "{G: {attributes: {key: string}, relationships: {c: {destination: C, inverse: gs}}},"
         " C: {attributes: {key: string}, relationships: {gs: {destination: G, toMany: true, inverse: c}}}}"],
        {}, [("G", [{"key": "G1"}, {"key": "G2"}]), ("C", [{"key": "C1", "gs": [1]}, {"key": "C2", "gs": [2]}])]),
    "subentity-filter-to-one": (
        "one hop makes A.m1 to-one (one-to-one with D.o1), and 1-to-2's filter on the subentity C leaves out C1, "
        "the one object with two destinations: C1 is not migrated, so not validated; D1, D2 lose o1 (seed 3 trial "
        "69: refused at plan, exit 4, counting C1; a root entity's filter is respected, case checks-see-filter)",
        ["{A: {attributes: {key: string}, relationships: {m1: {destination: D, toMany: true, inverse: o1}}},"
         " C: {parent: A, attributes: {n: integer16?}},"
         " D: {attributes: {key: string}, relationships: {o1: {destination: A, inverse: m1}}}}",
         "{A: {attributes: {key: string}, relationships: {m1: {destination: D, inverse: o1}}},"
         " C: {parent: A, attributes: {n: integer16?}},"
         " D: {attributes: {key: string}, relationships: {o1: {destination: A, inverse: m1}}}}"],
        {(1, 2): {"entities": {"C": {"filter": "n != nil"}}}},
        [("C", [{"key": "C1", "n": None}]), ("D", [{"key": "D1", "o1": 1}, {"key": "D2", "o1": 1}])]),
    "filter-to-one-members": (
        "one hop makes A.m to-one (one-to-one with B.o), and 1-to-2's filter on B leaves out B2, one of A1's two "
        "members: A1 holds B1 alone, so it migrates (found reviewing the reference's rule, which counted the source "
        "members as the toolkit does: refused at plan, exit 4; a count rule takes only the members a hop migrates, "
        "case filter-min-count)",
        ["{A: {attributes: {key: string}, relationships: {m: {destination: B, toMany: true, inverse: o}}},"
         " B: {attributes: {key: string, n: integer16?}, relationships: {o: {destination: A, inverse: m}}}}",
         "{A: {attributes: {key: string}, relationships: {m: {destination: B, inverse: o}}},"
         " B: {attributes: {key: string, n: integer16?}, relationships: {o: {destination: A, inverse: m}}}}"],
        {(1, 2): {"entities": {"B": {"filter": "n != nil"}}}},
        [("A", [{"key": "A1"}]), ("B", [{"key": "B1", "o": 1, "n": 1}, {"key": "B2", "o": 1}])]),
    "filter-to-one-lowest": (
        "as filter-to-one-members, but the member the filter leaves out is the one with the lower key (B1): A1 "
        "holds B2, the member Core Data's destinationInstances gives (seed 1600 trial 7, a many-to-many made "
        "one-to-many: the lowest source key was taken, then dropped, and A1's to-one was nil)",
        ["{A: {attributes: {key: string}, relationships: {m: {destination: B, toMany: true, inverse: o},"
         " k: {destination: B, toMany: true, inverse: p}}},"
         " B: {attributes: {key: string, n: integer16?}, relationships: {o: {destination: A, inverse: m},"
         " p: {destination: A, toMany: true, inverse: k}}}}",
         "{A: {attributes: {key: string}, relationships: {m: {destination: B, inverse: o},"
         " k: {destination: B, inverse: p}}},"
         " B: {attributes: {key: string, n: integer16?}, relationships: {o: {destination: A, inverse: m},"
         " p: {destination: A, toMany: true, inverse: k}}}}"],
        {(1, 2): {"entities": {"B": {"filter": "n != nil"}}}},
        [("A", [{"key": "A1"}]), ("B", [{"key": "B1", "o": 1, "p": [1]}, {"key": "B2", "o": 1, "p": [1], "n": 2}])]),
    "narrowed-min-count": (
        "one hop moves C.o1 down to the subentity D, so A.m1 is narrowed from C to D, and gives A.m1 minCount 2; "
        "A1's one member is E1, an E: it is not a D, so A1 keeps none, which an optional to-many allows, and it "
        "migrates (seed 7 trial 64, direct path: plan counts E1 and refuses, exit 4)",
        ["{A: {attributes: {key: string}, relationships: {m1: {destination: C, toMany: true, inverse: o1}}},"
         " C: {attributes: {key: string}, relationships: {o1: {destination: A, inverse: m1}}},"
         " D: {parent: C}, E: {parent: C}}",
         "{A: {attributes: {key: string},"
         " relationships: {m1: {destination: D, toMany: true, inverse: o1, minCount: 2}}},"
         " C: {attributes: {key: string}}, D: {parent: C, relationships: {o1: {destination: A, inverse: m1}}},"
         " E: {parent: C}}"],
        {}, [("A", [{"key": "A1"}]), ("E", [{"key": "E1", "o1": 1}])]),
    "move-up-to-one": (
        "one hop moves the many-to-many E.n2 ↔ B.k2 up from the subentity E to its parent C and makes n2 to-one "
        "(a one-to-many with B.k2); E1 holds B1 and B2: a to-many made to-one holding several objects is refused "
        "(seed 7 trial 99: exit 0, E1.n2 = B1 and B2's pair dropped without a warning; on a root entity plan "
        "refuses, exit 4)",
        ["{B: {attributes: {key: string}, relationships: {k2: {destination: E, toMany: true, inverse: n2}}},"
         " C: {attributes: {key: string}}, E: {parent: C, relationships: {n2: {destination: B, toMany: true,"
         " inverse: k2}}}}",
         "{B: {attributes: {key: string}, relationships: {k2: {destination: C, toMany: true, inverse: n2}}},"
         " C: {attributes: {key: string}, relationships: {n2: {destination: B, inverse: k2}}}, E: {parent: C}}"],
        {}, [("B", [{"key": "B1"}, {"key": "B2"}]), ("E", [{"key": "E1", "n2": [1, 2]}])]),
}
# Merges: a mapping file's further entity mapping into one destination entity (`destination:` under the
# mapping's own name), the objects of two source entities of one hierarchy becoming objects of one entity
# (olvid-ios 44 -> 45 merges its `...Locked` subentities into their siblings).
MERGES = {
    "merge-siblings": (
        "one hop removes the subentity L of P and merges its objects into the sibling A (LToA, status 2; A's own "
        "status 1): L1 keeps its owner X2 and its tags T1, T2 (inherited from P), L2 its lockedAt is dropped",
        ["{X: {attributes: {key: string}, relationships: {items: {destination: P, toMany: true, inverse: owner}}},"
         " T: {attributes: {key: string}, relationships: {ps: {destination: P, toMany: true, inverse: tags}}},"
         " P: {attributes: {key: string}, relationships: {owner: {destination: X, inverse: items, optional: true},"
         " tags: {destination: T, toMany: true, inverse: ps}}},"
         " A: {parent: P, attributes: {note: string?}}, L: {parent: P, attributes: {note: string?, lockedAt: date?}}}",
         "{X: {attributes: {key: string}, relationships: {items: {destination: P, toMany: true, inverse: owner}}},"
         " T: {attributes: {key: string}, relationships: {ps: {destination: P, toMany: true, inverse: tags}}},"
         " P: {attributes: {key: string}, relationships: {owner: {destination: X, inverse: items, optional: true},"
         " tags: {destination: T, toMany: true, inverse: ps}}},"
         " A: {parent: P, attributes: {note: string?, status: {type: integer16, default: 0}}}}"],
        {(1, 2): {"entities": {"A": {"properties": {"status": {"default": 1}}},
                               "LToA": {"destination": "A", "source": "L", "properties": {"status": {"default": 2}}}}}},
        [("X", [{"key": "X1"}, {"key": "X2"}]), ("T", [{"key": "T1"}, {"key": "T2"}]),
         ("A", [{"key": "A1", "note": "n1", "owner": 1, "tags": [1]}, {"_pk": 3, "key": "A2", "owner": 1}]),
         ("L", [{"_pk": 2, "key": "L1", "note": "ln", "owner": 2, "tags": [1, 2]},
                {"_pk": 4, "key": "L2", "lockedAt": 100.0}])]),
    "merge-ordered": (
        "X.items is an ordered to-many of P; one hop merges the subentity L into A (rank = level * 2): X1's list "
        "keeps its order (A1, A2, L1, L2)",
        ["{X: {attributes: {key: string}, relationships: {items: {destination: P, toMany: true, ordered: true,"
         " inverse: owner}}}, P: {attributes: {key: string}, relationships: {owner: {destination: X, inverse: items,"
         " optional: true}}}, A: {parent: P}, L: {parent: P, attributes: {level: integer16?}}}",
         "{X: {attributes: {key: string}, relationships: {items: {destination: P, toMany: true, ordered: true,"
         " inverse: owner}}}, P: {attributes: {key: string}, relationships: {owner: {destination: X, inverse: items,"
         " optional: true}}}, A: {parent: P, attributes: {rank: integer32?}}}"],
        {(1, 2): {"entities": {"LToA": {"destination": "A", "source": "L",
                                        "properties": {"rank": {"value": "$source.level * 2"}}}}}},
        [("X", [{"key": "X1"}]), ("A", [{"key": "A1", "owner": 1}, {"_pk": 3, "key": "A2", "owner": 1}]),
         ("L", [{"_pk": 2, "key": "L1", "level": 4, "owner": 1}, {"_pk": 4, "key": "L2", "owner": 1}])]),
    "merge-into-parent": (
        "one hop removes the subentity L and merges its objects into their concrete parent P (LToP); A stays: the "
        "L objects become P objects with their key and owner",
        ["{X: {attributes: {key: string}, relationships: {items: {destination: P, toMany: true, inverse: owner}}},"
         " P: {attributes: {key: string}, relationships: {owner: {destination: X, inverse: items, optional: true}}},"
         " A: {parent: P}, L: {parent: P, attributes: {flag: boolean?}}}",
         "{X: {attributes: {key: string}, relationships: {items: {destination: P, toMany: true, inverse: owner}}},"
         " P: {attributes: {key: string}, relationships: {owner: {destination: X, inverse: items, optional: true}}},"
         " A: {parent: P}}"],
        {(1, 2): {"entities": {"LToP": {"destination": "P", "source": "L"}}}},
        [("X", [{"key": "X1"}]), ("P", [{"key": "P1", "owner": 1}]), ("A", [{"_pk": 2, "key": "A1", "owner": 1}]),
         ("L", [{"_pk": 3, "key": "L1", "owner": 1, "flag": True}, {"_pk": 4, "key": "L2"}])]),
    "merge-filter": (
        "one hop merges the subentity L into A, only the L objects with level > 1 (a filter on LToA): L1 is not "
        "migrated and leaves X1's items",
        ["{X: {attributes: {key: string}, relationships: {items: {destination: P, toMany: true, inverse: owner}}},"
         " P: {attributes: {key: string}, relationships: {owner: {destination: X, inverse: items, optional: true}}},"
         " A: {parent: P}, L: {parent: P, attributes: {level: integer16?}}}",
         "{X: {attributes: {key: string}, relationships: {items: {destination: P, toMany: true, inverse: owner}}},"
         " P: {attributes: {key: string}, relationships: {owner: {destination: X, inverse: items, optional: true}}},"
         " A: {parent: P}}"],
        {(1, 2): {"entities": {"LToA": {"destination": "A", "source": "L", "filter": "level > 1"}}}},
        [("X", [{"key": "X1"}]), ("A", [{"key": "A1", "owner": 1}]),
         ("L", [{"_pk": 2, "key": "L1", "owner": 1, "level": 1}, {"_pk": 3, "key": "L2", "owner": 1, "level": 5}])]),
    "merge-unique": (
        "one hop merges the subentity L into A and gives A the uniqueness constraint [code]: A1 and L1 share code 7, "
        "so the merged Opens break it: refused by both",
        ["{P: {attributes: {key: string}}, A: {parent: P, attributes: {code: integer16?}},"
         " L: {parent: P, attributes: {code: integer16?}}}",
         "{P: {attributes: {key: string}}, A: {parent: P, attributes: {code: integer16?}, uniqueness: [[code]]}}"],
        {(1, 2): {"entities": {"LToA": {"destination": "A", "source": "L"}}}},
        [("A", [{"key": "A1", "code": 7}]), ("L", [{"_pk": 2, "key": "L1", "code": 7}])]),
    "merge-required": (
        "version 2 gives A a required n without a default; the file sets it on A's own mapping only: the further "
        "mapping LToA leaves it nil for L1, refused by both (inference cannot fill it)",
        ["{P: {attributes: {key: string}}, A: {parent: P}, L: {parent: P}}",
         "{P: {attributes: {key: string}}, A: {parent: P, attributes: {n: integer16}}}"],
        {(1, 2): {"entities": {"A": {"properties": {"n": {"default": 3}}},
                               "LToA": {"destination": "A", "source": "L"}}}},
        [("A", [{"key": "A1"}]), ("L", [{"_pk": 2, "key": "L1"}])]),
    "merge-tables": (
        "one hop removes R (a root entity of its own, WordPress-iOS's ReaderComment) and merges its objects into C "
        "(RToC: text = body, reader = true): R1 and R2 take new keys in C's table and keep their post, which lists "
        "them after its own comments (P.cs is ordered); R2's parent R1 is dropped with R.parent",
        ["{P: {attributes: {key: string}, relationships: {cs: {destination: C, toMany: true, ordered: true, inverse: post},"
         " rs: {destination: R, toMany: true, inverse: post}}},"
         " C: {attributes: {key: string, text: string?}, relationships: {post: {destination: P, inverse: cs, optional: true}}},"
         " R: {attributes: {key: string, body: string?}, relationships: {post: {destination: P, inverse: rs, optional: true},"
         " parent: {destination: R, inverse: replies, optional: true}, replies: {destination: R, toMany: true, inverse: parent}}}}",
         "{P: {attributes: {key: string}, relationships: {cs: {destination: C, toMany: true, ordered: true, inverse: post}}},"
         " C: {attributes: {key: string, text: string?, reader: {type: boolean, default: false}},"
         " relationships: {post: {destination: P, inverse: cs, optional: true}}}}"],
        {(1, 2): {"entities": {"RToC": {"destination": "C", "source": "R",
                                        "properties": {"text": "$source.body", "reader": {"default": True}}}}}},
        [("P", [{"key": "P1"}, {"key": "P2"}]), ("C", [{"key": "C1", "text": "c", "post": 1}, {"key": "C2", "post": 1}]),
         ("R", [{"key": "R1", "body": "r", "post": 1}, {"key": "R2", "post": 2, "parent": 1}, {"key": "R3"}])]),
    "merge-tables-references": (
        "N.about points at R objects (to-one) and N.likes holds R objects (many-to-many); one hop merges R into C and "
        "makes both point at C: every reference follows R's objects to their new keys",
        ["{C: {attributes: {key: string}}, R: {attributes: {key: string}, relationships: {"
         " notes: {destination: N, toMany: true, inverse: about}, likers: {destination: N, toMany: true, inverse: likes}}},"
         " N: {attributes: {key: string}, relationships: {about: {destination: R, inverse: notes, optional: true},"
         " likes: {destination: R, toMany: true, inverse: likers}}}}",
         "{C: {attributes: {key: string}, relationships: {notes: {destination: N, toMany: true, inverse: about},"
         " likers: {destination: N, toMany: true, inverse: likes}}},"
         " N: {attributes: {key: string}, relationships: {about: {destination: C, inverse: notes, optional: true},"
         " likes: {destination: C, toMany: true, inverse: likers}}}}"],
        {(1, 2): {"entities": {"RToC": {"destination": "C", "source": "R"}}}},
        [("C", [{"key": "C1"}, {"key": "C2"}]), ("R", [{"key": "R1"}, {"key": "R2"}]),
         ("N", [{"key": "N1", "about": 2, "likes": [1, 2]}, {"key": "N2", "about": 1}])]),
    "merge-two-tables": (
        "one hop removes R and Q, two root entities, and merges both into C (RToC, QToC): each takes new keys in C's "
        "table, none on the same key, and N's references follow both",
        ["{C: {attributes: {key: string}}, R: {attributes: {key: string}, relationships: {"
         " rnotes: {destination: N, toMany: true, inverse: r}}}, Q: {attributes: {key: string}, relationships: {"
         " qnotes: {destination: N, toMany: true, inverse: q}}}, N: {attributes: {key: string}, relationships: {"
         " r: {destination: R, inverse: rnotes, optional: true}, q: {destination: Q, inverse: qnotes, optional: true}}}}",
         "{C: {attributes: {key: string}, relationships: {rnotes: {destination: N, toMany: true, inverse: r},"
         " qnotes: {destination: N, toMany: true, inverse: q}}}, N: {attributes: {key: string}, relationships: {"
         " r: {destination: C, inverse: rnotes, optional: true}, q: {destination: C, inverse: qnotes, optional: true}}}}"],
        {(1, 2): {"entities": {"RToC": {"destination": "C", "source": "R"}, "QToC": {"destination": "C", "source": "Q"}}}},
        [("C", [{"key": "C1"}, {"key": "C2"}]), ("R", [{"key": "R1"}, {"key": "R2"}, {"key": "R3"}]),
         ("Q", [{"key": "Q1"}, {"key": "Q2"}]), ("N", [{"key": "N1", "r": 3, "q": 1}])]),
    "merge-sibling-owners": (
        "the siblings A and L each have a to-one owner into an ordered list of their own (X.as, X.ls); one hop "
        "merges L into A and keeps X.as: the Ls join X1's list through its inverse, after its own members, in key "
        "order, and L3 (no owner) is in no list (an outside tester: the Ls had no position)",
        ["{X: {attributes: {key: string}, relationships: {as: {destination: A, toMany: true, ordered: true, inverse: owner},"
         " ls: {destination: L, toMany: true, ordered: true, inverse: owner}}}, P: {attributes: {key: string}},"
         " A: {parent: P, relationships: {owner: {destination: X, inverse: as, optional: true}}},"
         " L: {parent: P, relationships: {owner: {destination: X, inverse: ls, optional: true}}}}",
         "{X: {attributes: {key: string}, relationships: {as: {destination: A, toMany: true, ordered: true, inverse: owner,"
         " minCount: 3}}}, P: {attributes: {key: string}},"
         " A: {parent: P, relationships: {owner: {destination: X, inverse: as, optional: true}}}}"],
        {(1, 2): {"entities": {"LToA": {"destination": "A", "source": "L"}}}},
        [("X", [{"key": "X1"}]), ("L", [{"key": "L1", "owner": 1}, {"_pk": 3, "key": "L3"}, {"_pk": 4, "key": "L4", "owner": 1}]),
         ("A", [{"_pk": 2, "key": "A2", "owner": 1}])]),
    "merge-self-replies": (
        "C and R each have replies <-> replyTo (a one-to-many into themselves); one hop merges R into C: R2' "
        "replies to R1', whose replies hold it (an outside tester: refused as 'pairs would be lost')",
        ["{C: {attributes: {key: string}, relationships: {replyTo: {destination: C, inverse: replies, optional: true},"
         " replies: {destination: C, toMany: true, inverse: replyTo}}},"
         " R: {attributes: {key: string}, relationships: {replyTo: {destination: R, inverse: replies, optional: true},"
         " replies: {destination: R, toMany: true, inverse: replyTo}}}}",
         "{C: {attributes: {key: string}, relationships: {replyTo: {destination: C, inverse: replies, optional: true},"
         " replies: {destination: C, toMany: true, inverse: replyTo}}}}"],
        {(1, 2): {"entities": {"RToC": {"destination": "C", "source": "R"}}}},
        [("C", [{"key": "C1"}, {"key": "C2", "replyTo": 1}]), ("R", [{"key": "R1"}, {"key": "R2", "replyTo": 1}])]),
    "merge-sources-refer": (
        "G (with a to-one rc into R) and R, two root entities, both merge into C, G's entry first in the file: "
        "G1's rc follows R1 to its new object (an outside tester: refused when G's entry came first)",
        ["{C: {attributes: {key: string}}, R: {attributes: {key: string}},"
         " G: {attributes: {key: string}, relationships: {rc: {destination: R, optional: true}}}}",
         "{C: {attributes: {key: string}, relationships: {rc: {destination: C, optional: true}}}}"],
        {(1, 2): {"entities": {"GToC": {"destination": "C", "source": "G"}, "RToC": {"destination": "C", "source": "R"}}}},
        [("C", [{"key": "C1"}]), ("R", [{"key": "R1"}]), ("G", [{"key": "G1", "rc": 1}])]),
    "merge-into-root": (
        "R (a root entity of its own) merges into I, a concrete root entity with the subentity S: the Rs take new "
        "keys in I's table beside the Is and Ss (an outside tester: refused as merged hierarchies)",
        ["{I: {attributes: {key: string}}, S: {parent: I, attributes: {x: integer16?}}, R: {attributes: {key: string}},"
         " N: {attributes: {key: string}, relationships: {about: {destination: R, optional: true}}}}",
         "{I: {attributes: {key: string}}, S: {parent: I, attributes: {x: integer16?}},"
         " N: {attributes: {key: string}, relationships: {about: {destination: I, optional: true}}}}"],
        {(1, 2): {"entities": {"RToI": {"destination": "I", "source": "R"}}}},
        [("I", [{"key": "I1"}]), ("S", [{"_pk": 2, "key": "S1", "x": 4}]), ("R", [{"key": "R1"}, {"key": "R2"}]),
         ("N", [{"key": "N1", "about": 2}])]),
    "merge-inherited-to-many": (
        "E inherits the to-many m (inverse o, a to-one on E) from B; one hop merges the root entity A into E: the As "
        "have no m, so B1's list keeps E1 only (fuzzer seed 6262 trials 38, 171: refused as pairs lost)",
        ["{B: {attributes: {key: string}, relationships: {m: {destination: E, toMany: true, inverse: o}}},"
         " E: {parent: B, relationships: {o: {destination: B, inverse: m, optional: true}}}, A: {attributes: {key: string}}}",
         "{B: {attributes: {key: string}, relationships: {m: {destination: E, toMany: true, inverse: o}}},"
         " E: {parent: B, relationships: {o: {destination: B, inverse: m, optional: true}}}}"],
        {(1, 2): {"entities": {"AToE": {"destination": "E", "source": "A"}}}},
        [("B", [{"key": "B1"}]), ("E", [{"_pk": 2, "key": "E1", "o": 1}]), ("A", [{"key": "A1"}])]),
    "merge-ordered-inverse": (
        "D.m2 is an ordered to-many (inverse A.o2); one hop merges C, which has no m2, into D: D1 keeps its order "
        "and the Cs have empty lists (fuzzer seed 6262 trial 168: refused as an order lost)",
        ["{A: {attributes: {key: string}, relationships: {o2: {destination: D, inverse: m2, optional: true}}},"
         " D: {attributes: {key: string}, relationships: {m2: {destination: A, toMany: true, ordered: true, inverse: o2}}},"
         " C: {attributes: {key: string}}}",
         "{A: {attributes: {key: string}, relationships: {o2: {destination: D, inverse: m2, optional: true}}},"
         " D: {attributes: {key: string}, relationships: {m2: {destination: A, toMany: true, ordered: true, inverse: o2}}}}"],
        {(1, 2): {"entities": {"CToD": {"destination": "D", "source": "C"}}}},
        [("D", [{"key": "D1"}]), ("A", [{"key": "A2", "o2": 1}, {"key": "A1", "o2": 1}]), ("C", [{"key": "C1"}])]),
    "merge-range": (
        "one hop merges D into C, C.p6 (integer32, min -1, max 7) copied from D.p9 (integer16): D1 holds 100, "
        "refused by both (fuzzer seed 9595 trial 21: the further mapping's copies were held to no range, exit 0)",
        ["{C: {attributes: {key: string, p6: {type: integer32, optional: true, min: -1, max: 7}}},"
         " D: {attributes: {key: string, p9: integer16?}}}",
         "{C: {attributes: {key: string, p6: {type: integer32, optional: true, min: -1, max: 7}}}}"],
        {(1, 2): {"entities": {"DToC": {"destination": "C", "source": "D", "properties": {"p6": "$source.p9"}}}}},
        [("C", [{"key": "C1", "p6": 3}]), ("D", [{"key": "D1", "p9": 100}, {"key": "D2", "p9": 2}])]),
}
FIXED.update(MERGES)
# The hierarchy bugs known before the fuzzer generated hierarchies (Docs/Reference.md, the third outside tester's
# open findings), as the generator makes them: cases of their own, not re-reported.
KNOWN = {
    "move-up-many-to-many": (
        "one hop moves the many-to-many C.n1 ↔ X.k1 up from the subentity C to its parent P: C1 keeps X1 "
        "(known: the pairs are lost, with a destructive warning; this binary passes it)",
        ["{P: {attributes: {key: string}},"
         " C: {parent: P, relationships: {n1: {destination: X, toMany: true, inverse: k1}}},"
         " X: {attributes: {key: string}, relationships: {k1: {destination: C, toMany: true, inverse: n1}}}}",
         "{P: {attributes: {key: string}, relationships: {n1: {destination: X, toMany: true, inverse: k1}}},"
         " C: {parent: P},"
         " X: {attributes: {key: string}, relationships: {k1: {destination: P, toMany: true, inverse: n1}}}}"],
        {}, [("X", [{"key": "X1"}]), ("C", [{"key": "C1", "n1": [1]}])]),
    "move-up-merge-max-count": (
        "one hop moves the to-one o of the siblings C and D up to P, keeping C's inverse X.m1 (now to P) with "
        "maxCount 1: X1 gets C1 and D1, validation refuses (known: not checked, exit 0)",
        ["{X: {attributes: {key: string}, relationships: {m1: {destination: C, toMany: true, inverse: o},"
         " m2: {destination: D, toMany: true, inverse: o}}}, P: {attributes: {key: string}},"
         " C: {parent: P, relationships: {o: {destination: X, inverse: m1}}},"
         " D: {parent: P, relationships: {o: {destination: X, inverse: m2}}}}",
         "{X: {attributes: {key: string},"
         " relationships: {m1: {destination: P, toMany: true, inverse: o, maxCount: 1}}},"
         " P: {attributes: {key: string}, relationships: {o: {destination: X, inverse: m1}}},"
         " C: {parent: P}, D: {parent: P}}"],
        {}, [("X", [{"key": "X1"}]), ("C", [{"key": "C1", "o": 1}]), ("D", [{"_pk": 2, "key": "D1", "o": 1}])]),
    "move-up-max": (
        "one hop moves x up from the siblings C and D to P and gives it max 7 while D1 holds 100: validation "
        "refuses (known: not checked, exit 0; with x moved from one subentity only, plan refuses it)",
        ["{P: {abstract: true, attributes: {key: string}}, C: {parent: P, attributes: {x: integer16}},"
         " D: {parent: P, attributes: {x: integer16}}}",
         "{P: {abstract: true, attributes: {key: string, x: {type: integer16, max: 7}}},"
         " C: {parent: P}, D: {parent: P}}"],
        {}, [("C", [{"key": "C1", "x": 1}]), ("D", [{"_pk": 2, "key": "D1", "x": 100}])]),
    "move-up-required": (
        "one hop moves the optional C.x up to P and makes it required; the store's only object, C1, holds 5: "
        "it migrates (known: refused, exit 4)",
        ["{P: {attributes: {key: string}}, C: {parent: P, attributes: {x: integer16?}}}",
         "{P: {attributes: {key: string, x: integer16}}, C: {parent: P}}"],
        {}, [("C", [{"key": "C1", "x": 5}])]),
    "move-up-unique": (
        "one hop moves x (default 5) up from the siblings C and D to P with uniqueness [x] on P; C1 and D1 keep 1 "
        "and 2: it migrates (known as: plan passes and apply fails in SQLite, exit 1; at this binary plan refuses, "
        "exit 4, counting 5 × 2: the default, not the values moved up; without a default it migrates)",
        ["{P: {attributes: {key: string}},"
         " C: {parent: P, attributes: {x: {type: integer16, optional: true, default: 5}}},"
         " D: {parent: P, attributes: {x: integer16?}}}",
         "{P: {attributes: {key: string, x: {type: integer16, optional: true, default: 5}}, uniqueness: [[x]]},"
         " C: {parent: P}, D: {parent: P}}"],
        {}, [("C", [{"key": "C1", "x": 1}]), ("D", [{"_pk": 2, "key": "D1", "x": 2}])]),
}
OPEN.update(KNOWN)
FIXED.update(OPEN)
CASES = {"intermediate-default": ["intermediate-default", "intermediate-default-required"],
         "intermediate-check": ["intermediate-check-unique", "intermediate-check-max", "intermediate-check-required"],
         "found": ["required-to-one", "min-count", "gate-after-earlier-hop", "required-default-max",
                   "checks-see-filter", "composite-unique-fill", "unique-removed-fill", "source-copy-nil",
                   "renamed-from-not-name", "new-required-empty", "later-default", "source-copy-same-type",
                   "later-default-required", "inverse-pairs", "inverse-on-subentity", "filter-min-count", "later-default-changed", "renamed-back",
                   "ordered-through-unordered", "new-beside-renamed", "file-settles-rename",
                   "file-on-ambiguous-entity", "file-source-settles-entity", "inverse-to-one-several",
                   "inverse-to-one-single"]}
# Hierarchy, many-to-many and ordered cases found as open bugs and fixed since.
CASES["hierarchy"] = ["subentity-source-copy-range", "move-up-merge-max-count", "move-up-max", "move-up-required",
                      "move-up-many-to-many", "move-up-to-one", "leave-hierarchy-to-many",
                      "move-up-unique", "new-parent-widen", "partial-widen", "filter-to-one-members", "filter-to-one-lowest",
                      "subentity-filter-to-one",
                      "narrowed-min-count", "subentity-unique-inherited"]
CASES["merges"] = list(MERGES)
CASES["all"] = (CASES["intermediate-default"] + CASES["intermediate-check"] + CASES["found"] + CASES["hierarchy"]
                + CASES["merges"])
# The cases the toolkit now gives Core Data's answer for (CI runs them): every one
# (Docs/Reference.md, "Fixed since").
CASES["fixed"] = CASES["all"]
CASES["open"] = [name for name in OPEN if name not in CASES["all"]]
CASES["known"] = [name for name in KNOWN if name not in CASES["all"]]
CASES.update({name: [name] for name in FIXED})


def fixed_history(name):
    description, versions, files, data = FIXED[name]
    history = History()
    for n, text in enumerate(versions, 1):
        text = re.sub(r"(\w+\?)", r"'\1'", text)  # `string?` in YAML's flow style needs quotes
        entities = yaml.safe_load(text if text.startswith("{") else "{%s}" % text)
        history.versions.append({"model": MODEL, "version": n, "entities": entities})
        history.changes[n] = ["entities " + describe_model(history.versions[-1])]
    history.changes[len(versions)].append("case: " + description)
    history.files = dict(files)
    for entity, objects in data:
        history.data[entity] = [{"_pk": i + 1, **o} for i, o in enumerate(objects)]  # a hierarchy's give _pk
        history.load_order.append(entity)
    return history


# MARK: Running migrate

class Runner:
    def __init__(self, migrate, folder):
        self.migrate = migrate
        self.folder = folder

    def run(self, *arguments):
        command = [self.migrate] + list(arguments) + ["--models", "Models", "--migrations", "Migrations"]
        result = subprocess.run(command, cwd=self.folder, capture_output=True, text=True, timeout=300)
        return result.returncode, (result.stderr + result.stdout).strip()

    def dump(self, store, version):
        dumps = {}
        for name in version.entities:
            result = subprocess.run([self.migrate, "dump", store, name, "--models", "Models", "--migrations",
                                     "Migrations"], cwd=self.folder, capture_output=True, text=True, timeout=300)
            if result.returncode != 0:
                raise RuntimeError("migrate dump %s %s: exit %d: %s" % (store, name, result.returncode,
                                                                        result.stderr.strip()))
            dumps[name] = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
        return dumps


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write_history(history, folder):
    os.makedirs(os.path.join(folder, "Models", MODEL), exist_ok=True)
    os.makedirs(os.path.join(folder, "Migrations", MODEL), exist_ok=True)
    for v in history.versions:
        with open(os.path.join(folder, "Models", MODEL, "%d.yaml" % v["version"]), "w") as f:
            f.write(history.yaml_of(v["version"]))
    for (a, b), spec in history.files.items():
        with open(os.path.join(folder, "Migrations", MODEL, "%d-to-%d.yaml" % (a, b)), "w") as f:
            f.write(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=1000))
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)
    for name, objects in history.data.items():
        with open(os.path.join(folder, "data", name + ".jsonl"), "w") as f:
            f.writelines(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)


def compare_rows(expected, actual, limit=4):
    """A few lines naming the rows that differ, or [] when equal."""
    out = []
    for name in sorted(set(expected) | set(actual)):
        e, a = expected.get(name), actual.get(name)
        if json.dumps(e, sort_keys=True) != json.dumps(a, sort_keys=True):
            if e is None:
                out.append("    %s: not expected, migrate has %s" % (name, json.dumps(a, sort_keys=True)))
            elif a is None:
                out.append("    %s: expected %s, migrate has none" % (name, json.dumps(e, sort_keys=True)))
            else:
                keys = sorted(k for k in set(e) | set(a) if json.dumps(e.get(k, "<absent>")) !=
                              json.dumps(a.get(k, "<absent>")))
                out.append("    %s: %s" % (name, ", ".join("%s expected %s, got %s" % (
                    k, json.dumps(e.get(k, "<absent>"), ensure_ascii=False),
                    json.dumps(a.get(k, "<absent>"), ensure_ascii=False)) for k in keys)))
    if len(out) > limit:
        out = out[:limit] + ["    … %d more rows differ" % (len(out) - limit)]
    return out


def compare(expected, actual):
    """compare_rows of the reference's store and migrate's (read from its dump): an ordered to-many whose order
    the dump does not show (the side of a many-to-many the dump does not write) is compared as a set."""
    return compare_rows(ref.rows(expected, actual.unobserved), ref.rows(actual))


def known_order(start, history):
    """The reference's version-1 store read from the dump knows every order but the one of an ordered
    many-to-many side the dump does not write: that one is what `load` made of version 1's data, the list given
    on a data side, else the order of the lines that gave it (primary-key order: the files are in that order)."""
    pk_oid = {}
    for objects in start.objects.values():
        for obj in objects.values():
            pk_oid[(ref.graph.root(start.version, obj.entity), obj.pk)] = obj.oid
    for name, r in sorted(start.unobserved):
        relationship = start.version.entities[name].relationships[r]
        declared = next(n for n in [name] + gr.ancestors(history.versions[0], name)
                        if r in history.versions[0]["entities"][n].get("relationships", {}))
        lines = {o["_pk"]: o for o in history.data.get(name, [])}
        top = ref.graph.root(start.version, relationship.destination)
        pks = {oid: pk for (t, pk), oid in pk_oid.items()}
        for obj in start.objects[name].values():
            value = obj.relationships[r]
            if (declared, r) in history.data_sides:
                obj.relationships[r] = [pk_oid[(top, pk)] for pk in lines[obj.pk][r]]
            else:
                obj.relationships[r] = sorted(value, key=lambda t: pks[t])
    start.unobserved.clear()


def run_trial(history, migrate, folder):
    """A list of (path, description) differences."""
    write_history(history, folder)
    runner = Runner(migrate, folder)
    code, text = runner.run("create", "base.sqlite", "--version", "1")
    if code != 0:
        return [("setup", "migrate create: exit %d: %s" % (code, text))]
    for name in history.load_order:
        if history.data.get(name):
            code, text = runner.run("load", "base.sqlite", name, os.path.join("data", name + ".jsonl"))
            if code != 0:
                return [("setup", "migrate load %s: exit %d: %s" % (name, code, text))]
    versions = ref.load_versions(os.path.join(folder, "Models"), MODEL)
    files = ref.load_mapping_files(os.path.join(folder, "Migrations"), MODEL)
    target = max(versions)
    start = ref.store_from_dumps(versions[1], runner.dump("base.sqlite", versions[1]))
    known_order(start, history)
    expected = {path: ref.migrate(versions, files, start, target, path) for path in ("default", "chain", "direct")}
    differences = []

    def judge(path, reference, store, code, text, before):
        kind, result, states = reference
        if kind == "refused":
            if code == 0:
                return ["reference refuses (%s); migrate exits 0" % result]
            if digest(os.path.join(folder, store)) != before:
                return ["reference refuses (%s); migrate exits %d but changed the store: %s"
                        % (result, code, first_line(text))]
            return []
        if code != 0:
            return ["reference migrates; migrate exits %d: %s" % (code, first_line(text))]
        lines = compare(result, ref.store_from_dumps(versions[target], runner.dump(store, versions[target])))
        return ["data differs:\n" + "\n".join(lines)] if lines else []

    base_digest = digest(os.path.join(folder, "base.sqlite"))
    for path, arguments, reference in (("apply", [], expected["default"]),
                                       ("apply --path chain", ["--path", "chain"], expected["chain"]),
                                       ("apply --path direct", ["--path", "direct"], expected["direct"])):
        store = "s-%s.sqlite" % (arguments[1] if arguments else "default")
        shutil.copyfile(os.path.join(folder, "base.sqlite"), os.path.join(folder, store))
        code, text = runner.run("apply", store, *arguments)
        for line in judge(path, reference, store, code, text, base_digest):
            differences.append((path, line))

    # One version at a time: --to 2, --to 3, … on one copy.
    store = "s-steps.sqlite"
    shutil.copyfile(os.path.join(folder, "base.sqlite"), os.path.join(folder, store))
    kind, result, states = expected["chain"]
    for n in range(2, target + 1):
        before = digest(os.path.join(folder, store))
        code, text = runner.run("apply", store, "--to", str(n))
        if n in states:
            if code != 0:
                differences.append(("apply --to %d" % n, "reference migrates to %d; migrate exits %d: %s"
                                    % (n, code, first_line(text))))
                break
            if n == target:
                lines = compare(states[n], ref.store_from_dumps(versions[n], runner.dump(store, versions[n])))
                if lines:
                    differences.append(("apply --to 2 … --to %d" % n, "data differs:\n" + "\n".join(lines)))
            continue
        # The reference refuses the hop to n.
        if code == 0:
            differences.append(("apply --to %d" % n, "reference refuses (%s); migrate exits 0" % result))
        elif digest(os.path.join(folder, store)) != before:
            differences.append(("apply --to %d" % n, "reference refuses (%s); migrate exits %d but changed the "
                                "store: %s" % (result, code, first_line(text))))
        else:
            # Compare the hops before the refused one.
            lines = compare(states[n - 1], ref.store_from_dumps(versions[n - 1], runner.dump(store, versions[n - 1])))
            if lines:
                differences.append(("apply --to 2 … --to %d" % (n - 1), "data differs:\n" + "\n".join(lines)))
        break
    return differences


def first_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return " | ".join(lines[:3])[:400] if lines else "(no output)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trials", type=int, nargs="?", default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--migrate", default=".build/debug/migrate")
    parser.add_argument("--keep", help="keep each trial's files in this folder")
    parser.add_argument("--trial", type=int, help="run only this trial of the seed")
    parser.add_argument("--without", help="change kinds left out, comma-separated (e.g. min-count,uniqueness)")
    parser.add_argument("--jobs", type=int, default=1, help="trials run at once (default 1)")
    parser.add_argument("--case", help="run regression cases: fixed (CI), all, open (toolkit bugs still open), a group "
                        "or one case by name")
    args = parser.parse_args()
    migrate = os.path.abspath(args.migrate)
    if not os.path.exists(migrate):
        print("no migrate at %s (--migrate PATH)" % migrate, file=sys.stderr)
        return 2

    if args.case:
        if args.case not in CASES:
            parser.error("--case: one of %s" % ", ".join(CASES))
        names = CASES[args.case]
        jobs = [(name, lambda name=name: fixed_history(name)) for name in names]
    else:
        trials = [args.trial] if args.trial is not None else range(args.trials)
        without = [k for k in (args.without or "").split(",") if k]
        unknown = set(without) - set(CHANGES) - set(OTHER_KINDS)
        if unknown:
            parser.error("--without: unknown kinds %s (kinds: %s)" % (", ".join(sorted(unknown)),
                                                                    ", ".join(list(CHANGES) + list(OTHER_KINDS))))
        jobs = [("seed %d trial %d" % (args.seed, t),
                 lambda t=t: random_history(random.Random(args.seed * 1000003 + t), without)) for t in trials]

    passed = failed = 0
    root = args.keep or tempfile.mkdtemp(prefix="migration-diff-")

    def one(job):
        label, make = job
        history = make()
        folder = os.path.join(root, label.replace(" ", "-"))
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        try:
            differences = run_trial(history, migrate, folder)
        except ref.Unsupported as e:
            differences = [("reference", "unsupported: %s" % e)]
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        return label, folder, history, differences

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for label, folder, history, differences in pool.map(one, jobs):
                if differences:
                    failed += 1
                    print("DIFFERENCE %s%s\n%s" % (label, " (files in %s)" % folder if args.keep else "",
                                                   history.describe()))
                    for path, text in differences:
                        print("  %s: %s" % (path, text.replace("\n", "\n  ")))
                    sys.stdout.flush()
                else:
                    passed += 1
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
