import DataModel
import Testing

@testable import Mapping

/// `Renames`: `renamedFrom` followed hop by hop, for entities, attributes and
/// relationships, chained over versions in both the "previous name" style and Xcode's
/// "original name kept in every later version" style.
@Suite struct RenamesTests {
    @Test func attributeRenamed() throws {
        let mapping = try Models.infer([
            "entities:\n  Item:\n    attributes: { name: string, note: string? }\n",
            "entities:\n  Item:\n    attributes: { title: { type: string, renamedFrom: name }, note: string? }\n",
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [copy("note"), copy("title", from: "name")])
            ])
        #expect(mapping.entityMappings[0].property("title")?.change == "renamed from name")
    }

    /// Core Data pairs by renaming identifier: a `renamedFrom` naming nothing in the
    /// source leaves the entity or property unpaired, even where the source has one of
    /// its own name (the direct mapping from a version before the rename).
    @Test func renamedFromNamingNothingPairsWithNothing() throws {
        let mapping = try Models.infer([
            "entities:\n  A:\n    attributes: { key: string, n: integer16? }\n",
            """
            entities:\n  A:\n    renamedFrom: B\n    attributes: { key: string, m: { type: integer16, optional: true, \
            renamedFrom: x }, n: integer16? }\n
            """,
        ])
        #expect(mapping.entityMappings.map(\.kind) == [.add, .remove])
        let attribute = try Models.infer([
            "entities:\n  A:\n    attributes: { key: string, n: integer16? }\n",
            """
            entities:\n  A:\n    attributes: { key: string, n: { type: integer16, optional: true, renamedFrom: x } }\n
            """,
        ])
        #expect(attribute.entityMappings[0].property("n")?.source == .defaultValue(nil))
        #expect(attribute.entityMappings[0].droppedProperties == ["n"])
    }

    /// A destination without `renamedFrom` has its name as its identifier, so it pairs
    /// with the source property or entity that carries that identifier (`b`,
    /// `renamedFrom: a`, named `a` again): renamed back, the values are kept, as Core
    /// Data pairs them (fuzzer seed 2100 trial 20). Beside a destination that has the
    /// source's name, that one continues it and this one is new (a to-one moved up under
    /// its old name while the subentity keeps its renamed copy; a new entity `Card`
    /// beside `Echo`, renamed from `Card` before).
    @Test func aNameEqualToASourceIdentifierPairsWithIt() throws {
        let back = try Models.infer([
            """
            entities:\n  A:\n    renamedFrom: X\n    attributes: { key: string, b: { type: integer16, optional: true, \
            renamedFrom: a } }\n
            """,
            "entities:\n  X:\n    attributes: { key: string, a: integer16? }\n",
        ])
        #expect(back.entityMappings.map(\.kind) == [.transform])
        #expect(back.entityMappings[0].source == "A")
        #expect(back.entityMappings[0].property("a")?.source == .copy(from: "b"))
        let beside = try Models.infer([
            """
            entities:\n  A:\n    attributes: { key: string, b: { type: integer16, optional: true, renamedFrom: a } }\n
            """,
            """
            entities:\n  A:\n    attributes: { key: string, a: integer16?, b: { type: integer16, optional: true, \
            renamedFrom: a } }\n
            """,
        ])
        #expect(beside.entityMappings[0].property("a")?.source == .defaultValue(nil))
        #expect(beside.entityMappings[0].property("b")?.source == .copy(from: "b"))
        let entities = try Models.infer([
            "entities:\n  Echo:\n    renamedFrom: Card\n    attributes: { title: string? }\n",
            "entities:\n  Echo:\n    attributes: { title: string? }\n  Card:\n    attributes: { title: string? }\n",
        ])
        #expect(
            entities.entityMappings.map { "\($0.kind) \($0.source ?? "-") → \($0.destination ?? "-")" } == [
                "add - → Card", "copy Echo → Echo",
            ])
    }

    /// A relationship to an entity whose renamedFrom names nothing says so, instead
    /// of "changed from A to A".
    @Test func aRelationshipToAnUnpairedEntityOfTheSameNameSaysWhy() throws {
        let texts = try Models.refusalTexts([
            "entities:\n  A:\n    attributes: { n: string? }\n  B:\n    relationships: { a: { destination: A } }\n",
            """
            entities:\n  A:\n    renamedFrom: Zed\n    attributes: { n: string? }\n  B:\n    relationships: { a: { \
            destination: A } }\n
            """,
        ])
        #expect(
            texts.first?.hasPrefix(
                "B.a: destination A is a new entity here (it pairs with no entity of the source: check its renamedFrom)"
            ) == true, "\(texts)"
        )
    }

    @Test func renamedAttributeIsStillTypeChecked() throws {
        let texts = try Models.refusalTexts([
            "entities:\n  Item:\n    attributes: { count: integer64 }\n",
            "entities:\n  Item:\n    attributes: { total: { type: integer32, renamedFrom: count } }\n",
        ])
        #expect(
            texts == [
                "Item.total: type change integer64 → integer32 is narrowing, not a widening\n"
                    + "    remedy: write \(fileHint12) with a policy for Item, "
                        + """
                        or split the change across an intermediate version (add the new attribute, copy in a policy, \
                        remove the old one)
                        """
            ])
    }

    @Test func renamedAndWidened() throws {
        let mapping = try Models.infer([
            "entities:\n  Item:\n    attributes: { count: integer16 }\n",
            "entities:\n  Item:\n    attributes: { total: { type: integer64, renamedFrom: count } }\n",
        ])
        #expect(mapping.entityMappings[0].properties == [convert("total", from: "count", .widen)])
        #expect(mapping.entityMappings[0].properties[0].change == "renamed from count, converted (widen)")
    }

    @Test func entityRenamed() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string }
            """,
            """
            entities:
              Product:
                renamedFrom: Item
                attributes: { name: string }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToProduct", kind: .transform, source: "Item", destination: "Product",
                    properties: [copy("name")])
            ])
    }

    /// Orders and their lines, one-to-many.
    static let orderLines = """
        entities:
          Order:
            relationships:
              lines: { destination: Line, toMany: true, inverse: order }
          Line:
            attributes: { quantity: integer32 }
            relationships:
              order: { destination: Order, inverse: lines }
        """

    @Test func relationshipRenamed() throws {
        let v1 = Self.orderLines
        let v2 = """
            entities:
              Order:
                relationships:
                  items: { destination: Line, toMany: true, inverse: order, renamedFrom: lines }
              Line:
                attributes: { quantity: integer32 }
                relationships:
                  order: { destination: Order, inverse: items }
            """
        let mapping = try Models.infer([v1, v2])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "LineToLine", kind: .transform, source: "Line", destination: "Line",
                    properties: [copy("order", relationship: true), copy("quantity")]),
                EntityMapping(
                    name: "OrderToOrder", kind: .transform, source: "Order", destination: "Order",
                    properties: [copy("items", from: "lines", relationship: true)]),
            ])
    }

    /// A relationship that pairs with nothing takes its inverse's pairs: Core Data sets
    /// the paired side `Order.lines`, and inverse maintenance sets `Line.owner`, the
    /// new name of the to-one that holds the pairs (seed 60 trial 13 of the fuzzer: a
    /// required to-one renamed twice, migrated directly, was refused as new).
    @Test func anUnpairedRelationshipTakesItsPairedInversesPairs() throws {
        let v1 = Self.orderLines
        let v2 = """
            entities:
              Order:
                relationships:
                  lines: { destination: Line, toMany: true, inverse: owner }
              Line:
                attributes: { quantity: integer32 }
                relationships:
                  owner: { destination: Order, inverse: lines, optional: false }
            """
        let mapping = try Models.infer([v1, v2])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "LineToLine", kind: .transform, source: "Line", destination: "Line",
                    properties: [copy("owner", from: "order", relationship: true), copy("quantity")]),
                EntityMapping(
                    name: "OrderToOrder", kind: .transform, source: "Order", destination: "Order",
                    properties: [copy("lines", relationship: true)]),
            ])
        #expect(!(mapping.requirements ?? []).contains { $0.kind == .noObjects })
        // Neither side pairs: nothing to take, the to-one is new.
        let v3 = v2.replacingOccurrences(of: "lines", with: "entries")
        #expect(
            try Models.infer([v1, v3]).entityMappings.first?.properties.first
                == PropertyMapping(
                    name: "owner", source: .defaultValue(nil), isRelationship: true))
    }

    /// The inverse may be paired on a subentity only: BookPlayer 7 → 8 moves `Book.lastPlayed`
    /// and `Book.bookmarks` up to a new parent `LibraryItem`, whose inverses are renamed
    /// `lastPlayedItem` and `item` without `renamedFrom`. Book's mapping pairs the moved
    /// relationships by name, and Core Data sets their inverses with them, so the inverses
    /// continue v7's `lastPlayedBook` and `book` (before, the one-to-one came out half set and
    /// a required `item` was refused as new). Subentities pairing it differently leave it new.
    @Test func anInversePairedOnASubentityOnlyLendsItsPairs() throws {
        let v7 = """
            entities:
              Book:
                attributes: { title: string }
                relationships:
                  lastPlayed: { destination: Library, inverse: lastPlayedBook }
                  marks: { destination: Mark, toMany: true, inverse: book }
              Mark:
                attributes: { time: double }
                relationships:
                  book: { destination: Book, inverse: marks, optional: false }
              Library:
                relationships:
                  lastPlayedBook: { destination: Book, inverse: lastPlayed }
            """
        let v8 = """
            entities:
              Item:
                abstract: true
                attributes: { title: string }
                relationships:
                  lastPlayed: { destination: Library, inverse: lastPlayedItem }
                  marks: { destination: Mark, toMany: true, inverse: item }
              Book:
                parent: Item
              Mark:
                attributes: { time: double }
                relationships:
                  item: { destination: Item, inverse: marks, optional: false }
              Library:
                relationships:
                  lastPlayedItem: { destination: Item, inverse: lastPlayed }
            """
        let mapping = try Models.infer([v7, v8])
        #expect(
            mapping.mapping(forDestination: "Library")?.property("lastPlayedItem")?.source
                == .copy(from: "lastPlayedBook"))
        #expect(mapping.mapping(forDestination: "Mark")?.property("item")?.source == .copy(from: "book"))
        #expect(!(mapping.requirements ?? []).contains { $0.kind == .noObjects })
    }

    static func chain(
        _ names: [(attribute: String, renamedFrom: String?)], entity: [(name: String, renamedFrom: String?)]
    ) -> [String] {
        zip(names, entity).map { attribute, entity in
            var text = "entities:\n  \(entity.name):\n"
            if let old = entity.renamedFrom { text += "    renamedFrom: \(old)\n" }
            text += "    attributes:\n      \(attribute.attribute): { type: string"
            if let old = attribute.renamedFrom { text += ", renamedFrom: \(old)" }
            return text + " }\n"
        }
    }

    @Test func renamesChainOverThreeVersions() throws {
        let versions = Self.chain(
            [("a", nil), ("b", "a"), ("c", "b")], entity: [("Item", nil), ("Product", "Item"), ("Article", "Product")])
        #expect(
            try Models.infer(versions, from: 1, to: 3).entityMappings == [
                EntityMapping(
                    name: "ItemToArticle", kind: .transform, source: "Item", destination: "Article",
                    properties: [copy("c", from: "a")])
            ])
        #expect(
            try Models.infer(versions, from: 2, to: 3).entityMappings == [
                EntityMapping(
                    name: "ProductToArticle", kind: .transform, source: "Product", destination: "Article",
                    properties: [copy("c", from: "b")])
            ])
        #expect(
            try Models.infer(versions, from: 1, to: 2).entityMappings == [
                EntityMapping(
                    name: "ItemToProduct", kind: .transform, source: "Item", destination: "Product",
                    properties: [copy("b", from: "a")])
            ])
    }

    @Test func xcodeStyleKeepsTheOriginalNameInEveryLaterVersion() throws {
        let versions = Self.chain(
            [("a", nil), ("b", "a"), ("c", "a")], entity: [("Item", nil), ("Product", "Item"), ("Article", "Item")])
        #expect(
            try Models.infer(versions, from: 1, to: 3).entityMappings == [
                EntityMapping(
                    name: "ItemToArticle", kind: .transform, source: "Item", destination: "Article",
                    properties: [copy("c", from: "a")])
            ])
        #expect(
            try Models.infer(versions, from: 2, to: 3).entityMappings == [
                EntityMapping(
                    name: "ProductToArticle", kind: .transform, source: "Product", destination: "Article",
                    properties: [copy("c", from: "b")])
            ])
    }

    @Test func xcodeStyleRenameKeptInAVersionThatChangesNothing() throws {
        // Version 3 repeats version 2 (with its renaming identifiers): 2 → 3 is a copy.
        let versions = Self.chain(
            [("a", nil), ("b", "a"), ("b", "a")], entity: [("Item", nil), ("Product", "Item"), ("Product", "Item")])
        #expect(
            try Models.infer(versions, from: 2, to: 3).entityMappings == [
                EntityMapping(
                    name: "ProductToProduct", kind: .copy, source: "Product", destination: "Product",
                    properties: [copy("b")])
            ])
        #expect(
            try Models.infer(versions, from: 1, to: 3).entityMappings == [
                EntityMapping(
                    name: "ItemToProduct", kind: .transform, source: "Item", destination: "Product",
                    properties: [copy("b", from: "a")])
            ])
    }

    @Test func brokenChainMakesANewRequiredAttributeAndIsRefused() throws {
        // Version 3 names a rename source that version 2 does not have.
        let versions = Self.chain(
            [("a", nil), ("b", "a"), ("c", "x")], entity: [("Item", nil), ("Item", nil), ("Item", nil)])
        let failure = try Models.failure(versions, from: 1, to: 3)
        #expect(
            failure.description == """
                no lightweight mapping from Shop version 1 to 3 (1 change inference cannot cover):
                  Item.c: new required attribute without a default or source
                    remedy: add a default (`c: { type: string, default: … }`), make it optional, or write \
                Migrations/Shop/1-to-3.yaml (a span) or a mapping file Migrations/Shop/<A>-to-<A+1>.yaml for the hop \
                that makes this change with a policy for Item
                """)
    }

    @Test func entityRemovedAndReAddedInBetweenIsANewEntity() throws {
        let versions = [
            "entities:\n  Item:\n    attributes: { name: string }\n  Tag:\n    attributes: { label: string }\n",
            "entities:\n  Item:\n    attributes: { name: string }\n",
            "entities:\n  Item:\n    attributes: { name: string }\n  Tag:\n    attributes: { label: string }\n",
        ]
        #expect(
            try Models.infer(versions, from: 1, to: 3).entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .copy, source: "Item", destination: "Item", properties: [copy("name")]),
                EntityMapping(
                    name: "NothingToTag", kind: .add, source: nil, destination: "Tag", properties: [added("label")]),
                EntityMapping(
                    name: "TagToNothing", kind: .remove, source: "Tag", destination: nil, droppedProperties: ["label"]),
            ])
    }

    static let nameRemedy =
        "let one of them continue it: in a version not yet shipped, rename the new one or change its `renamedFrom`;"
        + " in a shipped version, a mapping file setting the others settles it"
    static let itemRemedy =
        "let one of them continue it: in a version not yet shipped, rename the new one or change its `renamedFrom`;"
        + " in a shipped version, a mapping file giving one of them `source: Item` settles it (the others are new)"

    @Test func twoPropertiesClaimingOneOldNameAreRefused() throws {
        let refusals = try Models.refusals([
            "entities:\n  Item:\n    attributes: { name: string? }\n",
            "entities:\n  Item:\n    attributes: { first: { type: string, optional: true, renamedFrom: name }, "
                + "last: { type: string, optional: true, renamedFrom: name } }\n",
        ])
        #expect(
            refusals == [
                Refusal(
                    kind: .ambiguousRename, entity: "Item", property: "first",
                    change: "ambiguous rename: properties first and last both claim the old property 'Item.name'",
                    remedy:
                        Self.nameRemedy
                )
            ])
        #expect(
            refusals[0].description
                == "Item.first: ambiguous rename: properties first and last both claim the old property 'Item.name'\n"
                + "    remedy: \(Self.nameRemedy)"
        )
    }

    @Test func aKeptPropertyAndARenameClaimingItAreAmbiguous() throws {
        let texts = try Models.refusalTexts([
            "entities:\n  Item:\n    attributes: { name: string }\n",
            """
            entities:\n  Item:\n    attributes: { name: string, title: { type: string, default: \"\", renamedFrom: \
            name } }\n
            """,
        ])
        #expect(
            texts == [
                "Item.name: ambiguous rename: properties name and title both claim the old property 'Item.name'\n"
                    + "    remedy: \(Self.nameRemedy)",
                "Item.name: new required attribute without a default or source\n"
                    + "    remedy: add a default (`name: { type: string, default: … }`), make it optional, or write "
                    + "\(fileHint12) with a policy for Item",
            ])
    }

    @Test func twoEntitiesClaimingOneOldEntityAreRefused() throws {
        let texts = try Models.refusalTexts([
            "entities:\n  Item:\n    attributes: { name: string }\n",
            """
            entities:\n  Book:\n    renamedFrom: Item\n    attributes: { name: string }\n  Film:\n    renamedFrom: \
            Item\n    attributes: { name: string }\n
            """,
        ])
        #expect(
            texts == [
                "Book: ambiguous rename: entities Book and Film both claim the old entity 'Item'\n"
                    + "    remedy: \(Self.itemRemedy)"
            ])
    }

    @Test func hopAndCompose() throws {
        let model = try Models.compile(
            Self.chain(
                [("a", nil), ("b", "a"), ("c", "b")],
                entity: [("Item", nil), ("Product", "Item"), ("Article", "Product")]))
        let first = Renames.hop(from: model.versions[0], to: model.versions[1])
        let second = Renames.hop(from: model.versions[1], to: model.versions[2])
        #expect(first.entities == ["Product": "Item"])
        #expect(first.properties == ["Product": ["b": "a"]])
        let both = Renames.compose(first, second)
        #expect(both.entities == ["Article": "Item"])
        #expect(both.properties == ["Article": ["c": "a"]])
        #expect(both.refusals == [])
    }
}
