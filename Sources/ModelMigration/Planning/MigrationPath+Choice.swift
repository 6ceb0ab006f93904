package import DataModel
import Foundation
package import Mapping

extension MigrationPath {
    /// Chooses the path from `source` to version `target`, once, for the planner
    /// and for `import --report`: from the version reached so far, a mapping file
    /// from it (the one reaching furthest without passing the target, then the others
    /// when that one leads nowhere: every route the files give is searched); else the
    /// chain of hops up to where the next mapping file starts, when inference accepts
    /// every hop; else the direct inferred mapping to the target. `preference`
    /// overrides the rule (`--path chain|direct`).
    ///
    /// - Throws: `InferenceFailure` (exit 4) when no path is left, naming the hop or
    ///   the mapping refused and why the other paths were not taken;
    ///   `PlanningError(.noPath)` for an override that cannot be followed.
    package static func choose(
        model: CompiledModel, source: CompiledVersion, target: Int, files: MappingFiles,
        preference: Preference = .automatic, knownPolicies: Set<String>? = nil, isEmpty: ((String) -> Bool)? = nil
    ) throws -> MigrationPath {
        var chooser = PathChooser(
            model: model, source: source, target: target, files: files, knownPolicies: knownPolicies)
        chooser.isEmpty = isEmpty
        var path = MigrationPath(preference: preference, pieces: [], notTaken: [], differences: [])
        do {
            try chooser.choose(&path)
        } catch {
            // No route without a later hop the data must decide (a new required
            // attribute on an entity an earlier hop may have emptied): the route
            // with it, whose apply judges that hop on the store as it then is.
            // Without one either, the first refusal stands.
            guard isEmpty != nil else { throw error }
            chooser.relaxesLaterHops = true
            var relaxed = MigrationPath(preference: preference, pieces: [], notTaken: [], differences: [])
            guard (try? chooser.choose(&relaxed)) != nil else { throw error }
            path = relaxed
        }
        if target - source.version > 1 {
            let versions = [source] + model.versions.filter { $0.version > source.version && $0.version <= target }
            path.differences = MappingInference.pathDifferences(through: versions)
        }
        return path
    }
}

extension MigrationPath {
    /// Whether the store may hold no objects of an entity when a hop starting at
    /// version `from` runs, for the data-decided relaxation of a new required
    /// attribute (`MappingResolver.resolve`). At the store's own version, the store
    /// answers. Later, the earlier hops may have emptied it (a mapping file's
    /// `filter:`, an entity removed and added again), which only the apply can
    /// see: the relaxed hop then carries a requirement that the apply judges on the
    /// store as those hops left it (exit 4 when objects remain), as one version at
    /// a time would. It stays refused at plan only when the entity has kept its
    /// name through inferred hops from a store holding objects of it.
    package static func emptiness(
        _ isEmpty: @escaping (String) -> Bool, at from: Int, model: CompiledModel, source: CompiledVersion,
        files: MappingFiles
    ) -> (String) -> Bool {
        guard from != source.version else { return isEmpty }
        let mapped = files.files.contains { $0.sourceVersion >= source.version && $0.destinationVersion <= from }
        let versions = [source] + model.versions.filter { $0.version > source.version && $0.version <= from }
        return { name in
            mapped || !versions.allSatisfy { $0.entity(named: name) != nil } || isEmpty(name)
        }
    }
}

/// The work of `MigrationPath.choose`.
private struct PathChooser {
    let model: CompiledModel
    let source: CompiledVersion
    let target: Int
    let files: MappingFiles
    let knownPolicies: Set<String>?
    /// Whether the store holds no objects of a source entity of its own version
    /// (`MappingResolver.resolve`); nil without a store.
    var isEmpty: ((String) -> Bool)? = nil
    /// Whether a hop after the store's version may count on the data deciding
    /// (`MigrationPath.emptiness`); only when no route is found without it.
    var relaxesLaterHops = false

    mutating func choose(_ path: inout MigrationPath) throws {
        switch path.preference {
        case .automatic: try automatic(&path)
        case .chain: try chain(&path)
        case .direct: try direct(&path)
        }
    }

    /// Version `n`, the store's own (possibly cached) compiled version for its number.
    func version(_ n: Int) -> CompiledVersion? { n == source.version ? source : model.version(n) }

    func name(_ file: MappingFile) -> String { (file.path as NSString).lastPathComponent }

    /// Why inference refuses `from` → `to` (nil when it accepts).
    func refusal(_ from: Int, _ to: Int) -> InferenceFailure? {
        guard let a = version(from), let b = version(to) else { return nil }
        do {
            let emptiness =
                from == source.version || !relaxesLaterHops
                ? (from == source.version ? isEmpty : nil)
                : isEmpty.map { MigrationPath.emptiness($0, at: from, model: model, source: source, files: files) }
            _ = try MappingResolver.resolve(chain: [a, b], file: nil, knownPolicies: knownPolicies, isEmpty: emptiness)
            return nil
        } catch let failure as InferenceFailure {
            return failure
        } catch {
            return InferenceFailure(model: model.name, sourceVersion: from, destinationVersion: to, refusals: [])
        }
    }

    /// The first hop of `from` … `to` inference refuses, with its failure.
    func firstRefusedHop(_ from: Int, _ to: Int) -> InferenceFailure? {
        for hop in from..<to { if let failure = refusal(hop, hop + 1) { return failure } }
        return nil
    }

    /// One line naming a failure's changes: `Person.rank: new required attribute …`.
    static func changes(_ failure: InferenceFailure) -> String {
        failure.refusals.map { "\($0.entity)\($0.property.map { "." + $0 } ?? ""): \($0.change)" }.joined(
            separator: "; ")
    }

    mutating func automatic(_ path: inout MigrationPath) throws {
        path = try route(from: source.version, path)
    }

    /// The path from `position` on: a mapping file from there when there is one (the
    /// one reaching furthest first, then the others: every route the files give is
    /// tried before the search gives up, files 1-to-2, 1-to-3 and 2-to-4 reach 4 through
    /// 1-to-2), else the chain or the direct mapping as ``inferredRoute(from:_:)`` finds.
    /// A version with a mapping file from it never falls back to inference.
    func route(from position: Int, _ path: MigrationPath) throws -> MigrationPath {
        guard position < target else { return path }
        var path = path
        let from = files.files(from: position)
        for passing in from where passing.destinationVersion > target {
            path.notTaken.append(
                """
                mapping file \(name(passing)): maps \(position) → \(passing.destinationVersion), past the target \
                \(target)
                """
            )
        }
        let usable = from.filter { $0.destinationVersion <= target }
        guard !usable.isEmpty else { return try inferredRoute(from: position, path) }
        var firstFailure: (any Error)?
        var deadEnds: [String] = []
        for file in usable {
            var attempt = path
            let others = usable.filter { $0.path != file.path }
            var reason = "a mapping file from version \(position)"
            if !others.isEmpty, file.path == usable[0].path {
                reason += ", the one reaching furthest (not \(others.map(name).joined(separator: ", ")))"
            } else if !deadEnds.isEmpty {
                reason += " (\(deadEnds.joined(separator: "; ")))"
            }
            if file.destinationVersion - position > 1 {
                attempt.notTaken.append(
                    """
                    the hops \(position) → \(file.destinationVersion): a mapping file from the store's version comes \
                    first (Core Data uses a mapping model from the store's model)
                    """)
            }
            attempt.pieces.append(
                .init(
                    kind: .mappingFile, from: position, to: file.destinationVersion, mappingFile: file.path,
                    reason: reason))
            do {
                return try route(from: file.destinationVersion, attempt)
            } catch {
                firstFailure = firstFailure ?? error
                deadEnds.append("\(name(file)) leads to no route from version \(file.destinationVersion) to \(target)")
            }
        }
        throw firstFailure!
    }

    /// From a version no mapping file starts at: the chain up to where the next
    /// mapping file starts, when inference accepts every hop; else the direct inferred
    /// mapping to the target.
    func inferredRoute(from position: Int, _ path: MigrationPath) throws -> MigrationPath {
        var path = path
        let end = files.files.map(\.sourceVersion).filter { $0 > position && $0 < target }.min() ?? target
        guard var failure = firstRefusedHop(position, end) else {
            path.pieces.append(
                .init(
                    kind: .inferredChain, from: position, to: end, mappingFile: nil,
                    reason: end - position == 1 ? "inference accepts the hop" : "inference accepts every hop"))
            if end - position > 1 {
                path.notTaken.append("direct inferred \(position) → \(end): the chain comes first when every hop maps")
            }
            return try route(from: end, path)
        }
        let chainRefused = """
            the chain: hop \(failure.sourceVersion) → \(failure.destinationVersion) is refused by inference \
            (\(Self.changes(failure))) and no mapping file covers it
            """
        if target - position > 1, let direct = refusal(position, target) {
            failure.notTaken =
                path.notTaken + ["direct inferred \(position) → \(target): refused too (\(Self.changes(direct)))"]
            throw failure
        } else if target - position == 1 {
            failure.notTaken = path.notTaken
            throw failure
        }
        path.pieces.append(
            .init(
                kind: .directInferred, from: position, to: target, mappingFile: nil,
                reason:
                    """
                    hop \(failure.sourceVersion) → \(failure.destinationVersion) is refused; inference accepts the \
                    direct mapping
                    """
            ))
        path.notTaken.append(chainRefused)
        for skipped in files.files where skipped.sourceVersion > position && skipped.destinationVersion <= target {
            path.notTaken.append("mapping file \(name(skipped)): inside the direct mapping \(position) → \(target)")
        }
        return path
    }

    mutating func chain(_ path: inout MigrationPath) throws {
        var start: Int?
        for hop in source.version..<max(target, source.version) {
            if let file = files.file(from: hop, to: hop + 1) {
                if let first = start { path.pieces.append(inferred(first, hop)) }
                start = nil
                path.pieces.append(
                    .init(
                        kind: .mappingFile, from: hop, to: hop + 1, mappingFile: file.path,
                        reason: "the hop's mapping file (--path chain)"))
                continue
            }
            if var failure = refusal(hop, hop + 1) {
                failure.notTaken =
                    ["--path chain: no mapping file \(hop)-to-\(hop + 1).yaml covers the hop, and inference refuses it"]
                    + files.spans.filter { $0.sourceVersion <= hop && hop < $0.destinationVersion }
                    .map { "mapping file \(name($0)): a span, not used with --path chain" }
                throw PlanningError(
                    .noPath, "--path chain: hop \(hop) → \(hop + 1) cannot be migrated on its own:\n\(failure)")
            }
            if start == nil { start = hop }
        }
        if let first = start { path.pieces.append(inferred(first, target)) }
        for span in files.spans where span.sourceVersion >= source.version && span.destinationVersion <= target {
            path.notTaken.append("mapping file \(name(span)): a span (--path chain)")
        }
        if target - source.version > 1 {
            path.notTaken.append("direct inferred \(source.version) → \(target): --path chain")
        }
    }

    func inferred(_ from: Int, _ to: Int) -> MigrationPath.Piece {
        .init(
            kind: .inferredChain, from: from, to: to, mappingFile: nil,
            reason: "--path chain: inference accepts \(to - from == 1 ? "the hop" : "every hop")")
    }

    mutating func direct(_ path: inout MigrationPath) throws {
        let from = source.version
        if let file = files.file(from: from, to: target) {
            path.pieces.append(
                .init(
                    kind: .mappingFile, from: from, to: target, mappingFile: file.path,
                    reason: "--path direct: the mapping file from the store's version to the target"))
        } else if target > from {
            if let failure = refusal(from, target) {
                throw PlanningError(
                    .noPath, "--path direct: the direct mapping \(from) → \(target) cannot be inferred:\n\(failure)")
            }
            path.pieces.append(
                .init(
                    kind: .directInferred, from: from, to: target, mappingFile: nil,
                    reason: "--path direct: inference accepts the direct mapping"))
        }
        if target - from > 1 { path.notTaken.append("the chain of hops \(from) → \(target): --path direct") }
    }
}
