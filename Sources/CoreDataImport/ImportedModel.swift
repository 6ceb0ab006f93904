package import DataModel

/// An Xcode model converted to the model format: one YAML text per version, in order.
package struct ImportedModel: Sendable {
    /// The model's name (`model:` in every file, the folder under `Models/`).
    package var name: String
    /// The versions, numbered 1… in import order; the last is Xcode's current version.
    package var versions: [ImportedVersion]
    /// Problems of the bundle as a whole (skipped compiled versions, ordering notes).
    package var notes: [String]
}

/// One imported version.
package struct ImportedVersion: Sendable {
    /// The version number (`<N>.yaml`).
    package var number: Int
    /// The `.xcdatamodel` folder it came from.
    package var source: String
    /// The `contents` file it came from.
    package var sourcePath: String
    /// True for the version `.xccurrentversion` names.
    package var isCurrent: Bool
    /// The YAML text of `<N>.yaml`.
    package var yaml: String
    /// What the Xcode version holds that the format has no place for, one line each.
    package var warnings: [String]
    /// For each line of `yaml` that states an element (1-based), where the element is
    /// written in the `contents` file: a diagnostic of the imported YAML points there.
    package var sourceLines: [Int: SourceLocation] = [:]
    /// The `contents` file's text (an Xcode 3 binary version: empty), for excerpts.
    package var sourceText = ""

    /// The YAML with `mappedFrom: [a, …]` after its `version:` line: the versions the
    /// app ships a mapping model from, to this one, so that a migration across such a
    /// step needs its mapping file and never infers it (Docs/Importing.md).
    package func yaml(mappedFrom versions: [Int]) -> String {
        guard !versions.isEmpty else { return yaml }
        var lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let at = lines.firstIndex(of: "version: \(number)") else { return yaml }
        lines.insert(
            "mappedFrom: [\(Array(Set(versions)).sorted().map(String.init).joined(separator: ", "))]", at: at + 1)
        return lines.joined(separator: "\n")
    }

    /// `location` in the YAML of this version, moved to the `contents` element that
    /// produced its line (the nearest stated line at or above it); nil if none.
    package func sourceLocation(ofYAMLLine line: Int) -> SourceLocation? {
        var candidate = line
        while candidate >= 1 {
            if let found = sourceLines[candidate] { return found }
            candidate -= 1
        }
        return nil
    }
}
