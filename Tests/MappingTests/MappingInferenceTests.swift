import DataModel
import Testing

@testable import Mapping

/// `MappingInference`: every rule of lightweight inference, each with a case it
/// accepts (asserting the exact mapping) and a case it refuses (asserting the exact
/// refusal text).
@Suite struct MappingInferenceTests {
    // MARK: - Attributes added and removed

    @Test func unchangedEntityIsCopied() throws {
        let version = """
            entities:
              Item:
                attributes: { name: string, price: decimal }
            """
        let mapping = try Models.infer([version, version])
        #expect(
            mapping
                == MappingModel(
                    model: "Shop", sourceVersion: 1, destinationVersion: 2,
                    entityMappings: [
                        EntityMapping(
                            name: "ItemToItem", kind: .copy, source: "Item", destination: "Item",
                            properties: [copy("name"), copy("price")])
                    ]))
        #expect(mapping.mappingFile == nil)
        #expect(!mapping.usesPolicies)
    }

    @Test func optionalAttributeAndRequiredAttributeWithDefaultAdded() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string }
            """,
            """
            entities:
              Item:
                attributes:
                  name: string
                  note: string?
                  count: { type: integer32, default: 7 }
                  label: { type: string, default: "" }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [
                        added("count", default: .integer(7)), added("label", default: .string("")), copy("name"),
                        added("note"),
                    ])
            ])
    }

    @Test func attributeRemovedIsDropped() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string, note: string?, legacyCode: integer32 }
            """,
            """
            entities:
              Item:
                attributes: { name: string }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [copy("name")], droppedProperties: ["legacyCode", "note"])
            ])
    }

    @Test func transientAttributesAreNeitherMappedNorDropped() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string, scratch: { type: string, transient: true, optional: true } }
            """,
            """
            entities:
              Item:
                attributes: { name: string, section: { type: string, transient: true } }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .copy, source: "Item", destination: "Item", properties: [copy("name")])
            ])
    }

    @Test func requiredAttributeWithoutDefaultAddedIsRefused() throws {
        let texts = try Models.refusalTexts([
            """
            entities:
              Item:
                attributes: { name: string }
            """,
            """
            entities:
              Item:
                attributes: { name: string, sku: string }
            """,
        ])
        #expect(
            texts == [
                "Item.sku: new required attribute without a default or source\n"
                    + "    remedy: add a default (`sku: { type: string, default: … }`), make it optional, or write "
                    + "\(fileHint12) with a policy for Item"
            ])
    }

    @Test func refusedPropertiesAreLeftToAPolicy() throws {
        let model = try Models.compile([
            """
            entities:
              Item:
                attributes: { name: string, count: integer64, note: string? }
            """,
            """
            entities:
              Item:
                attributes: { name: string, count: integer16, note: string, sku: string }
            """,
        ])
        let (mapping, refusals) = MappingInference.inferWithRefusals(from: model.versions[0], to: model.versions[1])
        #expect(refusals.map(\.property) == ["count", "sku"])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [byPolicy("count"), copy("name"), copy("note"), byPolicy("sku")])
            ])
    }

    // MARK: - Optionality

    @Test func requiredToOptionalIsCopied() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string }
            """,
            """
            entities:
              Item:
                attributes: { name: string? }
            """,
        ])
        // Optionality is hashed, so the entity changes although the value is copied as is.
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [copy("name")])
            ])
    }

    @Test func optionalToRequiredWithDefaultFillsTheDefault() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string, note: string? }
            """,
            """
            entities:
              Item:
                attributes: { name: string, note: { type: string, default: unknown } }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [copy("name"), convert("note", .fillDefault)],
                    layoutChanges: ["note: default none → \"unknown\""])
            ])
    }

    /// As in Core Data, the mapping exists; the stored data decides (the planner
    /// counts the nils), so the mapping carries the requirement.
    @Test func optionalToRequiredWithoutDefaultIsDecidedByTheData() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string, note: string? }
            """,
            """
            entities:
              Item:
                attributes: { name: string, note: string }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [copy("name"), copy("note")])
            ])
        #expect(
            mapping.requirements == [
                DataRequirement(
                    kind: .noNil, entity: "Item", property: "note", sourceEntity: "Item", sourceProperty: "note")
            ])
        #expect(
            mapping.requirements?.map(\.description) == [
                "Item.note: optional → required without a default: migrates when no stored Item.note is nil"
            ])
    }

    // MARK: - Entities added and removed

    @Test func entityAdded() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string }
            """,
            """
            entities:
              Item:
                attributes: { name: string }
              Tag:
                attributes: { label: string, weight: { type: integer16, default: 1 } }
            """,
        ])
        // Required attributes of a new entity need no default: it has no rows yet.
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .copy, source: "Item", destination: "Item", properties: [copy("name")]),
                EntityMapping(
                    name: "NothingToTag", kind: .add, source: nil, destination: "Tag",
                    properties: [added("label"), added("weight", default: .integer(1))]),
            ])
    }

    /// As in Core Data, the inferred mapping exists and the data decides: existing
    /// Items would have no owner, so a store holding some is refused when planned
    /// (exit 4); an empty one migrates.
    @Test func requiredToOneRelationshipToANewEntityIsDecidedByTheData() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string }
            """,
            """
            entities:
              Item:
                attributes: { name: string }
                relationships:
                  owner: { destination: Owner, inverse: items, optional: false }
              Owner:
                attributes: { name: string }
                relationships:
                  items: { destination: Item, toMany: true, inverse: owner }
            """,
        ])
        #expect(
            mapping.requirements == [
                DataRequirement(
                    kind: .noObjects, entity: "Item", property: "owner", sourceEntity: "Item", sourceProperty: "")
            ])
        #expect(mapping.mapping(forDestination: "Item")?.property("owner")?.source == .defaultValue(nil))
    }

    @Test func entityRemovedComesLastWithItsDroppedProperties() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string }
                relationships:
                  tags: { destination: Tag, toMany: true, inverse: items }
              Tag:
                attributes: { label: string, weight: integer16? }
                relationships:
                  items: { destination: Item, toMany: true, inverse: tags }
              Zone:
                attributes: { code: string }
            """,
            """
            entities:
              Item:
                attributes: { name: string }
              Zone:
                attributes: { code: string }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [copy("name")], droppedProperties: ["tags"]),
                EntityMapping(
                    name: "ZoneToZone", kind: .copy, source: "Zone", destination: "Zone", properties: [copy("code")]),
                EntityMapping(
                    name: "TagToNothing", kind: .remove, source: "Tag", destination: nil,
                    droppedProperties: ["items", "label", "weight"]),
            ])
    }

    @Test func relationshipRetargetedFromARemovedEntityIsRefused() throws {
        let texts = try Models.refusalTexts([
            """
            entities:
              Item:
                attributes: { name: string }
                relationships:
                  tag: { destination: Tag }
              Tag:
                attributes: { label: string }
            """,
            """
            entities:
              Item:
                attributes: { name: string }
                relationships:
                  tag: { destination: Label }
              Label:
                attributes: { text: string }
            """,
        ])
        #expect(
            texts == [
                "Item.tag: destination changed from Tag to Label, an unrelated entity\n"
                    + "    remedy: write \(fileHint12) with a policy for Item that sets the new relationship, or add a "
                    + "new relationship and remove the old one"
            ])
    }

    // MARK: - Relationships

    static let orderV1 = """
        entities:
          Order:
            attributes: { number: integer64 }
            relationships:
              lines: { destination: Line, toMany: true, inverse: order, deleteRule: cascade }
          Line:
            attributes: { quantity: integer32 }
            relationships:
              order: { destination: Order, inverse: lines }
        """

    @Test func relationshipAdded() throws {
        let mapping = try Models.infer([
            Self.orderV1,
            """
            entities:
              Order:
                attributes: { number: integer64 }
                relationships:
                  lines: { destination: Line, toMany: true, inverse: order, deleteRule: cascade }
                  notes: { destination: Note, toMany: true, inverse: order }
              Line:
                attributes: { quantity: integer32 }
                relationships:
                  order: { destination: Order, inverse: lines }
              Note:
                attributes: { text: string }
                relationships:
                  order: { destination: Order, inverse: notes, optional: false }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "LineToLine", kind: .copy, source: "Line", destination: "Line",
                    properties: [copy("order", relationship: true), copy("quantity")]),
                EntityMapping(
                    name: "NothingToNote", kind: .add, source: nil, destination: "Note",
                    properties: [added("order", relationship: true), added("text")]),
                EntityMapping(
                    name: "OrderToOrder", kind: .transform, source: "Order", destination: "Order",
                    properties: [
                        copy("lines", relationship: true), added("notes", relationship: true),
                        copy(
                            """
                            number
                            """),
                    ]),
            ])
    }

    @Test func relationshipRemoved() throws {
        let mapping = try Models.infer([
            Self.orderV1,
            """
            entities:
              Order:
                attributes: { number: integer64 }
              Line:
                attributes: { quantity: integer32 }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "LineToLine", kind: .transform, source: "Line", destination: "Line",
                    properties: [copy("quantity")], droppedProperties: ["order"]),
                EntityMapping(
                    name: "OrderToOrder", kind: .transform, source: "Order", destination: "Order",
                    properties: [copy("number")], droppedProperties: ["lines"]),
            ])
    }

    @Test func toOneBecomesToManyAndBack() throws {
        let many = """
            entities:
              Order:
                attributes: { number: integer64 }
                relationships:
                  lines: { destination: Line, toMany: true, inverse: order, deleteRule: cascade }
              Line:
                attributes: { quantity: integer32 }
                relationships:
                  order: { destination: Order, toMany: true, inverse: lines }
            """
        let forward = try Models.infer([Self.orderV1, many])
        #expect(
            forward.entityMappings == [
                EntityMapping(
                    name: "LineToLine", kind: .transform, source: "Line", destination: "Line",
                    properties: [convert("order", .reshape, relationship: true), copy("quantity")]),
                // One-to-many became many-to-many: the storage moves to a join table.
                EntityMapping(
                    name: "OrderToOrder", kind: .transform, source: "Order", destination: "Order",
                    properties: [convert("lines", .reshape, relationship: true), copy("number")]),
            ])
        let backward = try Models.infer([many, Self.orderV1])
        #expect(backward.entityMappings == forward.entityMappings)
    }

    @Test func unorderedBecomesOrderedAndBack() throws {
        let ordered = """
            entities:
              Order:
                attributes: { number: integer64 }
                relationships:
                  lines: { destination: Line, toMany: true, ordered: true, inverse: order, deleteRule: cascade }
              Line:
                attributes: { quantity: integer32 }
                relationships:
                  order: { destination: Order, inverse: lines }
            """
        let forward = try Models.infer([Self.orderV1, ordered])
        #expect(
            forward.entityMappings == [
                EntityMapping(
                    name: "LineToLine", kind: .copy, source: "Line", destination: "Line",
                    properties: [copy("order", relationship: true), copy("quantity")]),
                EntityMapping(
                    name: "OrderToOrder", kind: .transform, source: "Order", destination: "Order",
                    properties: [convert("lines", .reorder, relationship: true), copy("number")]),
            ])
        let backward = try Models.infer([ordered, Self.orderV1])
        #expect(backward.entityMappings == forward.entityMappings)
    }

    @Test func oneToManyBecomesManyToMany() throws {
        // Tag.items stays to-many on its side; only its inverse changes shape, and
        // that still moves both sides from a foreign key column to a join table.
        let v1 = """
            entities:
              Item:
                attributes: { name: string }
                relationships:
                  tag: { destination: Tag, inverse: items }
              Tag:
                attributes: { label: string }
                relationships:
                  items: { destination: Item, toMany: true, inverse: tag }
            """
        let v2 = """
            entities:
              Item:
                attributes: { name: string }
                relationships:
                  tag: { destination: Tag, toMany: true, inverse: items }
              Tag:
                attributes: { label: string }
                relationships:
                  items: { destination: Item, toMany: true, inverse: tag }
            """
        let mapping = try Models.infer([v1, v2])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [copy("name"), convert("tag", .reshape, relationship: true)]),
                EntityMapping(
                    name: "TagToTag", kind: .transform, source: "Tag", destination: "Tag",
                    properties: [convert("items", .reshape, relationship: true), copy("label")]),
            ])
        let back = try Models.infer([v2, v1])
        #expect(back.entityMappings == mapping.entityMappings)
    }

    @Test func newRequiredToOneRelationshipIsDecidedByTheDataAndNewToManyIsNot() throws {
        let mapping = try Models.infer([
            Self.orderV1,
            """
            entities:
              Order:
                attributes: { number: integer64 }
                relationships:
                  lines: { destination: Line, toMany: true, inverse: order, deleteRule: cascade }
                  customer: { destination: Customer, inverse: orders, optional: false }
              Line:
                attributes: { quantity: integer32 }
                relationships:
                  order: { destination: Order, inverse: lines }
                  extras: { destination: Line, toMany: true, optional: false }
              Customer:
                attributes: { name: string }
                relationships:
                  orders: { destination: Order, toMany: true, inverse: customer }
            """,
        ])
        #expect(
            mapping.requirements == [
                DataRequirement(
                    kind: .noObjects, entity: "Order", property: "customer", sourceEntity: "Order", sourceProperty: "")
            ])
    }

    static let catalogV1 = """
        entities:
          Person:
            attributes: { name: string }
            relationships:
              favorite: { destination: Product }
          Product:
            attributes: { name: string }
          Book:
            parent: Product
            attributes: { isbn: string? }
          Film:
            parent: Product
            attributes: { minutes: integer32? }
          Place:
            attributes: { name: string }
        """

    @Test func destinationNarrowedToASubentityOfTheOldDestination() throws {
        let mapping = try Models.infer([
            Self.catalogV1,
            Self.catalogV1.replacingOccurrences(
                of: "favorite: { destination: Product }", with: "favorite: { destination: Book }"),
        ])
        #expect(
            mapping.mapping(forDestination: "Person")
                == EntityMapping(
                    name: "PersonToPerson", kind: .transform, source: "Person", destination: "Person",
                    properties: [copy("favorite", relationship: true), copy("name")]))
    }

    @Test func destinationChangedToAnUnrelatedEntityIsRefused() throws {
        let texts = try Models.refusalTexts([
            Self.catalogV1,
            Self.catalogV1.replacingOccurrences(
                of: "favorite: { destination: Product }", with: "favorite: { destination: Place }"),
        ])
        #expect(
            texts == [
                "Person.favorite: destination changed from Product to Place, an unrelated entity\n"
                    + "    remedy: write \(fileHint12) with a policy for Person that sets the new relationship, or add "
                    + "a new relationship and remove "
                    + "the old one"
            ])
    }

    @Test func destinationChangedToASiblingSubentityIsRefused() throws {
        // Rows that pointed at a Book cannot point at a Film.
        let v1 = Self.catalogV1.replacingOccurrences(
            of: "favorite: { destination: Product }", with: "favorite: { destination: Book }")
        let v2 = Self.catalogV1.replacingOccurrences(
            of: "favorite: { destination: Product }", with: "favorite: { destination: Film }")
        let texts = try Models.refusalTexts([v1, v2])
        #expect(
            texts == [
                "Person.favorite: destination changed from Book to Film, an unrelated entity\n"
                    + "    remedy: write \(fileHint12) with a policy for Person that sets the new relationship, or add "
                    + "a new relationship and remove "
                    + "the old one"
            ])
    }

    @Test func destinationFollowsARenamedEntity() throws {
        let v2 = Self.catalogV1
            .replacingOccurrences(of: "favorite: { destination: Product }", with: "favorite: { destination: Article }")
            .replacingOccurrences(of: "  Product:\n", with: "  Article:\n    renamedFrom: Product\n")
            .replacingOccurrences(of: "parent: Product", with: "parent: Article")
        let mapping = try Models.infer([Self.catalogV1, v2])
        #expect(
            mapping.mapping(forDestination: "Person")?.properties == [
                copy("favorite", relationship: true), copy("name"),
            ])
        #expect(mapping.mapping(forDestination: "Article")?.source == "Product")
        #expect(
            mapping.entityMappings.map(\.name) == [
                "ProductToArticle", "BookToBook", "FilmToFilm", "PersonToPerson", "PlaceToPlace",
            ])
    }

    // MARK: - Inheritance

    @Test func newParentAboveAnExistingEntity() throws {
        let mapping = try Models.infer([
            """
            entities:
              Car:
                attributes: { plate: string }
            """,
            """
            entities:
              Vehicle:
                abstract: true
                attributes: { registeredAt: date? }
              Car:
                parent: Vehicle
                attributes: { plate: string }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "CarToCar", kind: .transform, source: "Car", destination: "Car",
                    properties: [copy("plate"), added("registeredAt")]),
                EntityMapping(
                    name: "NothingToVehicle", kind: .add, source: nil, destination: "Vehicle",
                    properties: [added("registeredAt")]),
            ])
    }

    @Test func newParentAboveTwoExistingEntitiesMergesHierarchiesAndIsRefused() throws {
        let texts = try Models.refusalTexts([
            """
            entities:
              Car:
                attributes: { plate: string }
              Boat:
                attributes: { hull: string }
            """,
            """
            entities:
              Vehicle:
                abstract: true
              Car:
                parent: Vehicle
                attributes: { plate: string }
              Boat:
                parent: Vehicle
                attributes: { hull: string }
            """,
        ])
        #expect(
            texts == [
                "Vehicle: merges the hierarchies of Boat and Car into one (their rows would share table ZVEHICLE)\n"
                    + "    remedy: keep them in separate hierarchies, or write \(fileHint12) with a policy that copies "
                    + "one into the other"
            ])
    }

    @Test func newChildEntity() throws {
        let mapping = try Models.infer([
            """
            entities:
              Vehicle:
                attributes: { name: string }
            """,
            """
            entities:
              Vehicle:
                attributes: { name: string }
              Truck:
                parent: Vehicle
                attributes: { payload: { type: double, default: 0 } }
            """,
        ])
        // A subentity does not change its parent's hash: the parent's rows are copied.
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "NothingToTruck", kind: .add, source: nil, destination: "Truck",
                    properties: [added("name"), added("payload", default: .double(0))]),
                EntityMapping(
                    name: "VehicleToVehicle", kind: .copy, source: "Vehicle", destination: "Vehicle",
                    properties: [copy("name")]),
            ])
    }

    static let hierarchyV1 = """
        entities:
          Vehicle:
            abstract: true
            attributes: { name: string }
          Car:
            parent: Vehicle
            attributes: { plate: string, seats: integer16? }
          Truck:
            parent: Vehicle
            attributes: { plate: string, payload: double? }
        """

    @Test func propertyMovesUpFromChildrenIntoTheParent() throws {
        let mapping = try Models.infer([
            Self.hierarchyV1,
            """
            entities:
              Vehicle:
                abstract: true
                attributes: { name: string, plate: string }
              Car:
                parent: Vehicle
                attributes: { seats: integer16? }
              Truck:
                parent: Vehicle
                attributes: { payload: double? }
            """,
        ])
        // The abstract parent has no rows of its own, so its new required attribute
        // needs no default; the children keep their values.
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "CarToCar", kind: .transform, source: "Car", destination: "Car",
                    properties: [copy("name"), copy("plate"), copy("seats")]),
                EntityMapping(
                    name: "TruckToTruck", kind: .transform, source: "Truck", destination: "Truck",
                    properties: [copy("name"), copy("payload"), copy("plate")]),
                EntityMapping(
                    name: "VehicleToVehicle", kind: .transform, source: "Vehicle", destination: "Vehicle",
                    properties: [copy("name"), added("plate")]),
            ])
    }

    @Test func requiredPropertyMovingUpIntoAConcreteParentIsRefused() throws {
        let concrete = Self.hierarchyV1.replacingOccurrences(of: "    abstract: true\n", with: "")
        let texts = try Models.refusalTexts([
            concrete,
            """
            entities:
              Vehicle:
                attributes: { name: string, plate: string }
              Car:
                parent: Vehicle
                attributes: { seats: integer16? }
              Truck:
                parent: Vehicle
                attributes: { payload: double? }
            """,
        ])
        #expect(
            texts == [
                "Vehicle.plate: new required attribute without a default or source\n"
                    + "    remedy: add a default (`plate: { type: string, default: … }`), make it optional, or write "
                    + "\(fileHint12) with a policy for Vehicle"
            ])
    }

    @Test func propertyMovesDownFromTheParentIntoChildren() throws {
        let mapping = try Models.infer([
            """
            entities:
              Vehicle:
                abstract: true
                attributes: { name: string, plate: string }
              Car:
                parent: Vehicle
              Truck:
                parent: Vehicle
            """,
            """
            entities:
              Vehicle:
                abstract: true
                attributes: { name: string }
              Car:
                parent: Vehicle
                attributes: { plate: string }
              Truck:
                parent: Vehicle
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "CarToCar", kind: .transform, source: "Car", destination: "Car",
                    properties: [copy("name"), copy("plate")]),
                EntityMapping(
                    name: "TruckToTruck", kind: .transform, source: "Truck", destination: "Truck",
                    properties: [copy("name")], droppedProperties: ["plate"]),
                EntityMapping(
                    name: "VehicleToVehicle", kind: .transform, source: "Vehicle", destination: "Vehicle",
                    properties: [copy("name")], droppedProperties: ["plate"]),
            ])
    }

    @Test func entityLeavesItsHierarchy() throws {
        let mapping = try Models.infer([
            Self.hierarchyV1,
            """
            entities:
              Vehicle:
                abstract: true
                attributes: { name: string }
              Car:
                parent: Vehicle
                attributes: { plate: string, seats: integer16? }
              Truck:
                attributes: { name: string, plate: string, payload: double? }
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "CarToCar", kind: .copy, source: "Car", destination: "Car",
                    properties: [copy("name"), copy("plate"), copy("seats")]),
                EntityMapping(
                    name: "TruckToTruck", kind: .transform, source: "Truck", destination: "Truck",
                    properties: [copy("name"), copy("payload"), copy("plate")]),
                EntityMapping(
                    name: "VehicleToVehicle", kind: .copy, source: "Vehicle", destination: "Vehicle",
                    properties: [copy("name")]),
            ])
    }

    @Test func mergingTwoHierarchiesIsRefused() throws {
        let texts = try Models.refusalTexts([
            """
            entities:
              Vehicle:
                attributes: { name: string }
              Boat:
                attributes: { name: string, hull: string? }
            """,
            """
            entities:
              Vehicle:
                attributes: { name: string }
              Boat:
                parent: Vehicle
                attributes: { hull: string? }
            """,
        ])
        #expect(
            texts == [
                "Vehicle: merges the hierarchies of Boat and Vehicle into one (their rows would share table ZVEHICLE)\n"
                    + "    remedy: keep them in separate hierarchies, or write \(fileHint12) with a policy that copies "
                    + "one into the other"
            ])
    }

    // MARK: - Numeric widening

    @Test func integersWidenStepByStepAndAcrossSteps() throws {
        let versions = ["integer16", "integer32", "integer64"].map { type in
            """
            entities:
              Item:
                attributes: { count: \(type) }
            """
        }
        for (from, to) in [(1, 2), (2, 3), (1, 3)] {
            let mapping = try Models.infer(versions, from: from, to: to)
            #expect(
                mapping.entityMappings == [
                    EntityMapping(
                        name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                        properties: [convert("count", .widen)])
                ], "\(from) → \(to)")
        }
    }

    @Test(arguments: [
        ("float", "double"), ("integer16", "double"), ("integer32", "double"), ("integer64", "decimal"),
        ("integer16", "decimal"),
    ])
    func floatingAndDecimalWidening(from: String, to: String) throws {
        let mapping = try Models.infer([
            "entities:\n  Item:\n    attributes: { value: \(from), name: string }\n",
            "entities:\n  Item:\n    attributes: { value: \(to), name: string }\n",
        ])
        #expect(mapping.entityMappings[0].properties == [copy("name"), convert("value", .widen)])
    }

    @Test(arguments: [
        ("integer64", "integer16", "narrowing"), ("double", "float", "narrowing"),
        ("decimal", "integer32", "narrowing"),
        ("string", "integer32", "unrelated"), ("decimal", "double", "unrelated"), ("date", "string", "unrelated"),
    ])
    func narrowingAndUnrelatedTypeChangesAreRefused(from: String, to: String, what: String) throws {
        let texts = try Models.refusalTexts([
            "entities:\n  Item:\n    attributes: { value: \(from) }\n",
            "entities:\n  Item:\n    attributes: { value: \(to) }\n",
        ])
        #expect(
            texts == [
                "Item.value: type change \(from) → \(to) is \(what), not a widening\n"
                    + "    remedy: write \(fileHint12) with a policy for Item, "
                        + """
                        or split the change across an intermediate version (add the new attribute, copy in a policy, \
                        remove the old one)
                        """
            ])
    }

    @Test func attributeBecomingARelationshipIsRefused() throws {
        let texts = try Models.refusalTexts([
            """
            entities:
              Item:
                attributes: { owner: string? }
              Owner:
                attributes: { name: string }
            """,
            """
            entities:
              Item:
                relationships:
                  owner: { destination: Owner }
              Owner:
                attributes: { name: string }
            """,
        ])
        #expect(
            texts == [
                "Item.owner: attribute 'Item.owner' became a relationship\n"
                    + "    remedy: write \(fileHint12) with a policy for Item, or split the change across an "
                    + "intermediate version"
            ])
    }

    // MARK: - Layout-only changes

    @Test func indexDefaultDeleteRuleAndLimitChangesAreLayoutChangesOfACopy() throws {
        let mapping = try Models.infer([
            Self.orderV1,
            """
            entities:
              Order:
                attributes:
                  number: { type: integer64, indexed: true, default: 1, min: 1 }
                relationships:
                  lines: { destination: Line, toMany: true, inverse: order, deleteRule: nullify }
                indexes: [[number]]
              Line:
                attributes: { quantity: integer32 }
                relationships:
                  order: { destination: Order, inverse: lines, deleteRule: deny }
            """,
        ])
        // Core Data hashes none of these: the rows stay as they are.
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "LineToLine", kind: .copy, source: "Line", destination: "Line",
                    properties: [copy("order", relationship: true), copy("quantity")],
                    layoutChanges: ["order: delete rule nullify → deny"]),
                EntityMapping(
                    name: "OrderToOrder", kind: .copy, source: "Order", destination: "Order",
                    properties: [copy("lines", relationship: true), copy("number")],
                    layoutChanges: [
                        "number: index added", "number: default none → 1", "number: limits changed",
                        "lines: delete rule cascade → nullify", "index byNumber added",
                    ]),
            ])
    }

    @Test func indexRemovedIsALayoutChange() throws {
        let indexed = """
            entities:
              Item:
                attributes: { name: { type: string, indexed: true }, code: string }
                indexes: [[code, name]]
            """
        let plain = """
            entities:
              Item:
                attributes: { name: string, code: string }
            """
        let mapping = try Models.infer([indexed, plain])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .copy, source: "Item", destination: "Item",
                    properties: [copy("code"), copy("name")],
                    layoutChanges: ["name: index removed", "index byCodeName removed"])
            ])
    }

    @Test func uniquenessChangeIsHashedSoTheEntityIsTransformed() throws {
        let mapping = try Models.infer([
            """
            entities:
              Item:
                attributes: { name: string, code: string }
            """,
            """
            entities:
              Item:
                attributes: { name: string, code: string }
                uniqueness: [[code]]
            """,
        ])
        #expect(
            mapping.entityMappings == [
                EntityMapping(
                    name: "ItemToItem", kind: .transform, source: "Item", destination: "Item",
                    properties: [copy("code"), copy("name")], layoutChanges: ["uniqueness constraints changed"])
            ])
    }

    // MARK: - Every refusal at once

    @Test func everyRefusalOfAPairIsReportedTogether() throws {
        let failure = try Models.failure([
            """
            entities:
              Item:
                attributes: { name: string, count: integer64 }
                relationships:
                  tag: { destination: Tag }
              Tag:
                attributes: { label: string }
              Zone:
                attributes: { code: string }
            """,
            """
            entities:
              Item:
                attributes: { name: string, count: integer16 }
                relationships:
                  tag: { destination: Zone }
              Tag:
                attributes: { label: string, color: string }
              Zone:
                attributes: { code: string }
            """,
        ])
        #expect(failure.refusals.map(\.kind) == [.typeChange, .destinationChanged, .requiredWithoutDefault])
        #expect(
            failure.description == """
                no lightweight mapping from Shop version 1 to 2 (3 changes inference cannot cover):
                  Item.count: type change integer64 → integer16 is narrowing, not a widening
                    remedy: write \(fileHint12) with a policy for Item, or split the change across an intermediate \
                version (add the new attribute, copy in a policy, remove the old one)
                  Item.tag: destination changed from Tag to Zone, an unrelated entity
                    remedy: write \(fileHint12) with a policy for Item that sets the new relationship, or add a new \
                relationship and remove the old one
                  Tag.color: new required attribute without a default or source
                    remedy: add a default (`color: { type: string, default: … }`), make it optional, or write \
                \(fileHint12) with a policy for Tag
                """)
        #expect((failure.model, failure.sourceVersion, failure.destinationVersion) == ("Shop", 1, 2))
    }

    @Test func unknownVersionIsReported() throws {
        let failure = try Models.failure(["entities:\n  Item:\n    attributes: { name: string }\n"], from: 1, to: 4)
        #expect(
            failure.description == """
                no lightweight mapping from Shop version 1 to 4 (1 change inference cannot cover):
                  Shop: model Shop has no version 4
                    remedy: use versions 1 to 1
                """)
    }
}
