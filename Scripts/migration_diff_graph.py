"""The fuzzer's change kinds over relationships and hierarchies (Scripts/migration_diff.py).

Models here are the YAML-shaped dicts of migration_diff's histories. Each change
function takes the generator `g` (its rng, fresh names, counters) and the model of the
version being made, changes the model, and returns a line saying what it did, or None
when it does not apply. Relationship sides are named by their kind when made: `o<n>`
the to-one side of a one-to-many, `m<n>` its to-many side, `n<n>` ↔ `k<n>` the two
sides of a many-to-many (a rename keeps the first letter).
"""

import copy


# MARK: Hierarchies in a model dict

def parent(model, e):
    return model["entities"][e].get("parent")


def children(model, e):
    return sorted(n for n, s in model["entities"].items() if s.get("parent") == e)


def subtree(model, e):
    out = [e]
    for c in children(model, e):
        out += subtree(model, c)
    return out


def ancestors(model, e):
    out = []
    while parent(model, e):
        e = parent(model, e)
        out.append(e)
    return out


def root(model, e):
    return (ancestors(model, e) or [e])[-1]


def in_hierarchy(model, e):
    return bool(parent(model, e) or children(model, e))


def full(model, e, group):
    """An entity's attributes or relationships, inherited ones first: {name: (declaring entity, spec)}."""
    out = {}
    for n in reversed([e] + ancestors(model, e)):
        for name, spec in model["entities"][n].get(group, {}).items():
            out[name] = (n, spec)
    return out


def family_names(model, e):
    """Every name (and renaming identifier) a property has anywhere in e's hierarchy: a new property of e must
    clash with none (inherited, or a subentity's)."""
    names = set()
    for n in subtree(model, root(model, e)):
        for group in ("attributes", "relationships"):
            for name, spec in model["entities"][n].get(group, {}).items():
                names.add(name)
                names.add(spec.get("renamedFrom") or name)
    return names


def depth(model, e):
    return len(ancestors(model, e))


def sanitize(model):
    """Uniqueness constraints whose properties an entity no longer has (removed, moved down elsewhere) go."""
    for name, entity in model["entities"].items():
        attributes = full(model, name, "attributes")
        kept = [u for u in entity.get("uniqueness", []) if all(p in attributes for p in u)]
        if kept:
            entity["uniqueness"] = kept
        else:
            entity.pop("uniqueness", None)


# MARK: Relationship pairs

def add_pair(g, model, owner, destination, kind="one-to-many", required=False, ordered=(False, False), name=None):
    """A pair of relationships owner ↔ destination: one-to-many (owner's side to-one, `o`/`m`) or
    many-to-many (`n`/`k`); ordered: (owner side, destination side), for to-many sides. Returns the text."""
    g.relationship_counter += 1
    n = g.relationship_counter
    if kind == "many-to-many":
        a, b = name or "n%d" % n, "k%d" % n
        owner_spec = {"destination": destination, "toMany": True, "inverse": b}
        if ordered[0]:
            owner_spec["ordered"] = True
    else:
        a, b = name or "o%d" % n, "m%d" % n
        owner_spec = {"destination": destination, "inverse": b, "optional": not required}
    destination_spec = {"destination": owner, "toMany": True, "inverse": a}
    if ordered[1]:
        destination_spec["ordered"] = True
    g.last_pair = (owner, a, destination, b)
    model["entities"][owner].setdefault("relationships", {})[a] = owner_spec
    model["entities"][destination].setdefault("relationships", {})[b] = destination_spec
    return "%s.%s ↔ %s.%s (%s%s) added" % (owner, a, destination, b, kind, "".join(
        ", %s ordered" % side for side, on in zip((a, b), ordered) if on))


def relationships(model, predicate=lambda e, r, s: True):
    return [(e, r, s) for e, entity in sorted(model["entities"].items())
            for r, s in sorted(entity.get("relationships", {}).items()) if predicate(e, r, s)]


def inverse_spec(model, s):
    return model["entities"][s["destination"]]["relationships"][s["inverse"]]


def pair_kind(g):
    many = "many-to-many" not in g.without and g.rng.random() < 0.3
    return "many-to-many" if many else "one-to-many"


def random_order(g, kind):
    if "ordered" in g.without:
        return (False, False)
    return (kind == "many-to-many" and g.rng.random() < 0.3, g.rng.random() < 0.3)


def change_add_many_to_many(g, model):
    names = sorted(model["entities"])
    if len(names) < 2:
        return None
    owner, destination = g.rng.sample(names, 2)
    return add_pair(g, model, owner, destination, "many-to-many", ordered=random_order(g, "many-to-many"))


def change_to_many(g, model):
    """The to-one side of a pair made to-many (a one-to-many becomes many-to-many, a one-to-one one-to-many), or
    such a side made to-one again (the data decides: one that holds several objects is refused)."""
    choices = relationships(model, lambda e, r, s: r.startswith("o"))
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    if s.get("toMany"):
        for key in ("toMany", "ordered", "minCount", "maxCount"):
            s.pop(key, None)
        return "%s.%s made to-one again" % (e, r)
    s["toMany"] = True
    s.pop("optional", None)
    shape = "many-to-many" if inverse_spec(model, s).get("toMany") else "one-to-many"
    if "ordered" not in g.without and g.rng.random() < 0.3:
        s["ordered"] = True
    return "%s.%s made to-many%s (%s with %s.%s)" % (e, r, " ordered" if s.get("ordered") else "", shape,
                                                   s["destination"], s["inverse"])


def change_ordered(g, model):
    choices = relationships(model, lambda e, r, s: s.get("toMany"))
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    if s.get("ordered"):
        del s["ordered"]
        return "%s.%s made unordered" % (e, r)
    s["ordered"] = True
    return "%s.%s made ordered" % (e, r)


def change_max_count(g, model):
    choices = relationships(model, lambda e, r, s: s.get("toMany"))
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    if "maxCount" in s and g.rng.random() < 0.5:
        del s["maxCount"]
        return "%s.%s maxCount removed" % (e, r)
    value = g.rng.choice([1, 2, 3])
    if s.get("minCount", 0) > value:
        return None
    s["maxCount"] = value
    return "%s.%s maxCount %d" % (e, r, value)


# MARK: Hierarchy changes

def change_add_subentity(g, model):
    """A new subentity of an entity (at most two levels below a root); sometimes with a property of the
    same name as a sibling's, so that a later version can move it up from both."""
    if len(model["entities"]) >= 7:
        return None
    candidates = [e for e in sorted(model["entities"]) if depth(model, e) < 2]
    if not candidates:
        return None
    p = g.rng.choice(candidates)
    name = g.fresh_entity(model)
    entity = {"parent": p, "attributes": {}, "relationships": {}}
    model["entities"][name] = entity
    for _ in range(g.rng.randint(0, 2)):
        entity["attributes"][g.fresh_attribute(name, entity, model)] = g.attribute()
    shared = []
    siblings = [c for c in children(model, p) if c != name]
    if siblings and g.rng.random() < 0.6:
        sibling = g.rng.choice(siblings)
        own = model["entities"][sibling]
        attributes = sorted(own.get("attributes", {}))
        if attributes and g.rng.random() < 0.6:
            a = g.rng.choice(attributes)
            spec = copy.deepcopy(own["attributes"][a])
            spec.pop("renamedFrom", None)
            entity["attributes"][a] = spec
            shared.append(a)
        else:
            to_ones = [(r, s) for r, s in sorted(own.get("relationships", {}).items())
                       if not s.get("toMany") and s["destination"] not in subtree(model, p)]
            if to_ones:
                r, s = g.rng.choice(to_ones)
                add_pair(g, model, name, s["destination"], name=r)
                shared.append(r)
    abstract = g.rng.random() < 0.2 and not shared
    if abstract:
        entity["abstract"] = True
    return "%s added, a%s subentity of %s {%s}%s" % (
        name, "n abstract" if abstract else "", p,
        ", ".join("%s: %s" % (a, s.get("type")) for a, s in entity["attributes"].items()),
        " sharing %s with a sibling" % ", ".join(shared) if shared else "")


def change_new_parent(g, model):
    """An entity outside any hierarchy gets a new parent, abstract or not, which takes its `key` (and maybe
    another attribute) up: its objects keep their values through the inherited properties."""
    if len(model["entities"]) >= 7:
        return None
    choices = [e for e in sorted(model["entities"]) if not in_hierarchy(model, e)]
    if not choices:
        return None
    e = g.rng.choice(choices)
    name = g.fresh_entity(model)
    entity = model["entities"][e]
    moved = ["key"] + [a for a in sorted(entity["attributes"]) if a != "key" and g.rng.random() < 0.3][:1]
    new = {"attributes": {a: entity["attributes"].pop(a) for a in moved}, "relationships": {}}
    if g.rng.random() < 0.5:
        new["abstract"] = True
    model["entities"][name] = new
    entity["parent"] = name
    for u in entity.get("uniqueness", []):
        if any(p in moved for p in u):
            new.setdefault("uniqueness", []).append(u)
    entity["uniqueness"] = [u for u in entity.get("uniqueness", []) if u not in new.get("uniqueness", [])]
    if not entity["uniqueness"]:
        del entity["uniqueness"]
    return "%s gets a new %sparent %s, which takes %s up" % (e, "abstract " if new.get("abstract") else "", name,
                                                           ", ".join(moved))


def move_up(g, model, c, prop):
    """prop of subentity c moved up to its parent, from every sibling that has a property of that name of the
    same kind (type, or destination and shape); None when a sibling's differs."""
    p = parent(model, c)
    group = "attributes" if prop in model["entities"][c].get("attributes", {}) else "relationships"
    spec = model["entities"][c][group][prop]
    holders = [c]
    for sibling in children(model, p):
        if sibling == c:
            continue
        other = model["entities"][sibling]
        names = set(other.get("attributes", {})) | set(other.get("relationships", {}))
        descendants = [d for d in subtree(model, sibling) if d != sibling]
        if any(prop in model["entities"][d].get(group, {}) for d in descendants):
            return None
        if prop not in names:
            continue
        theirs = other.get(group, {}).get(prop)
        if theirs is None:
            return None
        if group == "attributes" and theirs["type"] != spec["type"]:
            return None
        if group == "relationships" and (theirs["destination"] != spec["destination"]
                                         or bool(theirs.get("toMany")) != bool(spec.get("toMany"))
                                         or bool(inverse_spec(model, theirs).get("toMany"))
                                         != bool(inverse_spec(model, spec).get("toMany"))):
            return None
        holders.append(sibling)
    if any(prop in model["entities"][d].get(group, {}) for d in subtree(model, c) if d != c):
        return None
    for h in holders:
        removed = model["entities"][h][group].pop(prop)
        if group == "relationships" and h != c:
            # The merged siblings keep c's inverse; the others' inverses go.
            del model["entities"][removed["destination"]]["relationships"][removed["inverse"]]
    model["entities"][p].setdefault(group, {})[prop] = spec
    if group == "relationships":
        inverse_spec(model, spec)["destination"] = p
    return "%s.%s moved up to %s%s" % (c, prop, p, " (from %s)" % ", ".join(holders) if len(holders) > 1 else "")


def change_move_up(g, model):
    choices = [(c, a) for c in sorted(model["entities"]) if parent(model, c)
               for a in sorted(model["entities"][c].get("attributes", {}))]
    choices += [(c, r) for c in sorted(model["entities"]) if parent(model, c)
                for r in sorted(model["entities"][c].get("relationships", {}))
                if model["entities"][c]["relationships"][r]["destination"] != c]
    if not choices:
        return None
    c, prop = g.rng.choice(choices)
    return move_up(g, model, c, prop)


def change_widen_destination(g, model):
    """A to-one whose destination is a subentity widened to its parent: its inverse moves up to the parent."""
    choices = relationships(model, lambda e, r, s: not s.get("toMany") and parent(model, s["destination"])
                            and s["inverse"] in model["entities"][s["destination"]].get("relationships", {})
                            and s["destination"] != e)
    if not choices:
        return None
    e, r, s = g.rng.choice(choices)
    text = move_up(g, model, s["destination"], s["inverse"])
    return text and "%s.%s's destination widened (%s)" % (e, r, text)


def change_move_down(g, model):
    """A property of a parent moved down to one of its subentities: the parent's own objects and the other
    subentities' lose it."""
    choices = [(p, group, prop) for p in sorted(model["entities"]) if children(model, p)
               for group in ("attributes", "relationships")
               for prop in sorted(model["entities"][p].get(group, {})) if prop != "key"]
    choices = [(p, group, prop) for p, group, prop in choices
               if group == "attributes" or model["entities"][p][group][prop]["destination"] != p]
    if not choices:
        return None
    p, group, prop = g.rng.choice(choices)
    c = g.rng.choice(children(model, p))
    spec = model["entities"][p][group].pop(prop)
    model["entities"][c].setdefault(group, {})[prop] = spec
    if group == "relationships":
        inverse = inverse_spec(model, spec)
        if inverse["destination"] != p:
            model["entities"][p][group][prop] = spec
            del model["entities"][c][group][prop]
            return None
        inverse["destination"] = c
    return "%s.%s moved down to %s" % (p, prop, c)


def change_leave_hierarchy(g, model):
    """A subentity without subentities made a root entity: it declares the attributes it inherited (they keep
    their values); the inherited relationships it loses, and references to it through its old parent go."""
    choices = [c for c in sorted(model["entities"]) if parent(model, c) and not children(model, c)]
    if not choices:
        return None
    c = g.rng.choice(choices)
    entity = model["entities"][c]
    p = entity.pop("parent")
    inherited = full(model, p, "attributes")
    entity["attributes"] = {**{a: copy.deepcopy(s) for a, (_, s) in inherited.items()}, **entity["attributes"]}
    for s in entity["attributes"].values():
        s.pop("renamedFrom", None)
    return "%s leaves %s's hierarchy (declares %s)" % (c, p, ", ".join(inherited))


# MARK: Data at version 1

def relationship_values(g, model, history, name, objects, data_sides):
    """The relationships written on version 1's objects of `name` (the data sides: each pair's side on the
    entity loaded later), targets among the objects loaded before; `_position` for an ordered one-to-many."""
    for r, (declared, spec) in full(model, name, "relationships").items():
        if (declared, r) not in data_sides:
            continue
        targets = [o["_pk"] for n in subtree(model, spec["destination"]) for o in history.data.get(n, [])]
        for obj in objects:
            if not spec.get("toMany"):
                obj[r] = g.rng.choice(targets) if targets and g.rng.random() < 0.75 else None
                continue
            chosen = g.rng.sample(targets, g.rng.randint(0, min(3, len(targets))))
            obj[r] = chosen if spec.get("ordered") else sorted(chosen)
        inverse = inverse_spec(model, spec)
        if not spec.get("toMany") and inverse.get("ordered"):
            owners = {}
            for obj in objects:
                if obj[r] is not None:
                    owners.setdefault(obj[r], []).append(obj)
            for members in owners.values():
                g.rng.shuffle(members)
                for place, obj in enumerate(members):
                    obj.setdefault("_position", {})[r] = place + 1
