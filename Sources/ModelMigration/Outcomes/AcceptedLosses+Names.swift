package import DataModel

extension AcceptedLosses {
    /// Every accepted name that names nothing in `model`, so that a misspelt name is an
    /// error rather than a gate that silently accepts nothing.
    ///
    /// An `--accept` name must name an entity of some version of the model (and a
    /// property that entity has in some version); a hop's name, an entity and property
    /// of one of the hop's versions (a loss is of the hop's source, a rename's new name
    /// is in its destination). A hop whose versions the model lacks is named too.
    /// `--accept` names come without a location; the file's with their line.
    package func unknownNames(in model: CompiledModel) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for name in everywhere.sorted() {
            if let (why, hint) = Self.problem(with: name, in: model.versions, model: model.name) {
                problems.append(Diagnostic(.error, "--accept \(name): \(why)", at: nil, hint: hint))
            }
        }
        let known = Set(model.versions.map(\.version))
        for hop in perHop {
            let hopName = "\(hop.from)-to-\(hop.to)"
            let missing = [hop.from, hop.to].filter { !known.contains($0) }
            if !missing.isEmpty {
                let location = hop.location
                problems.append(
                    Diagnostic(
                        .error,
                        """
                        accepted losses: \(hopName): \(model.name) has no version \
                        \(missing.map(String.init).joined(separator: " or "))
                        """,
                        at: location ?? file.map { SourceLocation(file: $0, line: 1, column: 1) }))
                continue
            }
            let versions = model.versions.filter { (hop.from...hop.to).contains($0.version) }
            // One hop, so that a store at any version of the span is gated alike.
            if versions.count > 2 {
                let between = versions.dropFirst().dropLast().map { String($0.version) }.joined(separator: ", ")
                let hops = zip(versions, versions.dropFirst()).map { "\($0.version)-to-\($1.version)" }.joined(
                    separator: ", ")
                let location = hop.location
                problems.append(
                    Diagnostic(
                        .error, "accepted losses: \(hopName): not one hop (version \(between) lies between)",
                        at: location ?? file.map { SourceLocation(file: $0, line: 1, column: 1) },
                        hint: "accept each hop's losses under its own key (\(hops))"))
                continue
            }
            for name in hop.names.sorted() {
                guard let (why, hint) = Self.problem(with: name, in: versions, model: model.name) else { continue }
                let location = hop.locations[name] ?? file.map { SourceLocation(file: $0, line: 1, column: 1) }
                problems.append(
                    Diagnostic(.error, "accepted losses: \(hopName): \(name): \(why)", at: location, hint: hint))
            }
        }
        return problems
    }

    /// Why `name` names nothing in `versions`, with a did-you-mean hint; nil when it
    /// names an entity (and property) of one of them.
    private static func problem(with name: String, in versions: [CompiledVersion], model: String) -> (String, String?)?
    {
        let parts = name.split(separator: ".").map(String.init)
        let entities = versions.flatMap(\.entities)
        let numbers = versions.map(\.version)
        let span = numbers.count == 1 ? "version \(numbers[0])" : "versions \(numbers.min() ?? 0)–\(numbers.max() ?? 0)"
        let matching = entities.filter { $0.name == parts[0] }
        guard !matching.isEmpty else {
            return (
                "\(model) has no entity \(parts[0]) in \(span)",
                Suggestions.hint(for: parts[0], in: Set(entities.map(\.name)).sorted())
            )
        }
        guard parts.count == 2 else { return nil }
        let properties = Set(matching.flatMap { $0.attributes.map(\.name) + $0.relationships.map(\.name) })
        guard !properties.contains(parts[1]) else { return nil }
        return (
            "\(parts[0]) has no attribute or relationship \(parts[1]) in \(span)",
            Suggestions.hint(for: parts[1], in: properties.sorted())
        )
    }
}
