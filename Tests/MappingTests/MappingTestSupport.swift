import DataModel
import Foundation
import TestSupport
import Testing

@testable import Mapping

/// Models written inline for the mapping suites: each test states its versions as
/// YAML, compiled through the real loader from a temporary folder.
enum Models {
    /// The model name used by every inline model.
    static let name = "Shop"

    /// Compiles versions 1, 2, … of model `Shop`; each text is a version file without
    /// its `model:`/`version:` lines (those are added).
    static func compile(_ versions: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> CompiledModel
    {
        let folder = try TemporaryDirectory(prefix: "mapping-tests")
        defer { folder.remove() }
        for (offset, text) in versions.enumerated() {
            try folder.write("\(name)/\(offset + 1).yaml", "model: \(name)\nversion: \(offset + 1)\n" + text)
        }
        let result = ModelLoader.load(path: folder.file(name))
        #expect(result.diagnostics.filter { $0.severity == .error } == [], sourceLocation: sourceLocation)
        return try #require(try result.compiledModels().first, sourceLocation: sourceLocation)
    }

    /// The inferred mapping from version `from` to `to` (default: 1 to the last).
    static func infer(
        _ versions: [String], from: Int = 1, to: Int? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> MappingModel {
        let model = try compile(versions, sourceLocation: sourceLocation)
        do {
            return try MappingInference.infer(model, from: from, to: to ?? versions.count)
        } catch {
            Issue.record("unexpected refusal: \(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The failure inference reports from version `from` to `to` (default: 1 to the last).
    static func failure(
        _ versions: [String], from: Int = 1, to: Int? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> InferenceFailure {
        let model = try compile(versions, sourceLocation: sourceLocation)
        let mapping: MappingModel
        do {
            mapping = try MappingInference.infer(model, from: from, to: to ?? versions.count)
        } catch {
            return error
        }
        Issue.record("expected a refusal, inferred \(mapping)", sourceLocation: sourceLocation)
        throw Unexpected()
    }

    /// The refusals of a pair inference must refuse.
    static func refusals(
        _ versions: [String], from: Int = 1, to: Int? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [Refusal] {
        try failure(versions, from: from, to: to, sourceLocation: sourceLocation).refusals
    }

    /// Refusal descriptions, one string each, for exact-text checks.
    static func refusalTexts(
        _ versions: [String], from: Int = 1, to: Int? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [String] {
        try refusals(versions, from: from, to: to, sourceLocation: sourceLocation).map(\.description)
    }

    struct Unexpected: Error {}
}

/// Short constructors for expected values.
func copy(_ name: String, from: String? = nil, relationship: Bool = false) -> PropertyMapping {
    PropertyMapping(name: name, source: .copy(from: from ?? name), isRelationship: relationship)
}

func convert(_ name: String, from: String? = nil, _ conversion: Conversion, relationship: Bool = false)
    -> PropertyMapping
{
    PropertyMapping(
        name: name, source: .convert(from: from ?? name, conversion: conversion), isRelationship: relationship)
}

func added(_ name: String, default value: AttributeValue? = nil, relationship: Bool = false) -> PropertyMapping {
    PropertyMapping(name: name, source: .defaultValue(value), isRelationship: relationship)
}

func byPolicy(_ name: String, relationship: Bool = false) -> PropertyMapping {
    PropertyMapping(name: name, source: .policy, isRelationship: relationship)
}

/// The remedy clause every "write a mapping file" refusal of hop 1 → 2 of `Shop` names.
let fileHint12 = "Migrations/Shop/1-to-2.yaml"
