import Foundation
import Testing

@testable import DataModel

/// Runs model text through the pipeline in memory (no files), for the suites that
/// test one stage each.
enum ModelText {
    /// The file name used in every location of in-memory models.
    static let file = "test.yaml"

    /// A location in `file`.
    static func at(_ line: Int, _ column: Int) -> DataModel.SourceLocation {
        DataModel.SourceLocation(file: file, line: line, column: column)
    }

    /// Decodes one version file's text: the description (nil when the root is unusable)
    /// and the decoder's diagnostics.
    static func decode(_ text: String) throws -> (version: ModelVersionDescription?, diagnostics: [Diagnostic]) {
        let root = try YAMLLoader.load(bytes: Array(text.utf8), file: file)
        var decoder = ModelDecoder(file: file)
        let version = decoder.decode(root)
        return (version, decoder.reader.diagnostics)
    }

    /// Decodes text the test expects to be free of decoding problems.
    static func description(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> ModelVersionDescription
    {
        let (version, diagnostics) = try decode(text)
        #expect(diagnostics == [], sourceLocation: sourceLocation)
        return try #require(version, sourceLocation: sourceLocation)
    }

    /// The validator's diagnostics for text that decodes cleanly.
    static func validate(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> [Diagnostic]
    {
        ModelValidator.validate(try description(text, sourceLocation: sourceLocation))
    }

    /// Compiles text that decodes and validates without errors.
    static func compile(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> CompiledVersion
    {
        let version = try description(text, sourceLocation: sourceLocation)
        let errors = ModelValidator.validate(version).filter { $0.severity == .error }
        #expect(errors == [], sourceLocation: sourceLocation)
        return ModelCompiler.compile(version)
    }

    /// The folder holding the test fixtures.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        .path
}
