public import DataModel
import Foundation
import Mapping
import MigrationPolicies
import PropertyList
public import SQLiteStore

/// Decides everything a migration will do, without changing the store: the path from
/// the store's version to the target (`MigrationPath`: mapping files, inferred hops
/// fused, or the direct inferred mapping), each segment's mapping, and the SQL of
/// every step.
public struct MigrationPlanner: Sendable {
    /// The compiled models (`--models`).
    public var models: [CompiledModel]
    /// The folder of mapping files (`--migrations`).
    public var migrationsFolder: String
    /// Policy names compiled in; `nil` skips the check.
    public var knownPolicies: Set<String>?
    /// Per policy, the source properties it declares it reads
    /// (`EntityMigrationPolicy.sourceProperties`; `PolicyCatalog.declaredInputs`).
    public var policyInputs: [String: [String]] = [:]
    /// Per policy, what is left to write (`EntityMigrationPolicy.unwritten`): a hop
    /// naming such a policy is refused (`PolicyCatalog.unwritten`).
    public var policyUnwritten: [String: [String]] = [:]
    /// Per policy, the selectors of its functions (`EntityMigrationPolicy.functions`;
    /// `PolicyCatalog.functions`): a `FUNCTION($entityPolicy, …)` value calling
    /// another is refused at its line and column. `nil` skips the check.
    public var policyFunctions: [String: Set<String>]? = nil
    /// The settings of the plans it makes (`--to`, `--path`, `--exact-counts`,
    /// `--remove-dangling-references`, `--verify`).
    public var options = PlanningOptions()
    /// Let a rebuild that reads every row of a table too large to audit while
    /// planning check its rows' entity numbers in its own scan
    /// (``MigrationCheck/checkedByRebuildOf``). Off only to hold the fused check to
    /// the separate scan in tests.
    package var fusesPreconditions = true

    /// Creates a planner.
    public init(
        models: [CompiledModel], migrationsFolder: String, knownPolicies: Set<String>? = nil,
        options: PlanningOptions = PlanningOptions()
    ) {
        self.models = models
        self.migrationsFolder = migrationsFolder
        self.knownPolicies = knownPolicies
        self.options = options
    }

    /// The store's current version: recognised by its hashes, else the compiled model
    /// cached in the store when its version's YAML is gone (when the YAML is there
    /// with other hashes, the shipped version was edited: exit 5).
    public func sourceVersion(of store: Store, metadata: StoreMetadata) throws -> (CompiledModel, CompiledVersion) {
        if let name = metadata.modelName, !models.contains(where: { $0.name == name }) {
            var error = UnknownVersionError(path: store.path, recognition: nil)
            error.foreignModel = (name, models.map(\.name).sorted())
            throw error
        }
        let recognition = VersionRecognition.recognize(metadata, among: models)
        if let recognition, let number = recognition.version,
            let model = models.first(where: { $0.name == recognition.model }),
            var version = model.version(number)
        {
            // Our own stores know their exact layout (indexes, defaults) from the cache.
            if recognition.layoutDiffers, let cached = try store.readModelCache(),
                cached.versionHashes == version.versionHashes
            {
                version = cached
            }
            return (model, version)
        }
        if let cached = try store.readModelCache(), cached.versionHashes == metadata.versionHashes,
            let model = models.first(where: { $0.name == cached.model }), cached.version <= model.current.version
        {
            try Store.refuseDrift(cached, among: models, path: store.path, recognition: recognition)
            return (model, cached)
        }
        throw UnknownVersionError(path: store.path, recognition: recognition)
    }

    /// Plans the migration of `store` to `options.target` (default: the current
    /// version), with `options`.
    ///
    /// Every read happens in one read transaction, so the plan describes one
    /// snapshot of the store even while another process migrates it.
    public func plan(store: Store) throws -> MigrationPlan {
        if store.connection.isInTransaction { return try planInSnapshot(store: store) }
        return try store.connection.transaction(.deferred) { try planInSnapshot(store: store) }
    }

    private func planInSnapshot(store: Store) throws -> MigrationPlan {
        let metadata = try store.readMetadata()
        let (model, source) = try sourceVersion(of: store, metadata: metadata)
        let destination = try targetVersion(options.target, of: model, from: source, store: store)
        let binding = try store.binding(for: source)
        if let mismatch = binding.mismatch(with: source) {
            throw PlanningError(.storeMismatch, "\(store.path): \(mismatch)")
        }
        var audit = StoreAudit(version: source, layout: binding.layout)
        audit.refusesStrayValues = !metadata.writtenByCoreData
        var plan = MigrationPlan(
            storePath: store.path, model: model.name, sourceVersion: source.version, targetVersion: destination.version,
            sourceHashesDigest: VersionHasher.digest(metadata.versionHashes), storeUUID: metadata.storeUUID,
            hops: [], warnings: [], target: destination, entityNumbers: binding.layout.entityNumbers,
            currentVersion: model.current.version)
        plan.options = options
        let upToDate =
            source.version == destination.version
            && (metadata.layoutHash == nil || metadata.layoutHash == destination.layoutHash)
            && source.layoutHash == destination.layoutHash
        if upToDate {
            if options.verify {
                plan.verification = try Self.currentStoreVerification(
                    store, version: destination, refusesStrayValues: audit.refusesStrayValues)
            }
            return plan
        }

        let keyProblems = audit.keyTableProblems(try store.entityKeyRows())
        if !keyProblems.isEmpty {
            throw PlanningError(
                .storeMismatch, StoreAudit.refusal(path: store.path, version: source, problems: keyProblems))
        }
        let isEmpty = Self.emptiness(of: source, layout: binding.layout, store: store)
        let (path, files) = try choosePath(model: model, source: source, target: destination.version, isEmpty: isEmpty)
        plan.path = path
        plan.warnings += path.differences.map { difference in
            MigrationWarning(message: "path: \(difference) (this plan: \(path.summary))", isDestructive: false)
        }
        let shared = SharedCounter(RowCounter(connection: store.connection, exact: options.exactCounts))
        shared.counter.limit = options.countLimit
        try planHops(
            into: &plan, store: store, metadata: metadata, model: model, source: source, layout: binding.layout,
            segments: segments(of: path, model: model, source: source, target: destination.version, files: files),
            counter: shared,
            isEmpty: isEmpty, files: files)
        // A store that holds no objects loses nothing: a warning no count could back
        // (a one-to-one's pairings, values an earlier hop writes) is no loss there,
        // and must not stop a deploy's gate on a new, empty store.
        if source.entities.allSatisfy({ isEmpty($0.name) }) { plan.warnings.removeAll(where: \.isDestructive) }
        var counter = shared.counter
        try checkPolicyInputs(plan)
        try settleDanglingReferences(in: &plan, store: store, source: source, counter: &counter)
        if plan.allSteps.contains(where: \.cost.movesRows) {
            try auditRowsToMove(for: &plan, audit: audit, store: store, counter: &counter)
        }
        try checkRequirementsTheStoreDecides(of: plan, store: store)
        if options.verify { plan.verification = Self.verification(after: plan) }
        return plan
    }

    /// Plans each segment as a hop of `plan`, each from the layout the one before
    /// leaves; the plan's entity numbers end as the last hop's.
    private func planHops(
        into plan: inout MigrationPlan, store: Store, metadata: StoreMetadata, model: CompiledModel,
        source: CompiledVersion, layout: StorageLayout, segments: [Segment], counter: SharedCounter,
        isEmpty: @escaping (String) -> Bool,
        files: MappingFiles
    ) throws {
        var current = source
        var sourceLayout = layout
        for segment in segments {
            // A mapping file or a direct mapping maps its two versions; a fused run of
            // inferred hops follows renames through every version in between.
            let chain =
                segment.isDirect
                ? [current, model.version(segment.to)!]
                : [current] + model.versions.filter { $0.version > segment.from && $0.version <= segment.to }
            let segmentTarget = chain.last!.version == current.version && chain.count == 1 ? plan.target : chain.last!
            let mapping = try resolveMapping(
                chain: chain.count == 1 ? [current, segmentTarget] : chain, file: segment.file, model: model.name,
                isEmpty: MigrationPath.emptiness(
                    isEmpty, at: current.version, model: model, source: source, files: files))
            let destinationLayout = self.destinationLayout(
                of: segmentTarget, mapping: mapping, after: sourceLayout, metadata: metadata,
                numbersSoFar: plan.entityNumbers)
            var planner = try segmentPlanner(
                from: current, sourceLayout, to: segmentTarget, destinationLayout, mapping: mapping,
                isFirstHop: plan.hops.isEmpty, numbersSoFar: plan.entityNumbers, store: store,
                metadata: metadata, counter: counter)
            try planner.plan()
            plan.hops.append(
                Self.hop(
                    segment, planner, from: current, to: segmentTarget, sourceLayout: sourceLayout,
                    destinationLayout: destinationLayout))
            plan.warnings += planner.warnings.map { warning in
                var warning = warning
                (warning.fromVersion, warning.toVersion) = (current.version, segmentTarget.version)
                return warning
            }
            if plan.hops.count == 1 {
                plan.warnings += try unknownColumnWarnings(store: store, layout: sourceLayout, steps: planner.steps)
            }
            current = segmentTarget
            sourceLayout = destinationLayout
        }
        plan.entityNumbers = sourceLayout.entityNumbers
    }

    /// The planner of one segment, counting the store's rows as they are now.
    private func segmentPlanner(
        from current: CompiledVersion, _ sourceLayout: StorageLayout, to segmentTarget: CompiledVersion,
        _ destinationLayout: StorageLayout, mapping: MappingModel, isFirstHop: Bool, numbersSoFar: [String: Int],
        store: Store, metadata: StoreMetadata, counter shared: SharedCounter
    ) throws -> SegmentPlanner {
        // A later hop counts the store's rows as they are now: its entity numbers
        // (renumbered by an earlier hop in a store that follows Core Data's
        // numbering) are translated back to the numbers the rows still carry.
        let storeNumbers = isFirstHop ? nil : Self.storeNumbers(of: sourceLayout, in: numbersSoFar)
        var planner = SegmentPlanner(
            source: current, sourceLayout: sourceLayout, destination: segmentTarget,
            destinationLayout: destinationLayout, mapping: mapping,
            count: { table, numbers in
                let stored = numbers.map { $0.compactMap { storeNumbers?[$0] ?? $0 } }
                return stored?.isEmpty == true ? 0 : try shared.counter.count(table, stored)
            },
            countValues: { table, column, numbers in
                let stored = numbers.compactMap { storeNumbers?[$0] ?? $0 }
                // A later hop's column that an earlier hop makes (a rename, a computed
                // value, a new entity's table) holds values no count of the store sees.
                if !isFirstHop, !stored.isEmpty, try !shared.counter.has(table, column: column) {
                    return RowCounter.notYetWritten
                }
                return stored.isEmpty ? 0 : try shared.counter.countValues(table, column, stored)
            })
        if !isFirstHop {
            planner.isLaterHop = true
            planner.tableMadeByEarlierHop = { table in try !shared.counter.has(table) }
        }
        planner.storedKeyNumbers =
            isFirstHop ? Set(try store.entityKeyRows().map(\.number)) : Set(sourceLayout.entityNumbers.values)
        planner.countWhere = { table, condition, arguments in
            guard isFirstHop, try shared.counter.exists(table) else { return nil }
            return try store.connection.scalarInt64(
                "SELECT count(*) FROM \(SQLText.q(table)) AS f WHERE \(condition)", arguments: arguments)
        }
        if metadata.followsCoreDataNumbering,
            try store.connection.columns(of: "ACHANGE").contains(where: { $0.name == "ZENTITY" })
        {
            planner.historyRows = try shared.counter.count("ACHANGE", nil)
        }
        return planner
    }

    /// The version to plan to (`target`, or the model's current one), refused when
    /// it is unknown, older than the store's, or when a version on the way cannot
    /// be stored.
    private func targetVersion(_ target: Int?, of model: CompiledModel, from source: CompiledVersion, store: Store)
        throws -> CompiledVersion
    {
        let targetNumber = target ?? model.current.version
        guard let destination = model.version(targetNumber) else {
            throw PlanningError(
                .unknownTarget,
                "model \(model.name) has no version \(targetNumber) (versions 1 to \(model.current.version))")
        }
        if targetNumber < source.version {
            throw PlanningError(
                .noPath,
                """
                the store is at version \(source.version), newer than the target \(targetNumber); downgrades are not \
                supported
                """
            )
        }
        // Every version the path crosses must be one this toolkit can store.
        for number in source.version...targetNumber {
            if let refusal = model.version(number)?.storageRefusal {
                throw PlanningError(.noPath, "\(store.path): \(refusal)")
            }
        }
        return destination
    }

    /// The migration path from the model's mapping files, refused when a file has
    /// errors or no path leads to the target.
    private func choosePath(
        model: CompiledModel, source: CompiledVersion, target: Int, isEmpty: @escaping (String) -> Bool
    ) throws -> (MigrationPath, MappingFiles) {
        let files = MappingFiles.load(
            folder: migrationsFolder, model: model.name, versions: model.versions.map(\.version))
        if files.diagnostics.contains(where: { $0.severity == .error }) { throw DiagnosticsError(files.diagnostics) }
        try requireMappedSteps(model: model, source: source, target: target, files: files)
        do {
            let path = try MigrationPath.choose(
                model: model, source: source, target: target, files: files,
                preference: options.path, knownPolicies: knownPolicies, isEmpty: isEmpty)
            return (path, files)
        } catch let failure as InferenceFailure {
            throw withFolder(failure, model: model.name)
        }
    }

    /// A segment's mapping: its file's, or inferred along the chain.
    private func resolveMapping(
        chain: [CompiledVersion], file: MappingFile?, model: String, isEmpty: ((String) -> Bool)?
    ) throws -> MappingModel {
        do {
            return try MappingResolver.resolve(
                chain: chain, file: file, knownPolicies: knownPolicies, policyFunctions: policyFunctions,
                isEmpty: isEmpty)
        } catch var failure as InferenceFailure {
            // A fused run of hops: name the single hop that needs a mapping file,
            // and the folder actually in use.
            if chain.count > 2 {
                for i in 0..<(chain.count - 1) {
                    do {
                        _ = try MappingResolver.resolve(
                            chain: [chain[i], chain[i + 1]], file: nil, knownPolicies: knownPolicies)
                    } catch let single as InferenceFailure {
                        failure = single
                        break
                    }
                }
            }
            throw withFolder(failure, model: model)
        }
    }

    /// The layout a segment migrates the store to.
    private func destinationLayout(
        of segmentTarget: CompiledVersion, mapping: MappingModel, after sourceLayout: StorageLayout,
        metadata: StoreMetadata, numbersSoFar: [String: Int]
    ) -> StorageLayout {
        if metadata.followsCoreDataNumbering {
            // A store from Core Data: Core Data numbers entities from the model
            // (its order, `ModelCompiler.defaultEntityOrder`), so the migrated
            // store takes the destination model's numbers; rows of entities whose
            // number changes are rewritten.
            // Its tables and columns take the names Core Data gives the
            // destination version, as Core Data's own migrations rename them (its
            // stores hold `Z_23TRUSTEDCLIENTS_…_INDEX` on a table renamed
            // `Z_24TRUSTEDBYCLIENTS`): a migrated store is laid out as one created
            // at the version. Only indexes keep the names the store gives them.
            return segmentTarget.layout(entityNumbers: segmentTarget.layout.entityNumbers, coreDataTypes: true)
                .keepingIndexNames(of: sourceLayout)
        }
        var numbers: [String: Int] = [:]
        var claimed: Set<Int> = []
        for entityMapping in mapping.entityMappings {
            // An additional mapping of a source entity makes new objects: they take a
            // new number; so does one that makes no objects (`FALSEPREDICATE`), and a
            // number is never given to two entities. A further mapping into an entity (a
            // merge) leaves it the number of the entity's own mapping.
            if let d = entityMapping.destination, let s = entityMapping.source, let n = sourceLayout.entityNumbers[s],
                mapping.mapping(forDestination: d)?.name == entityMapping.name,
                !mapping.isAdditional(entityMapping),
                mapping.mappings(fromSource: s).contains(where: { $0.name == entityMapping.name }),
                claimed.insert(n).inserted
            {
                numbers[d] = n
            }
        }
        // Numbers of entities gone stay taken, so a new entity never reuses one.
        let stampedMaximum = Int(clamping: metadata.otherKeys[StoreMetadata.maximumEntityNumberKey]?.integerValue ?? 0)
        // Entity numbers are small (Core Data's own entities start at 16001);
        // a hostile store's huge numbers must not overflow the next one.
        let reserved = min(
            max(sourceLayout.entityNumbers.values.max() ?? 0, stampedMaximum, numbersSoFar.values.max() ?? 0),
            StoreAudit.largestEntityNumber)
        return segmentTarget.layout(entityNumbers: numbers, reserved: reserved)
    }

    /// A planned segment as a hop of the plan, with the digest of its mapping (and
    /// of the mapping file it comes from).
    private static func hop(
        _ segment: Segment, _ planner: SegmentPlanner, from current: CompiledVersion, to segmentTarget: CompiledVersion,
        sourceLayout: StorageLayout, destinationLayout: StorageLayout
    ) -> MigrationHop {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let mappingBytes = [UInt8]((try? encoder.encode(planner.mapping)) ?? Data())
        return MigrationHop(
            from: current.version, to: segmentTarget.version, kind: segment.kind, mapping: planner.mapping,
            digest: VersionHasher.sha256Hex(mappingBytes + Array((segment.file?.digest ?? "").utf8)),
            steps: planner.steps, checks: planner.checks, requirements: planner.requirements,
            source: current, destination: segmentTarget,
            sourceLayout: sourceLayout, destinationLayout: destinationLayout)
    }

    /// A segment: versions `from` → `to` planned as one hop of the plan.
    struct Segment {
        let from: Int, to: Int, file: MappingFile?
        /// What the path piece it belongs to executes.
        let kind: MigrationPath.Kind
        /// Mapped between its two versions only (a mapping file, a direct mapping).
        var isDirect: Bool { kind != .inferredChain }
    }

    /// The path's pieces as segments: a mapping file or a direct mapping is one; a
    /// run of inferred hops is fused, except that a hop changing stored values (fills
    /// defaults, gives a new attribute its default, keeps one of several destinations,
    /// resets an order) ends its fused run, and so do a hop with data requirements and
    /// a version whose rules the next one relaxes: a later hop must not hide any of
    /// them, so one apply gives what
    /// migrating hop by hop gives (Docs/Migrations.md, "Fused hops").
    func segments(
        of path: MigrationPath, model: CompiledModel, source: CompiledVersion, target: Int, files: MappingFiles
    ) -> [Segment] {
        if source.version == target { return [Segment(from: target, to: target, file: nil, kind: .inferredChain)] }
        var segments: [Segment] = []
        for piece in path.pieces {
            guard piece.kind == .inferredChain else {
                let file = piece.mappingFile.flatMap { _ in files.file(from: piece.from, to: piece.to) }
                segments.append(Segment(from: piece.from, to: piece.to, file: file, kind: piece.kind))
                continue
            }
            var start = piece.from
            for version in piece.from..<(piece.to - 1) {
                // The hop's inferred mapping, resolved once for both questions.
                guard let from = version == source.version ? source : model.version(version),
                    let to = model.version(version + 1)
                else {
                    continue
                }
                let mapping = try? MappingResolver.resolve(chain: [from, to], file: nil, knownPolicies: knownPolicies)
                // A hop with data requirements (a nil refused, objects that would lack a
                // required destination) ends its run: a later version's default or rule
                // would otherwise stand in for them in the fused mapping.
                // A value this hop gives must be the one every later version of the run
                // keeps (not only the next: version 3 may keep version 2's default and
                // version 4 change it, and the fused mapping would take version 4's).
                let later = (version + 2...max(version + 2, piece.to)).compactMap { model.version($0) }
                var ends =
                    mapping.map { Self.normalizesData($0, from: from, to: to) || !($0.requirements ?? []).isEmpty }
                    ?? false
                    || model.version(version + 2).map({ next in
                        mapping.map { hop in later.contains { Self.givesValues(hop, to: to, keptBy: $0) } } ?? false
                            || Self.relaxesRules(of: to, in: next)
                    }) ?? true
                // A run that inference cannot map as a whole (a destination widened,
                // then narrowed to a sibling) ends before the hop that breaks it: hop
                // by hop each mapping exists.
                if !ends, mapping != nil, let next = model.version(version + 2),
                    Self.changesDestinations(from: to, to: next)
                {
                    let run = (start...version + 2).compactMap { $0 == source.version ? source : model.version($0) }
                    ends = (try? MappingResolver.resolve(chain: run, file: nil, knownPolicies: knownPolicies)) == nil
                }
                if ends {
                    segments.append(Segment(from: start, to: version + 1, file: nil, kind: .inferredChain))
                    start = version + 1
                }
            }
            segments.append(Segment(from: start, to: piece.to, file: nil, kind: .inferredChain))
        }
        return segments
    }

    /// A refusal whose remedies name the mapping-file folder in use.
    func withFolder(_ failure: InferenceFailure, model: String) -> InferenceFailure {
        var failure = failure
        failure.refusals = failure.refusals.map { refusal in
            var refusal = refusal
            refusal.remedy = refusal.remedy.replacingOccurrences(
                of: "Migrations/\(model)/", with: "\(migrationsFolder)/\(model)/")
            return refusal
        }
        return failure
    }

    /// The store's entity tables whose rows the plan copies, updates, deletes or
    /// hands to a policy (`nil`, all of them, when a later hop moves rows: those
    /// hops read what earlier ones wrote).
    func rowMovingSourceTables(_ plan: MigrationPlan) -> Set<String>? {
        guard let first = plan.hops.first else { return [] }
        if plan.hops.dropFirst().contains(where: { $0.steps.contains(where: \.cost.movesRows) }) { return nil }
        let destinations = Set(first.steps.filter(\.cost.movesRows).compactMap(\.table))
        var tables: Set<String> = []
        for table in first.sourceLayout.tables where table.joinRelationship == nil {
            if destinations.contains(table.name) {
                tables.insert(table.name)
                continue
            }
            // The table its rows go to, through the hop's mapping of its entities.
            for entity in first.source.entities where entity.root == table.entity {
                // Every mapping of the entity (one source entity may feed several).
                let targets = first.mapping.mappings(fromSource: entity.name).compactMap { mapping in
                    mapping.destination.flatMap { first.destination.entity(named: $0)?.root }.flatMap {
                        first.destinationLayout.table(forEntity: $0)
                    }
                }
                if targets.contains(where: { destinations.contains($0.name) }) {
                    tables.insert(table.name)
                    break
                }
            }
        }
        for case .policy(let stage) in first.steps {
            for invocation in stage.policies {
                if let root = first.source.entity(named: invocation.sourceEntity)?.root,
                    let table = first.sourceLayout.table(forEntity: root)
                {
                    tables.insert(table.name)
                }
            }
        }
        return tables
    }

    /// References of the store that already point at no object, with the check that
    /// finds them; counted when the store is small enough to plan exactly or
    /// `exact` (apply carries them either way).
    func danglingReferences(
        store: Store, version: CompiledVersion, layout: StorageLayout, counter: inout RowCounter,
        exact: Bool
    ) throws -> [(references: DanglingReferences, check: MigrationCheck)] {
        if !exact {
            for table in layout.tables where try counter.exists(table.name) {
                if try counter.estimate(table.name) > RowCounter.exactCountLimit { return [] }
            }
        }
        var found: [(references: DanglingReferences, check: MigrationCheck)] = []
        for check in CheckBuilder.relationshipChecks(version, layout: layout) {
            guard let key = check.reference else { continue }
            let rows = try store.connection.scalarInt64(check.sql) ?? 0
            if rows > 0 {
                found.append((DanglingReferences(reference: key, summary: check.summary, rows: rows), check))
            }
        }
        return found
    }

    /// A policy that declares the source properties it reads must find each of them
    /// in the source entity of its hop: a mapping file copied onto the wrong hop
    /// would otherwise read nil everywhere and write empty values.
    func checkPolicyInputs(_ plan: MigrationPlan) throws {
        var problems: [String] = []
        for hop in plan.hops {
            for mapping in hop.mapping.entityMappings where mapping.kind == .custom {
                if let policy = mapping.policy, let left = policyUnwritten[policy] {
                    let file = hop.mapping.mappingFile.map { " (named in \($0))" } ?? ""
                    problems.append("policy \(policy)\(file) is not written yet: " + left.joined(separator: "; "))
                }
                guard let policy = mapping.policy, let inputs = policyInputs[policy], let sourceName = mapping.source,
                    let entity = hop.source.entity(named: sourceName)
                else { continue }
                let missing = inputs.filter {
                    entity.attribute(named: $0) == nil && entity.relationship(named: $0) == nil
                }
                if !missing.isEmpty {
                    let file = hop.mapping.mappingFile.map { " (\($0))" } ?? ""
                    problems.append(
                        """
                        policy \(policy) reads \(missing.map { "\(sourceName).\($0)" }.joined(separator: ", ")), which \
                        version \(hop.source.version) does not have: is the mapping file\(file) meant for another hop?
                        """)
                }
            }
        }
        if !problems.isEmpty {
            throw PlanningError(.noPath, problems.joined(separator: "\n"))
        }
    }
}

/// The row counter every hop's planner counts with (each count made once).
final class SharedCounter {
    var counter: RowCounter

    init(_ counter: RowCounter) { self.counter = counter }
}

extension MigrationPlanner {
    /// For a later hop's layout, each entity number mapped to the number the store's
    /// rows carry now (the entity of the same name in the store's own numbering);
    /// an entity the store does not have yet maps to a number no row carries.
    static func storeNumbers(of layout: StorageLayout, in stored: [String: Int]) -> [Int: Int] {
        var map: [Int: Int] = [:]
        for (name, number) in layout.entityNumbers { map[number] = stored[name] ?? -1 }
        return map
    }
}
