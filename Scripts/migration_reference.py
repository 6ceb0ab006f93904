#!/usr/bin/env python3
"""A reference migration manager, independent of migrate's planner and its SQL.

It reads the YAML model versions (PyYAML), the mapping files and a store's objects
(the JSON Lines of `migrate dump STORE ENTITY`, one file per entity), and migrates
them in Python, object by object, one mapping at a time, as Core Data's
NSMigrationManager does: for each mapping, (1) every entity mapping creates the
destination instances of its source objects, (2) every destination object's
relationships are set through the manager's source → destination association,
(3) every destination object is validated. The result is the objects Core Data
would leave, as comparable rows (entity, the `key` attribute, attribute values,
relationship targets named by their `key`), or ("refused", rule).

Three paths (Docs/Reference.md has the citations):

- chain: one mapping per hop, N → N+1 → … → target, each its own three stages, as a
  progressive migrator or iOS 17's staged migration (NSStagedMigrationManager) runs
  them. A hop uses the mapping file `<N>-to-<N+1>.yaml` where there is one, else the
  inferred mapping model.
- direct: one mapping from the store's version straight to the target, as Core
  Data's automatic migration does (NSMappingModel(from:forSourceModel:destinationModel:),
  else NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)): the
  file `<s>-to-<t>.yaml`, else inferred between the two ends.
- default: `migrate apply`'s documented choice (Docs/MappingFiles.md, "Which path a
  migration takes"), each of its pieces run as above.

The semantics chosen, and why (each also in Docs/Reference.md):

- Pairing by renaming identifier: a destination entity or property pairs with the
  source one whose identifier (renamedFrom, else the name) or whose name is the
  destination's identifier. Apple (NSEntityDescription.renamingIdentifier): source and
  destination "that share the same identifier" are mapped, and an unset identifier is
  the name; the toolkit adds the previous version's name (Docs/ModelFormat.md,
  "Renames"). A destination whose renamedFrom names nothing pairs with nothing, not
  with a source of its own name. One without renamedFrom that is only another source
  element's identifier pairs with it unless a destination beside it has that element's
  name (graph.pair).
- An attribute paired with a source attribute takes its value (integer widening keeps
  the number; another type change fails inference); an attribute with no source takes
  its default (nil without one), as an inferred property mapping with no value
  expression leaves the value the insert gave it.
- nil → default: a nil copied by the INFERRED mapping into a destination attribute
  that is required and has a default takes the default (Apple's lightweight rules: "an
  optional attribute becoming non-optional, and defining a default value";
  Docs/Migrations.md, Docs/Deploying.md: "an optional attribute made required with a
  default fills nils"). Anywhere else nil stays nil: an optional destination keeps the
  nil it was given, and a mapping file's own value (`$source.other`, `value:`) is set
  as computed, as NSPropertyMapping.valueExpression is, so a nil into a required
  attribute is refused by validation.
- A new required attribute (or to-one) without a default is nil on every object:
  validation refuses it when the entity has objects, not when it has none (Core Data's
  error is a validation error of the migration, NSMigrationError 134110).
- A mapping file: `source:` takes the entity's objects from another source entity (the
  rest inferred between the two); `filter:` keeps only the source objects the predicate
  holds for (the source fetch's predicate); `properties:` `$source.x` (widened),
  `{ default: v }`, `{ value: "expr" }` (`$source.k`, literals, + - *, `lowercase:`,
  `uppercase:`, `length:`, `abs:`; nil in gives nil out; an integer outside its type
  is refused, as Docs/MappingFiles.md documents).
- A relationship's targets are the destination instances the entity mapping of the
  relationship's destination entity made from the source targets
  (destinationInstancesForEntityMappingNamed:sourceInstances:): a target that was
  filtered out, or whose entity no mapping carries there, is gone. A side that pairs
  with no source relationship takes the pairs its inverse was given (setting one side
  sets the inverse). A relationship whose destination entity is not made from its
  source relationship's destination entity fails inference.
- Validation (the third stage; NSManagedObject.validateForInsert): a required attribute
  nil, a value outside `min`/`max`, a required to-one nil, a to-many outside
  `minCount`/`maxCount` (an optional one may be empty; a required one without
  `minCount` may be empty, as Docs/Objects.md decides), two objects with the same
  values of a uniqueness constraint (a nil among them never conflicts). The first
  failing rule is reported.
- The toolkit's own gate (Docs/Deploying.md), not Core Data's: a source entity no
  mapping reads, while the destination entity of its name is made from another one,
  is refused when the store holds its objects (Core Data would drop them silently).

Not covered (raises Unsupported): inheritance and abstract entities, policies, ordered
relationships, many-to-many, relationship `value:` expressions, attribute types other
than integers, string, boolean and double, expressions beyond the forms above.

Usage as a script:
    migration_reference.py --models DIR --model M [--migrations DIR] --dumps DIR
                           --from S [--to T] [--path default|chain|direct]
DIR of dumps holds <Entity>.jsonl for each entity of version S. Prints the rows
(JSON Lines) or `refused: RULE` (exit 4).
"""

import argparse
import decimal
import json
import os
import re
import struct
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import migration_reference_graph as graph  # noqa: E402
from migration_reference_graph import Refused, Unsupported, pair  # noqa: E402,F401

INTEGER_RANGES = {"integer16": (-(1 << 15), (1 << 15) - 1), "integer32": (-(1 << 31), (1 << 31) - 1),
                  "integer64": (-(1 << 63), (1 << 63) - 1)}
WIDENING = {("integer16", "integer32"), ("integer16", "integer64"), ("integer32", "integer64"), ("float", "double")}
# Types whose values the reference carries as `dump` writes them (dates as ISO 8601 strings, binary data as
# base64, decimals as strings...): copied, compared, checked for nil and uniqueness, never computed. A default,
# `min` or `max` of one of them is Unsupported (its value would have to be written as `dump` writes it).
OPAQUE_TYPES = {"float", "date", "binary", "uuid", "uri", "decimal", "transformable"}
SUPPORTED_TYPES = set(INTEGER_RANGES) | {"string", "boolean", "double"} | OPAQUE_TYPES


# MARK: Models

class Attribute:
    def __init__(self, name, spec):
        if isinstance(spec, str):
            spec = {"type": spec}
        spec = dict(spec)
        kind = spec.get("type", "")
        self.name = name
        self.optional = bool(spec.get("optional", False))
        if kind.endswith("?"):
            kind, self.optional = kind[:-1], True
        if kind not in SUPPORTED_TYPES:
            raise Unsupported("attribute type %s" % kind)
        self.type = kind
        self.transient = bool(spec.get("transient", False))
        self.renamed_from = spec.get("renamedFrom")
        self.minimum = spec.get("min")
        self.maximum = spec.get("max")
        if kind in OPAQUE_TYPES and (any(spec.get(k) is not None for k in ("min", "max"))
                                     or (spec.get("default") is not None and kind not in ("float", "decimal"))):
            raise Unsupported("a default, min or max of a %s attribute" % kind)
        self.default = convert_literal(spec["default"], kind) if spec.get("default") is not None else None

    @property
    def identifier(self):
        return self.renamed_from or self.name


class Relationship:
    def __init__(self, name, spec):
        self.name = name
        self.destination = spec["destination"]
        self.to_many = bool(spec.get("toMany", False))
        self.inverse = spec.get("inverse")
        self.optional = bool(spec.get("optional", True))
        self.transient = bool(spec.get("transient", False))
        self.renamed_from = spec.get("renamedFrom")
        self.min_count = spec.get("minCount")
        self.max_count = spec.get("maxCount")
        self.ordered = bool(spec.get("ordered")) and self.to_many  # on a to-one it orders nothing

    @property
    def identifier(self):
        return self.renamed_from or self.name


class Entity:
    def __init__(self, name, spec):
        spec = spec or {}
        self.name = name
        self.parent = spec.get("parent")
        self.abstract = bool(spec.get("abstract"))
        self.renamed_from = spec.get("renamedFrom")
        self.own_attributes = {n: Attribute(n, s) for n, s in (spec.get("attributes") or {}).items()}
        self.own_relationships = {n: Relationship(n, s) for n, s in (spec.get("relationships") or {}).items()}
        # Every property, inherited ones first (graph.resolve_inheritance); `children`: direct subentities.
        self.attributes, self.relationships, self.children = dict(self.own_attributes), dict(self.own_relationships), []
        uniqueness = spec.get("uniqueness") or []
        if uniqueness and all(isinstance(u, str) for u in uniqueness):
            uniqueness = [uniqueness]
        self.uniqueness = [list(u) if isinstance(u, list) else [u] for u in uniqueness]

    @property
    def identifier(self):
        return self.renamed_from or self.name

    def stored_attributes(self):
        return [a for a in self.attributes.values() if not a.transient]

    def stored_relationships(self):
        return [r for r in self.relationships.values() if not r.transient]


class Version:
    def __init__(self, number, spec):
        self.number = number
        self.entities = {n: Entity(n, s) for n, s in (spec.get("entities") or {}).items()}
        graph.resolve_inheritance(self.entities)
        for entity in self.entities.values():
            for r in entity.own_relationships.values():
                if r.destination not in self.entities:
                    raise Unsupported("%s.%s: destination %s is not an entity" % (entity.name, r.name, r.destination))
                if r.inverse and r.inverse not in self.entities[r.destination].relationships:
                    raise Unsupported("%s.%s: inverse %s is not a relationship of %s" % (
                        entity.name, r.name, r.inverse, r.destination))

    def subtree(self, name):
        return graph.subtree(self, name)


def convert_literal(value, kind):
    if value is None:
        return None
    if kind in INTEGER_RANGES:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unsupported("integer default %r" % (value,))
        return value
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if value in (0, 1):
            return bool(value)
        raise Unsupported("boolean default %r" % (value,))
    if kind == "double":
        return float(value)
    if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        # A float default as dump writes it: only one a 32-bit float holds exactly (0.5, not 0.1).
        if struct.unpack("<f", struct.pack("<f", value))[0] != value:
            raise Unsupported("float value %r" % (value,))
        return float(value)
    if kind == "decimal" and isinstance(value, (int, float)) and not isinstance(value, bool):
        # Decimals as dump writes them: a string of the number's shortest digits ("1.5", "100").
        text = format(decimal.Decimal(str(value)), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    if kind in OPAQUE_TYPES:
        return value
    return str(value)


def load_versions(models_dir, model):
    folder = os.path.join(models_dir, model)
    versions = {}
    for name in os.listdir(folder):
        match = re.fullmatch(r"(\d+)\.yaml", name)
        if match:
            with open(os.path.join(folder, name)) as f:
                versions[int(match.group(1))] = Version(int(match.group(1)), yaml.safe_load(f))
    return versions


def load_mapping_files(migrations_dir, model):
    files = {}
    folder = os.path.join(migrations_dir, model) if migrations_dir else None
    if folder and os.path.isdir(folder):
        for name in os.listdir(folder):
            match = re.fullmatch(r"(\d+)-to-(\d+)\.yaml", name)
            if match:
                with open(os.path.join(folder, name)) as f:
                    files[(int(match.group(1)), int(match.group(2)))] = yaml.safe_load(f) or {}
    return files


# MARK: Expressions and predicates (the simple NSExpression / NSPredicate forms a mapping file holds)

class ExpressionError(Exception):
    pass


def tokenize(text):
    tokens, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "'\"":
            j, out = i + 1, []
            while j < len(text) and text[j] != c:
                if text[j] == "\\" and j + 1 < len(text):
                    j += 1
                out.append(text[j])
                j += 1
            if j >= len(text):
                raise ExpressionError("unterminated string")
            tokens.append(("str", "".join(out)))
            i = j + 1
        elif c.isdigit():
            m = re.match(r"\d+(\.\d+)?", text[i:])
            tokens.append(("num", float(m.group(0)) if m.group(1) else int(m.group(0))))
            i += len(m.group(0))
        elif c.isalpha() or c in "_$@":
            m = re.match(r"[$@]?[A-Za-z_][A-Za-z0-9_]*:?", text[i:])
            word = m.group(0)
            tokens.append(("fn", word) if word.endswith(":") else ("name", word))
            i += len(word)
        else:
            for op in ("==", "!=", "<=", ">=", "<", ">", "=", "(", ")", ",", ".", "+", "-", "*"):
                if text.startswith(op, i):
                    tokens.append(("op", "==" if op == "=" else op))
                    i += len(op)
                    break
            else:
                raise ExpressionError("unexpected character %r" % c)
    tokens.append(("end", None))
    return tokens


COMPARISONS = {"==", "!=", "<", "<=", ">", ">="}
STRING_OPERATORS = {"BEGINSWITH", "ENDSWITH", "CONTAINS"}


class ExpressionParser:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.i = 0

    def peek(self):
        return self.tokens[self.i]

    def take(self):
        self.i += 1
        return self.tokens[self.i - 1]

    def word(self):
        kind, value = self.peek()
        return value.upper() if kind == "name" else None

    def expect(self, op):
        if self.take() != ("op", op):
            raise ExpressionError("expected %s" % op)

    def finish(self, tree):
        if self.peek()[0] != "end":
            raise ExpressionError("trailing text")
        return tree

    def predicate(self):
        p = self.conjunction()
        while self.word() == "OR":
            self.take()
            p = ("or", p, self.conjunction())
        return p

    def conjunction(self):
        p = self.negation()
        while self.word() == "AND":
            self.take()
            p = ("and", p, self.negation())
        return p

    def negation(self):
        if self.word() == "NOT":
            self.take()
            return ("not", self.negation())
        if self.word() in ("TRUEPREDICATE", "FALSEPREDICATE"):
            return ("const", self.take()[1].upper() == "TRUEPREDICATE")
        if self.peek() == ("op", "("):
            saved = self.i
            try:
                self.take()
                inner = self.predicate()
                self.expect(")")
                return inner
            except ExpressionError:
                self.i = saved
        left = self.expression()
        kind, value = self.take()
        if kind == "op" and value in COMPARISONS:
            op = value
        elif kind == "name" and value.upper() in STRING_OPERATORS:
            op = value.upper()
        else:
            raise ExpressionError("expected a comparison")
        return ("cmp", op, left, self.expression())

    def expression(self):
        e = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            e = ("arith", self.take()[1], e, self.term())
        return e

    def term(self):
        e = self.unary()
        while self.peek() == ("op", "*"):
            e = ("arith", self.take()[1], e, self.unary())
        return e

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            return ("arith", "-", ("lit", 0), self.unary())
        return self.primary()

    def primary(self):
        kind, value = self.take()
        if kind in ("num", "str"):
            return ("lit", value)
        if kind == "op" and value == "(":
            e = self.expression()
            self.expect(")")
            return e
        if kind == "fn":
            self.expect("(")
            argument = self.expression()
            self.expect(")")
            if value not in ("lowercase:", "uppercase:", "length:", "abs:"):
                raise Unsupported("function %s" % value)
            return ("fn", value, argument)
        if kind == "name":
            if value.upper() in ("NIL", "NULL"):
                return ("lit", None)
            if value.upper() in ("YES", "TRUE", "NO", "FALSE"):
                return ("lit", value.upper() in ("YES", "TRUE"))
            path = [value]
            while self.peek() == ("op", "."):
                self.take()
                path.append(self.take()[1])
            if path[0] == "$source":
                path = path[1:]
            if len(path) != 1:
                raise Unsupported("key path %s" % ".".join(path))
            return ("key", path[0])
        raise ExpressionError("expected an expression, found %r" % (value,))


def parse_value(text):
    p = ExpressionParser(text)
    return p.finish(p.expression())


def parse_predicate(text):
    p = ExpressionParser(text)
    return p.finish(p.predicate())


def evaluate(e, values):
    kind = e[0]
    if kind == "lit":
        return e[1]
    if kind == "key":
        if e[1] not in values:
            raise Unsupported("key %s" % e[1])
        return values[e[1]]
    if kind == "fn":
        v = evaluate(e[2], values)
        if v is None:
            return None
        return {"lowercase:": lambda s: s.lower(), "uppercase:": lambda s: s.upper(),
                "length:": lambda s: len(s.encode("utf-16-le")) // 2, "abs:": abs}[e[1]](v)
    a, b = evaluate(e[2], values), evaluate(e[3], values)
    if a is None or b is None:
        return None
    if isinstance(a, str) or isinstance(b, str):
        if e[1] != "+" or not (isinstance(a, str) and isinstance(b, str)):
            raise Unsupported("string arithmetic")
        return a + b
    result = {"+": a + b, "-": a - b, "*": a * b}[e[1]]
    if isinstance(result, int) and not isinstance(result, bool) and not -(1 << 63) <= result < (1 << 63):
        # Integer arithmetic past Int64 goes on in double, as Docs/MappingFiles.md documents ("Integer results":
        # NSExpression computes such a value in double); the attribute then takes it truncated if it is in range.
        result = {"+": float(a) + float(b), "-": float(a) - float(b), "*": float(a) * float(b)}[e[1]]
    return result


def holds(p, values):
    kind = p[0]
    if kind == "const":
        return p[1]
    if kind == "and":
        return holds(p[1], values) and holds(p[2], values)
    if kind == "or":
        return holds(p[1], values) or holds(p[2], values)
    if kind == "not":
        return not holds(p[1], values)
    _, op, left, right = p
    a, b = evaluate(left, values), evaluate(right, values)
    if op == "==":
        return a == b  # nil == nil holds, nil == 5 does not
    if op == "!=":
        return a != b
    if a is None or b is None:
        return False
    if op in STRING_OPERATORS:
        if not (isinstance(a, str) and isinstance(b, str)) or b == "":
            return False
        return {"BEGINSWITH": a.startswith, "ENDSWITH": a.endswith, "CONTAINS": a.__contains__}[op](b)
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


# MARK: Stores

class Store:
    """The objects of one version: objects[entity][oid] = Obj; an oid is unique in the store."""

    def __init__(self, version):
        self.version = version
        self.objects = {name: {} for name in version.entities}  # the instances of exactly that entity
        self.unobserved = set()  # (entity, ordered relationship) whose order a dump did not give


class Obj:
    def __init__(self, entity, oid, pk):
        self.entity = entity
        self.oid = oid
        self.pk = pk  # the primary key, which a migration keeps
        self.attributes = {}
        self.relationships = {}  # name -> oid or None (to-one), list of oids (to-many, in order when ordered)


def store_from_dumps(version, dumps):
    """dumps[entity] = the objects `migrate dump` wrote (dicts; a dump of an entity holds its subentities'
    objects too, labelled by `_entity`: only its own are read); relationships by _pk (unique in a hierarchy)."""
    store = Store(version)
    index, lines = {}, []
    for name, entity in version.entities.items():
        for line in dumps.get(name, []):
            if line.get("_entity", name) != name:
                continue
            obj = Obj(name, (graph.root(version, name), line["_pk"]), line["_pk"])
            for attribute in entity.stored_attributes():
                obj.attributes[attribute.name] = convert_literal(line.get(attribute.name), attribute.type)
            for r in entity.stored_relationships():
                obj.relationships[r.name] = [] if r.to_many else None
            store.objects[name][obj.oid] = obj
            index[obj.oid] = obj
            lines.append((obj, entity, line))
    graph.read_relationships(store, lines, index)
    return store


def rows(store, unordered=frozenset()):
    """Comparable rows: {"Entity key": {attribute: value, relationship: key(s)}}. A to-many's keys are
    sorted, an ordered one's in its order, unless (entity, relationship) is in `unordered` or in the
    store's `unobserved` (a dump that does not show that order)."""
    keys = {oid: obj.attributes.get("key") for objects in store.objects.values() for oid, obj in objects.items()}
    unordered = set(unordered) | store.unobserved
    out = {}
    for name, objects in store.objects.items():
        entity = store.version.entities[name]
        for obj in objects.values():
            row = dict(obj.attributes)
            for r, value in obj.relationships.items():
                if isinstance(value, list):
                    ordered = entity.relationships[r].ordered and (name, r) not in unordered
                    row[r] = [keys[t] for t in value] if ordered else sorted(keys[t] for t in value)
                else:
                    row[r] = None if value is None else keys[value]
            out["%s %s" % (name, obj.attributes.get("key"))] = row
    return out


# MARK: Mappings

class EntityMapping:
    def __init__(self, destination, source, spec):
        self.destination = destination  # Entity of the destination version
        self.source = source  # Entity of the source version
        spec = spec or {}
        unknown = set(spec) - {"source", "destination", "filter", "properties"}
        if unknown:
            raise Unsupported("mapping file keys %s" % sorted(unknown))
        self.filter = parse_predicate(spec["filter"]) if spec.get("filter") else None
        self.properties = spec.get("properties") or {}
        self.further = "destination" in spec  # a further mapping into the entity (a merge)


def mapping(source_version, destination_version, spec):
    """The entity mappings of one mapping model: a mapping file's (spec) over the inferred one."""
    spec = spec or {}
    entities = spec.get("entities") or {}
    # Two destination entities whose identifiers both pair with one source entity (a new `B` beside `D`,
    # renamedFrom `B`, on a path from a version that has `B`) make inference ambiguous, as for properties: which
    # is new? A mapping file settles it: the claimants it gives that source entity as `source:` take it and the
    # others are new; claimants it gives another source drop out, and one claimant left takes it.
    claims = {}
    for name, entity in destination_version.entities.items():
        found = pair(entity, source_version.entities.values(), set(destination_version.entities))
        if found is not None:
            claims.setdefault(found.name, []).append(name)
    new = set()
    for source_name, names in sorted(claims.items()):
        if len(names) < 2:
            continue
        takers = [n for n in names if (entities.get(n) or {}).get("source") == source_name]
        left = [n for n in names if "source" not in (entities.get(n) or {})]
        if takers:
            new.update(left)
        elif len(left) > 1:
            raise Refused("inference: entity %s is claimed by %s (ambiguous)" % (source_name, ", ".join(sorted(left))))
    mappings, claimed = [], set()
    for name, entity in destination_version.entities.items():
        given = entities.get(name) or {}
        if given.get("policy"):
            raise Unsupported("policies")
        if "source" in given:
            source = source_version.entities[given["source"]]
        elif name in new:
            source = None
        else:
            source = pair(entity, source_version.entities.values(), set(destination_version.entities))
        if source is None:
            continue
        mappings.append(EntityMapping(entity, source, given))
    # Further entity mappings into one destination entity (a merge: `destination:` under the mapping's own
    # name): each makes destination objects of its own source objects, in the file's order after the entity's
    # own mapping, as Core Data's migration manager runs every entity mapping of a mapping model.
    for name, given in entities.items():
        if not isinstance(given, dict) or "destination" not in given:
            continue
        if given.get("policy"):
            raise Unsupported("policies")
        mappings.append(EntityMapping(destination_version.entities[given["destination"]],
                                      source_version.entities[given["source"]], given))
        claimed.add(name)
    for m in mappings:
        claimed.add(m.destination.name)
    for name in entities:
        if name not in claimed:
            raise Unsupported("mapping file entity %s has no source" % name)
    # Inference pairs attributes only across the same type or an integer widening; two destination properties
    # of one entity that share a source property's identifier (a property moved up with its renamedFrom while a
    # subentity keeps the old name) make the pairing ambiguous, as two sources for one destination do.
    for m in mappings:
        claimed = {}
        for attribute in m.destination.stored_attributes():
            partner = (pair(attribute, m.source.stored_attributes(), graph.property_names(m.destination))
                       if attribute.name not in m.properties else None)
            if partner is not None:
                inferred_value(attribute, partner, None)
                claimed.setdefault(partner.name, []).append(attribute.name)
        for r in m.destination.stored_relationships():
            partner = (pair(r, m.source.stored_relationships(), graph.property_names(m.destination))
                       if r.name not in m.properties else None)
            if partner is not None:
                claimed.setdefault(partner.name, []).append(r.name)
        for source_name, names in sorted(claimed.items()):
            if len(names) > 1:
                raise Refused("inference: %s.%s is claimed by %s (ambiguous)" % (m.source.name, source_name,
                                                                              ", ".join(names)))
    graph.check_hierarchies(source_version, destination_version, mappings)
    return mappings


def unread_entities_refused(store, mappings):
    """The toolkit's own gate (Docs/Deploying.md), not Core Data's: the store holds objects of a source entity
    no entity mapping reads, while the destination entity of that name is made from another entity (by a
    mapping file's `source:` or by `renamedFrom`). Core Data would drop them silently."""
    read = {m.source.name for m in mappings}
    for m in mappings:
        name = m.destination.name
        if m.source.name != name and name in store.objects and name not in read and store.objects[name]:
            raise Refused("%s: the store's %s objects no mapping reads, while %s is made from %s (the toolkit's "
                          "gate against a silent loss)" % (name, name, name, m.source.name))


def inferred_value(attribute, source_attribute, value):
    if source_attribute.type != attribute.type and (source_attribute.type, attribute.type) not in WIDENING:
        raise Refused("inference: %s type %s → %s is not a widening" % (attribute.name, source_attribute.type,
                                                                       attribute.type))
    if attribute.type == "double" and source_attribute.type == "float" and value is not None:
        return float(value)  # dump writes a double as a double (0.0), a float it read as 0
    return value


def destination_attributes(m, source):
    """The destination object's attribute values from one source object (stage 1)."""
    values = {}
    source_attributes = m.source.stored_attributes()
    for attribute in m.destination.stored_attributes():
        form = m.properties.get(attribute.name)
        if form is None:
            partner = pair(attribute, source_attributes, graph.property_names(m.destination))
            if partner is None:
                value = attribute.default
            else:
                value = inferred_value(attribute, partner, source.attributes[partner.name])
                if value is None and not attribute.optional and attribute.default is not None:
                    value = attribute.default
        elif isinstance(form, str) and form.startswith("$source."):
            name = form[len("$source."):]
            partner = m.source.attributes[name]
            value = inferred_value(attribute, partner, source.attributes[name])
        elif isinstance(form, dict) and "default" in form:
            value = convert_literal(form["default"], attribute.type)
        elif isinstance(form, dict) and "value" in form:
            if form.get("onFailure"):
                raise Unsupported("onFailure")
            value = evaluate(parse_value(form["value"]), source.attributes)
            if attribute.type in INTEGER_RANGES and isinstance(value, float):
                value = int(value)
        else:
            raise Unsupported("property form %r" % (form,))
        if value is not None and attribute.type in INTEGER_RANGES:
            low, high = INTEGER_RANGES[attribute.type]
            if not low <= value <= high:
                raise Refused("%s.%s: %d is outside %s" % (m.destination.name, attribute.name, value, attribute.type))
        values[attribute.name] = value
    return values


def run_mapping(store, destination_version, spec):
    """One mapping model's three stages over the store; a new store, or Refused."""
    source_version = store.version
    mappings = mapping(source_version, destination_version, spec)
    unread_entities_refused(store, mappings)
    out = Store(destination_version)
    association = {}  # source oid -> [(destination entity, destination oid)]
    made = []  # (mapping, source object, destination object)
    # Stage 1: create destination instances, entity mapping by entity mapping; the source fetch takes the
    # instances of exactly the source entity (each subentity has a mapping of its own).
    for m in mappings:
        for oid in sorted(store.objects[m.source.name], key=repr):
            source = store.objects[m.source.name][oid]
            if m.filter is not None and not holds(m.filter, source.attributes):
                continue
            if m.destination.abstract:
                raise Refused("%s is abstract and the store holds %s objects it would be made from (an abstract "
                              "entity has no instances)" % (m.destination.name, m.source.name))
            obj = Obj(m.destination.name, (m.destination.name, m.source.name, oid), source.pk)
            obj.attributes = destination_attributes(m, source)
            out.objects[m.destination.name][obj.oid] = obj
            association.setdefault(oid, []).append((m.destination.name, obj.oid))
            made.append((m, source, obj))
    # Stage 2: relationships, through the association.
    pks = {o.oid: o.pk for s in (store, out) for objects in s.objects.values() for o in objects.values()}
    graph.set_relationships(made, association, out, pks)
    # Stage 3: validation.
    validate(out)
    return out


def validate(store):
    """Every rule of an object's entity (inherited ones included) on every object; the first failing one."""
    for name, entity in store.version.entities.items():
        objects = store.objects[name]
        for obj in sorted(objects.values(), key=lambda o: repr(o.oid)):
            for attribute in entity.stored_attributes():
                value = obj.attributes[attribute.name]
                if value is None:
                    if not attribute.optional:
                        raise Refused("%s.%s is required and an object holds nil" % (name, attribute.name))
                    continue
                measure = len(value) if isinstance(value, str) else value
                if attribute.minimum is not None and measure < attribute.minimum:
                    raise Refused("%s.%s: %r is below min %r" % (name, attribute.name, value, attribute.minimum))
                if attribute.maximum is not None and measure > attribute.maximum:
                    raise Refused("%s.%s: %r is above max %r" % (name, attribute.name, value, attribute.maximum))
            graph.validate_relationships(name, entity, obj)
    graph.validate_uniqueness(store)


# MARK: Paths

def accepts(pieces, empty=lambda version: frozenset()):
    """Whether a mapping can be made for every piece (inference, or the file over it), before any data.

    For choosing a path an inferred piece that gives an existing entity a new required attribute
    without a default counts as refused (Docs/MappingFiles.md, "Which path a migration takes": inference
    cannot fill it), unless the store may hold no objects of that entity when the piece starts
    (`empty(version number)`, source entity names): then nothing is nil, and the data decides."""
    try:
        for source, destination, spec in pieces:
            mappings = mapping(source, destination, spec)
            if spec is not None:
                continue
            for m in mappings:
                if m.source.name in empty(source.number):
                    continue
                sources = m.source.stored_attributes()
                for attribute in m.destination.stored_attributes():
                    if (not attribute.optional and attribute.default is None
                            and pair(attribute, sources, graph.property_names(m.destination)) is None):
                        return False
    except Refused:
        return False
    return True


def hops(versions, files, start, target, path, empty=frozenset()):
    """The mappings a path runs: [(source version, destination version, mapping file or None)], or Refused.

    chain: one per hop, each its file <n>-to-<n+1>.yaml or inferred (spans unused); direct: one, the file
    <start>-to-<target>.yaml or inferred; default: Docs/MappingFiles.md, "Which path a migration takes": from
    each version reached, the file from it reaching furthest (not past the target), else the hops up to where
    the next file starts when a mapping can be made for each, else the direct inferred mapping to the target.
    """
    def hop(n):
        return (versions[n], versions[n + 1], files.get((n, n + 1)))

    def strict(v):
        """The entities the store holds no objects of, at its own version only."""
        return empty if v == start else frozenset()

    def relaxed(v):
        """Also, after the store's version: every entity when a mapping file ran before (its filter may
        have emptied any), and an entity that did not keep its name through every version since the
        store's (removed and added again, or renamed): the data decides at that hop. Used only when no
        route is found without it (Docs/MappingFiles.md)."""
        if v == start:
            return empty
        mapped = any(a >= start and b <= v for (a, b) in files)
        names = set(versions[v].entities)
        return frozenset(name for name in names
                         if mapped or name in empty or not all(name in versions[k].entities for k in range(start, v + 1)))

    if path == "chain":
        return [hop(n) for n in range(start, target)]
    if path == "direct":
        return [(versions[start], versions[target], files.get((start, target)))] if target != start else []
    try:
        return default_path(versions, files, start, target, strict)
    except Refused:
        try:
            return default_path(versions, files, start, target, relaxed)
        except Refused:
            pass
        raise


def default_path(versions, files, start, target, may_be_empty):
    """The default path's pieces, inference judged with `may_be_empty(version)`."""
    def hop(n):
        return (versions[n], versions[n + 1], files.get((n, n + 1)))

    pieces, v = [], start
    while v < target:
        reach = [b for (a, b) in files if a == v and b <= target]
        if reach:
            pieces.append((versions[v], versions[max(reach)], files[(v, max(reach))]))
            v = max(reach)
            continue
        stop = min([a for (a, b) in files if v < a < target and b <= target] + [target])
        chain = [hop(n) for n in range(v, stop)]
        if accepts(chain, may_be_empty):
            pieces += chain
            v = stop
            continue
        direct = [(versions[v], versions[target], None)]
        if not accepts(direct, may_be_empty):
            refused = next(n for n, piece in enumerate(chain) if not accepts([piece], may_be_empty))
            mapping(*chain[refused])  # raises the chain's refusal, when inference refuses the piece
            raise Refused("inference: hop %d → %d: a new required attribute without a default, and the direct "
                          "mapping refused too" % (v + refused, v + refused + 1))
        pieces += direct
        v = target
    return pieces


def migrate(versions, files, store, target, path):
    """("migrated", store, states) or ("refused", rule, states); states[v] is the store after reaching v."""
    states = {store.version.number: store}
    try:
        empty = frozenset(name for name, objects in store.objects.items() if not objects)
        for _, destination, spec in hops(versions, files, store.version.number, target, path, empty):
            store = run_mapping(store, destination, spec)
            states[destination.number] = store
    except Refused as refusal:
        return ("refused", refusal.rule, states)
    return ("migrated", store, states)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--migrations")
    parser.add_argument("--dumps", required=True, help="a folder of <Entity>.jsonl (migrate dump)")
    parser.add_argument("--from", dest="source", type=int, required=True)
    parser.add_argument("--to", type=int)
    parser.add_argument("--path", choices=["default", "chain", "direct"], default="default")
    args = parser.parse_args(argv[1:])
    versions = load_versions(args.models, args.model)
    target = args.to or max(versions)
    dumps = {}
    for name in versions[args.source].entities:
        path = os.path.join(args.dumps, name + ".jsonl")
        if os.path.exists(path):
            with open(path) as f:
                dumps[name] = [json.loads(line) for line in f if line.strip()]
    store = store_from_dumps(versions[args.source], dumps)
    kind, result, _ = migrate(versions, load_mapping_files(args.migrations, args.model), store, target, args.path)
    if kind == "refused":
        print("refused: %s" % result)
        return 4
    for name, row in sorted(rows(result).items()):
        print(json.dumps({"_object": name, **row}, sort_keys=True, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
