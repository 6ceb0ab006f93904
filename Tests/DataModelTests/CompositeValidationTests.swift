import Testing

@testable import DataModel

/// What the format and the validator say of composite attributes (Xcode 15): an
/// attribute names a declared composite, a composite does not contain itself, the
/// short form cannot say which composite.
@Suite struct CompositeValidationTests {
    static func text(_ composites: String, _ attribute: String) -> String {
        """
        model: M
        version: 1
        composites:
        \(composites)
        entities:
          Place:
            attributes:
              \(attribute)
        """
    }

    @Test func anUnknownCompositeIsNamedWithAHint() throws {
        let diagnostics = try ModelText.validate(
            Self.text(
                "  Location: { attributes: { latitude: double? } }",
                "location: { type: composite, composite: Locaton }"))
        #expect(
            diagnostics == [
                Diagnostic(
                    .error, "attribute 'Place.location': unknown composite 'Locaton'", at: ModelText.at(8, 7),
                    hint: "did you mean 'Location'?")
            ])
    }

    @Test func aCompositeContainingItselfIsRefused() throws {
        let composites = """
              A: { attributes: { b: { type: composite, composite: B } } }
              B: { attributes: { a: { type: composite, composite: A } } }
            """
        let diagnostics = try ModelText.validate(Self.text(composites, "a: { type: composite, composite: A }"))
        #expect(diagnostics.map(\.description) == ["test.yaml:4:3: error: composite 'A': contains itself (A → B → A)"])
    }

    @Test func theShortFormAndOtherTypesCannotNameAComposite() throws {
        let (_, diagnostics) = try ModelText.decode(
            Self.text(
                "  A: { attributes: { x: string? } }",
                "a: composite\n      b: { type: string, composite: A }"))
        #expect(
            diagnostics.map(\.message) == [
                "attribute 'Place.a': a composite attribute names its composite",
                "attribute 'Place.b': composite applies to composite attributes only, not string",
            ])
    }

    /// Nested composites are flattened; the composite's own name is not hashed, so two
    /// composite types with the same elements hash alike.
    @Test func nestedCompositesHashAsTheirLeaves() throws {
        let nested = try ModelText.compile(
            Self.text(
                """
                  Outer: { attributes: { inner: { type: composite, composite: Inner }, b: string? } }
                  Inner: { attributes: { a: string? } }
                """, "x: { type: composite, composite: Outer }"))
        let flat = try ModelText.compile(
            Self.text("  Flat: { attributes: { a: string?, b: string? } }", "x: { type: composite, composite: Flat }"))
        #expect(nested.versionHashes == flat.versionHashes)
        #expect(nested.layout.tables.first?.columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT"])
        #expect(nested.storageRefusal?.hasPrefix("version 1 of M has composite attributes (Place.x)") == true)
    }
}
