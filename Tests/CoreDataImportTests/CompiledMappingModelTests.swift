import DataModel
import Foundation
import PropertyList
import TestSupport
import Testing

@testable import CoreDataImport

/// A compiled mapping model (`.cdm`, an `NSKeyedArchiver` archive of `NSMappingModel`)
/// in the shape a real one has (CoreDataPlus's `V2toV3.cdm`): entity mappings with
/// their names, type, policy class, default source fetch, version hashes and property
/// mappings whose expressions are objects of the one archive. It converts to the same
/// mapping file as the `xcmapping.xml` it was compiled from.
@Suite struct CompiledMappingModelTests {
    /// Core Data's default source fetch for `entity`, narrowed by `predicate`.
    static func fetch(_ a: ExpressionArchive, _ entity: String, _ predicate: String) -> PropertyListValue {
        let request = a.function(
            "fetchRequestForSourceEntityNamed:predicateString:", on: a.variable("manager"),
            [a.constant(.string(entity)), a.constant(.string(predicate))])
        return a.object(
            "NSFetchRequestExpression",
            [
                "NSFRExpression": request, "NSMOCExpression": a.keyPath("sourceContext", on: a.variable("manager")),
                "NSCountOnlyFlag": .boolean(false), "NSExpressionType": .integer(50),
            ])
    }

    static func property(_ a: ExpressionArchive, _ name: String, _ value: PropertyListValue?) -> PropertyListValue {
        var fields: [String: PropertyListValue] = ["NSDestinationPropertyName": a.add(.string(name))]
        if let value { fields["NSValueExpression"] = value }
        return a.object("NSPropertyMapping", fields)
    }

    /// Customer → Client (policy, filter, an attribute without expression), Order → Order
    /// (a ternary, a relationship through `$manager`), an Add mapping for Tag.
    static func archive(hash: [UInt8]) -> [UInt8] {
        let a = ExpressionArchive()
        let note = a.ternary(
            a.comparison(a.source("total"), 2, a.constant(.integer(10))), a.constant("big"), a.source("note"))
        let client = a.object(
            "NSEntityMapping",
            [
                "NSMappingName": a.add(.string("CustomerToClient")), "NSSourceEntityName": a.add(.string("Customer")),
                "NSDestinationEntityName": a.add(.string("Client")), "NSMappingType": .integer(5),
                "NSEntityMigrationPolicyClassName": a.add(.string("Shop.CustomerPolicy")),
                "NSSourceEntityVersionHash": a.add(.data(hash)),
                "NSSourceExpression": fetch(a, "Customer", "visits > 0"),
                "NSAttributeMappings": a.array([
                    property(a, "name", a.source("name")), property(a, "email", a.source("mail")),
                    property(a, "city", nil),
                ]),
                "NSRelationshipMappings": a.array([
                    property(
                        a, "purchases",
                        a.function(
                            "destinationInstancesForEntityMappingNamed:sourceInstances:", on: a.variable("manager"),
                            [a.constant("OrderToOrder"), a.source("orders")]))
                ]),
            ])
        let order = a.object(
            "NSEntityMapping",
            [
                "NSMappingName": a.add(.string("OrderToOrder")), "NSSourceEntityName": a.add(.string("Order")),
                "NSDestinationEntityName": a.add(.string("Order")), "NSMappingType": .integer(4),
                "NSSourceExpression": fetch(a, "Order", "TRUEPREDICATE"),
                "NSAttributeMappings": a.array([property(a, "total", a.source("total")), property(a, "note", note)]),
                "NSRelationshipMappings": a.array([
                    property(
                        a, "client",
                        a.function(
                            "destinationInstancesForEntityMappingNamed:sourceInstances:", on: a.variable("manager"),
                            [a.constant("CustomerToClient"), a.source("customer")])), property(a, "siblings", nil),
                ]),
            ])
        let tag = a.object(
            "NSEntityMapping",
            [
                "NSMappingName": a.add(.string("Tag")), "NSDestinationEntityName": a.add(.string("Tag")),
                "NSMappingType": .integer(2),
            ])
        return a.bytes(a.object("NSMappingModel", ["NSEntityMappings": a.array([client, order, tag])]))
    }

    @Test func aCompiledMappingModelReadsAsItsSource() throws {
        let folder = try TemporaryDirectory(prefix: "compiled-mapping")
        defer { folder.remove() }
        let converter = try MappingModelConverterTests.converter(in: folder)
        let hash = [UInt8](repeating: 7, count: 32)
        let model = try XcodeMappingModel.parseCompiled(
            Self.archive(hash: hash), cdm: "M/ShopToShop2.cdm", path: "M/ShopToShop2.cdm")
        #expect(model.entityMappings.map(\.effectiveName) == ["CustomerToClient", "OrderToOrder", "Tag"])
        #expect(model.entityMappings.map(\.mappingType) == ["Transform", "Copy", "Add"])
        #expect(model.entityMappings.map(\.filterPredicate) == ["visits > 0", nil, nil])
        #expect(model.entityMappings.map(\.policyClass) == ["Shop.CustomerPolicy", nil, nil])
        // An attribute mapping without an expression is left out (the attribute keeps its default).
        #expect(model.entityMappings[0].attributes.map(\.name) == ["name", "email"])
        #expect(
            model.entityMappings[1].relationships.map { [$0.name, $0.valueExpression == nil ? "none" : "expression"] }
                == [["client", "expression"], ["siblings", "none"]])
        #expect(model.recordedHashes?.source == ["Customer": hash])
        let result = converter.convert([model])
        let mapping = try #require(result.mappings.first)
        #expect(mapping.pairedBy == "its name (no model paths recorded)")
        #expect(
            mapping.yaml.components(separatedBy: "entities:\n").last == """
                  Client:
                    # mapping type Transform
                    source: Customer
                    policy: CustomerPolicy
                    filter: "visits > 0"
                    properties:
                      email: $source.mail
                      purchases: $source.orders
                      city: policy   # nothing in the mapping model sets it: the policy's code or the default
                      score: policy   # nothing in the mapping model sets it: the policy's code or the default
                      status: policy   # nothing in the mapping model sets it: the policy's code or the default
                      tier: policy   # nothing in the mapping model sets it: the policy's code or the default
                  Order:
                    # mapping type Copy
                    properties:
                      note: { value: "TERNARY($source.total > 10, 'big', $source.note)" }
                      client: $source.customer
                  # Tag: Tag, every property as inferred; mapping type Add; Core Data names this entity mapping Tag
                  Note:
                    # ShopToShop2.cdm has no entity mapping for Note: Core Data migrates none of its objects
                    filter: "FALSEPREDICATE"

                """, "\(mapping.yaml)")
        // The ternary runs (the type checker accepts it); only the policy's code is not carried.
        #expect(
            mapping.notCarried == [
                "ShopToShop2.cdm: entity mapping CustomerToClient: policy class Shop.CustomerPolicy is code "
                    + "(Objective-C or Swift); written as policy CustomerPolicy with a skeleton to port it into"
            ])
    }

    @Test func whatIsNotACompiledMappingModelIsNamed() {
        #expect {
            try XcodeMappingModel.parseCompiled([1, 2, 3], cdm: "M/X.cdm", path: "M/X.cdm")
        } throws: { error in
            (error as? ImportError)?.problems == [
                "M/X.cdm: not an NSKeyedArchiver archive (a compiled mapping model is one)"
            ]
        }
        let a = ExpressionArchive()
        let bytes = a.bytes(a.constant("x"))
        #expect {
            try XcodeMappingModel.parseCompiled(bytes, cdm: "M/X.cdm", path: "M/X.cdm")
        } throws: { error in
            (error as? ImportError)?.problems == [
                "M/X.cdm: the archive's root is NSConstantValueExpression, not an NSMappingModel"
            ]
        }
    }
}
