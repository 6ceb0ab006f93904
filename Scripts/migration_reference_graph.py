"""The reference migration manager's object graph: hierarchies and relationships.

Beside Scripts/migration_reference.py, which reads models, mapping files and dumps and
runs the paths, this module holds what a mapping does to the graph of objects, as Core
Data's NSMigrationManager does it (Docs/Reference.md, "Hierarchies, many-to-many and
ordered relationships", has the citations):

- Inheritance: an entity's properties are its parent's (recursively) and its own; an
  object is an instance of exactly one entity; a fetch of an entity, a relationship's
  destination and a uniqueness constraint take the instances of the entity and of its
  subentities ("the instances of that entity", NSEntityDescription.uniquenessConstraints),
  while an entity mapping's source fetch takes the instances of exactly its source entity.
- Inference refuses a relationship moved to an unrelated entity and two source
  hierarchies merged into one ("if two existing entities do not share a common parent
  in the source, they cannot share a common parent in the destination", Apple,
  Lightweight Migration).
- The relationship stage: a relationship holds the destination objects that the entity
  mappings into its destination entity's hierarchy below it made from the source
  relationship's targets (destinationInstancesForEntityMappingNamed:sourceInstances:),
  in the source order when the source is ordered, else in primary-key order; setting one
  side sets the inverse.
- Validation of relationships (required to-one, minCount, maxCount) and of uniqueness
  constraints over an entity's hierarchy below it.

It shares no code with the toolkit, and none with the planner's logic.
"""

import json


class Unsupported(Exception):
    """The input uses something this reference does not model."""


class Refused(Exception):
    """Core Data would not migrate: the rule that fails."""

    def __init__(self, rule):
        super().__init__(rule)
        self.rule = rule


# MARK: Pairing

def property_names(entity):
    """The names of an entity's properties, inherited ones included (the siblings of each, for `pair`)."""
    return set(entity.attributes) | set(entity.relationships)


def pair(destination, candidates, siblings=()):
    """The source element a destination entity or property pairs with by renaming identifier.

    `siblings`: the names of the destination's own kind beside it (the version's entities, or its entity's
    properties). A destination without renamedFrom whose name is the identifier of a source element named
    otherwise (`b`, renamedFrom `a`, when the destination is named `a` again) pairs with it, unless a
    destination element has that source element's name: then that one continues it, and this one is new (a
    new entity `Card` beside `Echo`, which was renamed from `Card` a version before). A source element of the
    destination's own name sharing its identifier is itself, unchanged (`C`, renamedFrom `B`, beside a new `B`,
    stays `C`)."""
    found = [c for c in candidates if destination.identifier in (c.name, c.identifier)]
    same = [c for c in found if c.name == destination.name]
    if same:
        return same[0]
    if destination.renamed_from is None and not any(c.name == destination.name for c in found):
        found = [c for c in found if c.name not in siblings]
    if len(found) > 1:
        named = [c for c in found if c.name == destination.identifier]
        if len(named) != 1:
            raise Refused("inference: %s pairs with %s (ambiguous)" % (destination.name,
                                                                        ", ".join(c.name for c in found)))
        found = named
    return found[0] if found else None


# MARK: Hierarchies

def resolve_inheritance(entities):
    """Give every entity its inherited properties: `attributes` and `relationships` become the whole set
    (the parent's first), `own_attributes` and `own_relationships` what it declares, `children` its
    direct subentities."""
    for entity in entities.values():
        entity.children = []
    for name, entity in entities.items():
        if entity.parent is not None:
            if entity.parent not in entities:
                raise Unsupported("parent %s of %s is not an entity" % (entity.parent, name))
            entities[entity.parent].children.append(name)
    done = set()

    def resolve(entity, seen=()):
        if entity.name in done:
            return
        if entity.name in seen:
            raise Unsupported("inheritance cycle at %s" % entity.name)
        attributes, relationships = {}, {}
        if entity.parent is not None:
            parent = entities[entity.parent]
            resolve(parent, seen + (entity.name,))
            attributes.update(parent.attributes)
            relationships.update(parent.relationships)
        for group, inherited, own in (("attribute", attributes, entity.own_attributes),
                                      ("relationship", relationships, entity.own_relationships)):
            for n in own:
                if n in attributes or n in relationships:
                    raise Unsupported("%s.%s: %s named like an inherited property" % (entity.name, n, group))
            inherited.update(own)
        entity.attributes, entity.relationships = attributes, relationships
        done.add(entity.name)

    for entity in entities.values():
        resolve(entity)


def subtree(version, name):
    """The entity and every entity below it."""
    out, stack = [], [name]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(version.entities[n].children)
    return out


def root(version, name):
    while version.entities[name].parent is not None:
        name = version.entities[name].parent
    return name


def check_hierarchies(source_version, destination_version, mappings):
    """Inference's refusals about entities and relationships across a hierarchy (before any data)."""
    # Merged hierarchies: the entities of one destination hierarchy made from entities of several source ones.
    # A further mapping (a mapping file's `destination:` entry) is a merge the file asks for, as a mapping
    # model's second entity mapping into an entity does (WordPress-iOS's ReaderCommentToComment): not inferred.
    sources_by_root = {}
    for m in mappings:
        if m.further:
            continue
        sources_by_root.setdefault(root(destination_version, m.destination.name), set()).add(
            root(source_version, m.source.name))
    for top, tops in sorted(sources_by_root.items()):
        if len(tops) > 1:
            raise Refused("inference: hierarchy %s is made from the separate source hierarchies %s (merged "
                          "hierarchies)" % (top, ", ".join(sorted(tops))))
    # A relationship pairs with a source relationship only when some entity mapping makes objects of its
    # destination's hierarchy (the entity or below) from objects of the source destination's: otherwise no
    # entity mapping gives its targets, and inference fails ("moved to an unrelated entity").
    # Widening (to an ancestor) and narrowing (to a subentity) are related as the source model has them, even
    # when the old destination leaves the hierarchy in the same mapping: its objects are then not targets.
    made_into, made_from = {}, {}
    for m in mappings:
        made_into.setdefault(m.source.name, set()).add(m.destination.name)
        made_from.setdefault(m.destination.name, set()).add(m.source.name)
    for m in mappings:
        for r in m.destination.stored_relationships():
            partner = pair(r, m.source.stored_relationships(), property_names(m.destination))
            if partner is None:
                continue
            reached = set(subtree(destination_version, r.destination))
            old = partner.destination
            lineage = set(subtree(source_version, old)) | {a for a in source_version.entities
                                                           if old in subtree(source_version, a)}
            if made_from.get(r.destination, set()) & lineage:
                continue
            if not any(made_into.get(s, set()) & reached for s in subtree(source_version, old)):
                raise Refused("inference: %s.%s: destination changed from %s to %s, an unrelated entity"
                              % (m.destination.name, r.name, partner.destination, r.destination))


# MARK: The relationship stage

def members(value):
    """A relationship's value as a list of oids (a to-many is a list, in order; a to-one an oid or None)."""
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def set_relationships(made, association, out, pks):
    """Stage 2 over the destination store `out`: made is [(entity mapping, source object, destination
    object)], association[source oid] the [(destination entity, destination oid)] the mappings made of it,
    pks[oid] an object's primary key (source and destination objects alike: kept by the migration)."""
    version = out.version
    objects = {o.oid: o for entity_objects in out.objects.values() for o in entity_objects.values()}
    given = {}  # (oid, relationship) -> the targets its source relationship gave
    for m, source, obj in made:
        source_relationships = m.source.stored_relationships()
        for r in m.destination.stored_relationships():
            if r.name in m.properties:
                raise Unsupported("relationship mapping %s" % r.name)
            partner = pair(r, source_relationships, property_names(m.destination))
            targets = []
            if partner is not None:
                value = members(source.relationships[partner.name])
                if not partner.ordered:
                    value = sorted(value, key=lambda t: pks[t])  # no source order: primary-key order
                reached = set(subtree(version, r.destination))
                for t in value:
                    targets += [d for e, d in association.get(t, []) if e in reached and d not in targets]
                if not r.to_many and len(targets) > 1:
                    # Counted on what the destination would hold: members a filter left out are not there.
                    raise Refused("%s.%s: a to-many made to-one holds several objects" % (obj.entity, r.name))
            given[(obj.oid, r.name)] = list(targets)
            obj.relationships[r.name] = targets if r.to_many else (targets[0] if targets else None)
    # Setting one side of a relationship sets its inverse (Core Data maintains inverses): a side that pairs
    # with no source relationship takes the pairs its inverse was given, and where both sides pair with
    # different sources (two siblings' relationships moved up, one inverse kept) the pairs of both are kept.
    # A to-one side given two objects through its inverse (a many-to-many made one-to-many by renaming its to-many
    # side only: Delta's Game.gameCollections → gameCollection) is refused, as the toolkit refuses a to-many made
    # to-one that holds several objects; Core Data would keep the last one its relationship stage set.
    through_inverse = {}
    for m, source, obj in made:
        for r in m.destination.stored_relationships():
            if not r.inverse:
                continue
            for t in members(obj.relationships[r.name]):
                target = objects[t]
                inverse = version.entities[target.entity].relationships[r.inverse]
                if inverse.to_many:
                    if obj.oid not in target.relationships[inverse.name]:
                        target.relationships[inverse.name].append(obj.oid)
                elif target.relationships[inverse.name] is None:
                    target.relationships[inverse.name] = obj.oid
                    through_inverse[(t, inverse.name)] = obj.oid
                elif through_inverse.get((t, inverse.name), obj.oid) != obj.oid:
                    raise Refused("%s.%s: a to-many made to-one holds several objects (through its inverse %s.%s)"
                                  % (target.entity, inverse.name, obj.entity, r.name))
    # Members an ordered side got only through its inverse have no source order: primary-key order, after
    # the ones its own source relationship gave.
    for m, source, obj in made:
        for r in m.destination.stored_relationships():
            if r.to_many and r.ordered:
                own = given.get((obj.oid, r.name), [])
                rest = [t for t in obj.relationships[r.name] if t not in own]
                obj.relationships[r.name] = own + sorted(rest, key=lambda t: pks[t])


# MARK: Validation

def validate_relationships(name, entity, obj):
    for r in entity.stored_relationships():
        value = obj.relationships[r.name]
        if not r.to_many:
            if value is None and not r.optional:
                raise Refused("%s.%s is a required to-one and an object has none" % (name, r.name))
            continue
        count = len(value)
        if r.min_count and count < r.min_count and (count > 0 or not r.optional):
            raise Refused("%s.%s needs at least %d objects, one has %d" % (name, r.name, r.min_count, count))
        if r.max_count and count > r.max_count:
            raise Refused("%s.%s allows at most %d objects, one has %d" % (name, r.name, r.max_count, count))


def validate_uniqueness(store):
    """Each constraint over the instances of the entity that declares it, its subentities' included."""
    for name, entity in store.version.entities.items():
        objects = [o for n in subtree(store.version, name) for o in store.objects[n].values()]
        for constraint in entity.uniqueness:
            seen = set()
            for obj in objects:
                values = tuple(obj.attributes[p] if p in obj.attributes else obj.relationships.get(p)
                               for p in constraint)
                if any(v is None for v in values):
                    continue
                key = json.dumps(values, sort_keys=True, default=str)
                if key in seen:
                    raise Refused("%s uniqueness %s: two objects hold %s" % (name, "+".join(constraint), key))
                seen.add(key)


# MARK: Reading a dump's relationships

def read_relationships(store, lines, index):
    """Set the relationships of the objects read from dump lines [(object, entity, line)]; index[(root, pk)]
    is the object. A dump writes each pair once (a to-one side, one side of a many-to-many); an ordered
    to-many's order is the list its own line gives, else its members' `_position` (an ordered
    one-to-many); where neither is written (the other side of an ordered many-to-many) the order is not in
    the dump: store.unobserved gets (entity, relationship)."""
    version = store.version
    positions = {}  # (owner oid, relationship) -> {member oid: position}
    given = {}  # (owner oid, relationship) -> the list its line gives
    for obj, entity, line in lines:
        for r in entity.stored_relationships():
            if line.get(r.name) is None:
                continue
            targets = line[r.name] if r.to_many else [line[r.name]]
            if r.to_many:
                given[(obj.oid, r.name)] = []
            for pk in targets:
                target = index[(root(version, r.destination), pk)]
                link(version, obj, r, target)
                if r.to_many:
                    given[(obj.oid, r.name)].append(target.oid)
                position = (line.get("_position") or {}).get(r.name)
                if position is not None and r.inverse:
                    positions.setdefault((target.oid, r.inverse), {})[obj.oid] = position
    for obj, entity, line in lines:
        for r in entity.stored_relationships():
            if not (r.to_many and r.ordered):
                continue
            value = obj.relationships[r.name]
            if (obj.oid, r.name) in given:
                obj.relationships[r.name] = given[(obj.oid, r.name)]
            elif (obj.oid, r.name) in positions:
                order = positions[(obj.oid, r.name)]
                obj.relationships[r.name] = sorted(value, key=lambda t: (t not in order, order.get(t, 0)))
            elif len(value) > 1:
                store.unobserved.add((obj.entity, r.name))


def link(version, obj, r, target):
    if r.to_many:
        if target.oid not in obj.relationships[r.name]:
            obj.relationships[r.name].append(target.oid)
    else:
        obj.relationships[r.name] = target.oid
    if r.inverse:
        inverse = version.entities[target.entity].relationships[r.inverse]
        if inverse.to_many:
            if obj.oid not in target.relationships[inverse.name]:
                target.relationships[inverse.name].append(obj.oid)
        else:
            target.relationships[inverse.name] = obj.oid
