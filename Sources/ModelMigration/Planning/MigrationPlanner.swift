import DataModel
import Foundation
import Mapping
import SQLiteStore

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
    /// Count every row and every dropped value, even in tables over a million rows
    /// (otherwise those are estimated from the highest row id, and dropped values
    /// are only checked for presence).
    public var exactCounts = false
    /// Remove the references the store already holds to objects it does not have
    /// (join rows deleted, keys set to nil, as Core Data's nullify would), as the
    /// plan's first steps, instead of carrying them.
    public var removesDanglingReferences = false
    /// Check the rows the plan moves against the store's entity numbers now, as
    /// `plan` and `status` do. `apply` may leave it to `Migrator`, which checks the
    /// same preconditions under its lock anyway (it refuses the same stores with the
    /// same message, exit 1): a pass over every moved row saved.
    public var checksPreconditions = true
    /// Tables above this many rows are not scanned for counts: their row count is
    /// the highest row id and dropped values are checked for presence only (unless
    /// `exactCounts`). `apply` lowers it: its counts only feed messages.
    public var countLimit: Int64 = RowCounter.exactCountLimit
    /// Which path to take (`--path`): the rule, or the chain of hops, or the direct mapping.
    public var pathPreference: MigrationPath.Preference = .automatic

    /// Creates a planner.
    public init(models: [CompiledModel], migrationsFolder: String, knownPolicies: Set<String>? = nil) {
        self.models = models
        self.migrationsFolder = migrationsFolder
        self.knownPolicies = knownPolicies
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
        if let recognition, let number = recognition.version, let model = models.first(where: { $0.name == recognition.model }),
           var version = model.version(number) {
            // Our own stores know their exact layout (indexes, defaults) from the cache.
            if recognition.layoutDiffers, let cached = try store.readModelCache(), cached.versionHashes == version.versionHashes {
                version = cached
            }
            return (model, version)
        }
        if let cached = try store.readModelCache(), cached.versionHashes == metadata.versionHashes,
           let model = models.first(where: { $0.name == cached.model }), cached.version <= model.current.version {
            try Store.refuseDrift(cached, among: models, path: store.path, recognition: recognition)
            return (model, cached)
        }
        throw UnknownVersionError(path: store.path, recognition: recognition)
    }

    /// Plans the migration of `store` to version `target` (default: the current one).
    ///
    /// Every read happens in one read transaction, so the plan describes one
    /// snapshot of the store even while another process migrates it.
    public func plan(store: Store, to target: Int? = nil) throws -> MigrationPlan {
        if store.connection.isInTransaction { return try planInSnapshot(store: store, to: target) }
        return try store.connection.transaction(.deferred) { try planInSnapshot(store: store, to: target) }
    }

    private func planInSnapshot(store: Store, to target: Int?) throws -> MigrationPlan {
        let metadata = try store.readMetadata()
        let (model, source) = try sourceVersion(of: store, metadata: metadata)
        let targetNumber = target ?? model.current.version
        guard let destination = model.version(targetNumber) else {
            throw PlanningError(.unknownTarget, "model \(model.name) has no version \(targetNumber) (versions 1 to \(model.current.version))")
        }
        if targetNumber < source.version {
            throw PlanningError(.noPath, "the store is at version \(source.version), newer than the target \(targetNumber); downgrades are not supported")
        }
        // Every version the path crosses must be one this toolkit can store.
        for number in source.version...targetNumber {
            if let refusal = model.version(number)?.storageRefusal { throw PlanningError(.noPath, "\(store.path): \(refusal)") }
        }
        let binding = try store.binding(for: source)
        if let mismatch = binding.mismatch(with: source) { throw PlanningError(.storeMismatch, "\(store.path): \(mismatch)") }
        var sourceLayout = binding.layout
        var audit = StoreAudit(version: source, layout: sourceLayout)
        audit.refusesStrayValues = !metadata.writtenByCoreData
        var plan = MigrationPlan(storePath: store.path, model: model.name, sourceVersion: source.version, targetVersion: targetNumber,
                                 sourceHashesDigest: VersionHasher.digest(metadata.versionHashes), storeUUID: metadata.storeUUID,
                                 hops: [], warnings: [], target: destination, entityNumbers: sourceLayout.entityNumbers,
                                 currentVersion: model.current.version)
        let upToDate = source.version == targetNumber && (metadata.layoutHash == nil || metadata.layoutHash == destination.layoutHash)
            && source.layoutHash == destination.layoutHash
        if upToDate { return plan }

        let keyProblems = audit.keyTableProblems(try store.entityKeyRows())
        if !keyProblems.isEmpty {
            throw PlanningError(.storeMismatch, StoreAudit.refusal(path: store.path, version: source, problems: keyProblems))
        }

        let files = MappingFiles.load(folder: migrationsFolder, model: model.name)
        if files.diagnostics.contains(where: { $0.severity == .error }) { throw DiagnosticsError(files.diagnostics) }
        let path: MigrationPath
        do {
            path = try MigrationPath.choose(model: model, source: source, target: targetNumber, files: files,
                                            preference: pathPreference, knownPolicies: knownPolicies)
        } catch let failure as InferenceFailure {
            throw withFolder(failure, model: model.name)
        }
        plan.path = path
        plan.warnings += path.differences.map { difference in
            MigrationWarning(message: "path: \(difference) (this plan: \(path.summary))", isDestructive: false)
        }
        let segments = self.segments(of: path, model: model, source: source, target: targetNumber, files: files)

        var current = source
        var counter = RowCounter(connection: store.connection, exact: exactCounts)
        counter.limit = countLimit
        for segment in segments {
            let (from, to, file) = (segment.from, segment.to, segment.file)
            // A mapping file or a direct mapping maps its two versions; a fused run of
            // inferred hops follows renames through every version in between.
            let chain = segment.isDirect ? [current, model.version(to)!]
                : [current] + model.versions.filter { $0.version > from && $0.version <= to }
            let segmentTarget = chain.last!.version == current.version && chain.count == 1 ? destination : chain.last!
            let mapping: MappingModel
            do {
                mapping = try MappingResolver.resolve(chain: chain.count == 1 ? [current, segmentTarget] : chain, file: file, knownPolicies: knownPolicies,
                                                      policyFunctions: policyFunctions)
            } catch var failure as InferenceFailure {
                // A fused run of hops: name the single hop that needs a mapping file,
                // and the folder actually in use.
                if chain.count > 2 {
                    for i in 0..<(chain.count - 1) {
                        do {
                            _ = try MappingResolver.resolve(chain: [chain[i], chain[i + 1]], file: nil, knownPolicies: knownPolicies)
                        } catch let single as InferenceFailure {
                            failure = single
                            break
                        }
                    }
                }
                throw withFolder(failure, model: model.name)
            }
            var destinationLayout: StorageLayout
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
                destinationLayout = segmentTarget.layout(entityNumbers: segmentTarget.layout.entityNumbers, coreDataTypes: true)
                    .keepingIndexNames(of: sourceLayout)
            } else {
                var numbers: [String: Int] = [:]
                for entityMapping in mapping.entityMappings {
                    if let d = entityMapping.destination, let s = entityMapping.source, let n = sourceLayout.entityNumbers[s] { numbers[d] = n }
                }
                // Numbers of entities gone stay taken, so a new entity never reuses one.
                let stampedMaximum = Int(clamping: metadata.otherKeys[StoreMetadata.maximumEntityNumberKey]?.integerValue ?? 0)
                // Entity numbers are small (Core Data's own entities start at 16001);
                // a hostile store's huge numbers must not overflow the next one.
                let reserved = min(max(sourceLayout.entityNumbers.values.max() ?? 0, stampedMaximum, plan.entityNumbers.values.max() ?? 0),
                                   StoreAudit.largestEntityNumber)
                destinationLayout = segmentTarget.layout(entityNumbers: numbers, reserved: reserved)
            }
            // A later hop counts the store's rows as they are now: its entity numbers
            // (renumbered by an earlier hop in a store that follows Core Data's
            // numbering) are translated back to the numbers the rows still carry.
            let storeNumbers = plan.hops.isEmpty ? nil : Self.storeNumbers(of: sourceLayout, in: plan.entityNumbers)
            var planner = SegmentPlanner(source: current, sourceLayout: sourceLayout, destination: segmentTarget,
                                         destinationLayout: destinationLayout, mapping: mapping,
                                         count: { table, numbers in
                                             let stored = numbers.map { $0.compactMap { storeNumbers?[$0] ?? $0 } }
                                             return stored?.isEmpty == true ? 0 : try counter.count(table, stored)
                                         },
                                         countValues: { table, column, numbers in
                                             let stored = numbers.compactMap { storeNumbers?[$0] ?? $0 }
                                             return stored.isEmpty ? 0 : try counter.countValues(table, column, stored)
                                         })
            planner.storedKeyNumbers = plan.hops.isEmpty ? Set(try store.entityKeyRows().map(\.number)) : Set(sourceLayout.entityNumbers.values)
            let isFirstHop = plan.hops.isEmpty
            planner.countWhere = { table, condition, arguments in
                guard isFirstHop, try counter.exists(table) else { return nil }
                return try store.connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(table)) AS f WHERE \(condition)", arguments: arguments)
            }
            if metadata.followsCoreDataNumbering, try store.connection.columns(of: "ACHANGE").contains(where: { $0.name == "ZENTITY" }) {
                planner.historyRows = try counter.count("ACHANGE", nil)
            }
            try planner.plan()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let mappingBytes = [UInt8]((try? encoder.encode(mapping)) ?? Data())
            plan.hops.append(MigrationHop(from: current.version, to: segmentTarget.version, kind: segment.kind, mapping: mapping,
                                          digest: VersionHasher.sha256Hex(mappingBytes + Array((file?.digest ?? "").utf8)),
                                          steps: planner.steps, checks: planner.checks, requirements: planner.requirements,
                                          source: current, destination: segmentTarget,
                                          sourceLayout: sourceLayout, destinationLayout: destinationLayout))

            plan.warnings += planner.warnings
            if plan.hops.count == 1 {
                plan.warnings += try unknownColumnWarnings(store: store, layout: sourceLayout, steps: planner.steps)
            }
            current = segmentTarget
            sourceLayout = destinationLayout
        }
        plan.entityNumbers = sourceLayout.entityNumbers
        try checkPolicyInputs(plan)

        // What the plan relies on: rows copied, updated or deleted by entity number
        // need the store's numbers to agree with its rows. A plan of O(1) steps and
        // index builds moves no row, and stays O(1): no scan.
        // References that already dangle: carried (counted when the plan moves
        // rows), or removed first when asked.
        var dangling: [(references: DanglingReferences, check: MigrationCheck)] = []
        if removesDanglingReferences || plan.allSteps.contains(where: \.cost.movesRows), let first = plan.hops.first {
            dangling = try danglingReferences(store: store, version: source, layout: first.sourceLayout, counter: &counter,
                                              exact: removesDanglingReferences || exactCounts)
        }
        if removesDanglingReferences, !dangling.isEmpty {
            // Setting a required to-one to nil breaks the model: the data decides.
            let required = dangling.filter { found in
                let key = found.references.reference
                guard !key.towardOwner, let r = source.entity(named: key.entity)?.relationship(named: key.relationship)?.declaration else { return false }
                return !r.isToMany && !r.isOptional
            }
            if !required.isEmpty {
                throw PlanningError(.noPath, "\(store.path): --remove-dangling-references would leave required relationships empty: "
                    + required.map { "\($0.references.reference) (\($0.references.rows) row\($0.references.rows == 1 ? "" : "s"))" }.joined(separator: ", ")
                    + "; point those rows at existing objects or delete them first; nothing was changed")
            }
            let repairs = dangling.compactMap { found -> MigrationStep? in
                guard let repair = found.check.repair else { return nil }
                let rows = found.references.rows
                return MigrationStep(kind: repair.deletesRows ? .deleteRows : .updateRows,
                                     summary: """
                                         remove \(rows) reference\(rows == 1 ? "" : "s") of \(found.references.reference) \
                                         to objects the store does not have
                                         """,
                                     sql: [repair.sql], cost: .update(rows: rows), table: repair.table)
            }
            plan.hops[0].steps.insert(contentsOf: repairs, at: 0)
            plan.removedDanglingReferences = dangling.map(\.references)
        } else {
            plan.danglingReferences = dangling.map(\.references)
            plan.warnings += plan.danglingReferences.map { MigrationWarning(message: $0.description, isDestructive: false) }
        }
        if plan.allSteps.contains(where: \.cost.movesRows) {
            let moving = rowMovingSourceTables(plan)
            let preconditions = audit.preconditions(tables: moving)
            // Tables too large to scan while planning (as for counts) are audited by
            // `apply`, under its lock, before any step: the plan says so.
            var large: [(name: String, rows: Int64)] = []
            for table in audit.layout.tables where checksPreconditions {
                // A table without a rowid has no cheap estimate: it is scanned.
                if let rows = (try? counter.tooLargeToScan(table.name)) ?? nil { large.append((table.name, rows)) }
            }
            let checkedNow = large.isEmpty ? preconditions : audit.preconditions(tables: moving, skipping: Set(large.map(\.name)))
            let problems = checksPreconditions ? try StoreAudit.violations(of: checkedNow, on: store.connection) : []
            if !problems.isEmpty {
                throw PlanningError(.storeMismatch, StoreAudit.refusal(path: store.path, version: source, problems: problems))
            }
            plan.preconditions = preconditions
            let deferred = large.filter { audit.preconditions(tables: moving, skipping: [$0.name]).count < preconditions.count }
            if !deferred.isEmpty {
                let tables = deferred.map { "\($0.name) (about \($0.rows) rows)" }.joined(separator: ", ")
                plan.warnings.append(MigrationWarning(message: """
                    \(tables): not audited while planning; `apply` checks \(deferred.count == 1 ? "its" : "their") rows' entity numbers \
                    and references under its lock before any step (`migrate plan --exact-counts` checks them now)
                    """, isDestructive: false))
            }
            if !audit.refusesStrayValues {
                // Every moving table, large or not: for a store Core Data wrote this
                // scan is the only one refusing sibling columns bound the wrong way
                // round (no precondition of `apply` repeats it), and it reads only
                // tables with such columns.
                let stray = try audit.strayValues(tables: moving, on: store.connection)
                if !stray.refusals.isEmpty {
                    throw PlanningError(.storeMismatch, StoreAudit.refusal(path: store.path, version: source, problems: stray.refusals))
                }
                plan.warnings += stray.warnings
            }
        }
        // The store holds the first hop's source: the data decides now.
        if let first = plan.hops.first {
            let refused = try StoreAudit.violations(of: first.requirements, on: store.connection)
            if !refused.isEmpty {
                throw PlanningError(.noPath, "\(store.path): hop \(first.from) → \(first.to) of \(model.name) cannot migrate this store's data:\n"
                    + refused.map { "  " + $0 }.joined(separator: "\n"))
            }
        }
        return plan
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
    /// defaults, keeps one of several destinations, resets an order) ends its fused
    /// run: a later hop must not hide it, so one apply gives what migrating hop by
    /// hop gives.
    func segments(of path: MigrationPath, model: CompiledModel, source: CompiledVersion, target: Int, files: MappingFiles) -> [Segment] {
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
                if let from = version == source.version ? source : model.version(version), let to = model.version(version + 1),
                   Self.normalizesData(from: from, to: to, knownPolicies: knownPolicies) {
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
            refusal.remedy = refusal.remedy.replacingOccurrences(of: "Migrations/\(model)/", with: "\(migrationsFolder)/\(model)/")
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
            if destinations.contains(table.name) { tables.insert(table.name); continue }
            // The table its rows go to, through the hop's mapping of its entities.
            for entity in first.source.entities where entity.root == table.entity {
                guard let destination = first.mapping.entityMappings.first(where: { $0.source == entity.name })?.destination,
                      let root = first.destination.entity(named: destination)?.root,
                      let target = first.destinationLayout.table(forEntity: root) else { continue }
                if destinations.contains(target.name) { tables.insert(table.name); break }
            }
        }
        for step in first.steps {
            for invocation in step.policies {
                if let root = first.source.entity(named: invocation.sourceEntity)?.root, let table = first.sourceLayout.table(forEntity: root) {
                    tables.insert(table.name)
                }
            }
        }
        return tables
    }

    /// References of the store that already point at no object, with the check that
    /// finds them; counted when the store is small enough to plan exactly or
    /// `exact` (apply carries them either way).
    func danglingReferences(store: Store, version: CompiledVersion, layout: StorageLayout, counter: inout RowCounter,
                            exact: Bool) throws -> [(references: DanglingReferences, check: MigrationCheck)] {
        if !exact {
            for table in layout.tables where try counter.exists(table.name) {
                if try counter.estimate(table.name) > RowCounter.exactCountLimit { return [] }
            }
        }
        var found: [(references: DanglingReferences, check: MigrationCheck)] = []
        for check in Migrator.relationshipChecks(version, layout: layout) {
            guard let key = check.reference else { continue }
            let rows = try store.connection.scalarInt64(check.sql) ?? 0
            if rows > 0 { found.append((DanglingReferences(reference: key, summary: check.summary, rows: rows), check)) }
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
                      let entity = hop.source.entity(named: sourceName) else { continue }
                let missing = inputs.filter { entity.attribute(named: $0) == nil && entity.relationship(named: $0) == nil }
                if !missing.isEmpty {
                    let file = hop.mapping.mappingFile.map { " (\($0))" } ?? ""
                    problems.append("""
                        policy \(policy) reads \(missing.map { "\(sourceName).\($0)" }.joined(separator: ", ")), \
                        which version \(hop.source.version) does not have: is the mapping file\(file) meant for another hop?
                        """)
                }
            }
        }
        if !problems.isEmpty {
            throw PlanningError(.noPath, problems.joined(separator: "\n"))
        }
    }

    /// True when the inferred hop `from` → `to` changes stored values rather than
    /// only moving them: nil values filled with a default, a to-many made to-one
    /// (or the reverse), an order added or dropped, a pair made one-to-one, or a
    /// to-many without an inverse that keeps one owner per destination.
    static func normalizesData(from source: CompiledVersion, to destination: CompiledVersion, knownPolicies: Set<String>?) -> Bool {
        guard let mapping = try? MappingResolver.resolve(chain: [source, destination], file: nil, knownPolicies: knownPolicies) else { return false }
        for entityMapping in mapping.entityMappings {
            guard let destinationName = entityMapping.destination, let entity = destination.entity(named: destinationName),
                  let sourceEntity = entityMapping.source.flatMap({ source.entity(named: $0) }) else { continue }
            for property in entityMapping.properties {
                switch property.source {
                case .convert(_, .fillDefault), .convert(_, .reshape), .convert(_, .reorder):
                    return true
                case .convert(let from, .widen):
                    let old = sourceEntity.attribute(named: from)?.declaration, new = entity.attribute(named: property.name)?.declaration
                    if old?.isOptional == true, new?.isOptional == false { return true }
                case .copy(let from):
                    if let new = entity.relationship(named: property.name), let old = sourceEntity.relationship(named: from),
                       changesOwnership(old, in: source, to: new, in: destination) {
                        return true
                    }
                default:
                    continue
                }
            }
        }
        return false
    }

    /// A relationship copied as it is whose storage keeps fewer pairs: a to-many
    /// losing its inverse (one owner per destination), or a to-one becoming one
    /// side of a one-to-one.
    private static func changesOwnership(_ old: CompiledRelationship, in source: CompiledVersion,
                                         to new: CompiledRelationship, in destination: CompiledVersion) -> Bool {
        func isOneToOne(_ r: CompiledRelationship, _ version: CompiledVersion) -> Bool {
            guard !r.declaration.isToMany, let inverse = r.declaration.inverse, let owner = r.inverseEntity,
                  let other = version.entity(named: owner)?.relationship(named: inverse) else { return false }
            return !other.declaration.isToMany
        }
        if new.declaration.isToMany, new.declaration.inverse == nil, old.declaration.inverse != nil { return true }
        return isOneToOne(new, destination) && !isOneToOne(old, source)
    }

    /// Columns the store has beyond its layout (written by another tool or a Core
    /// Data feature the model format does not describe) do not survive a rebuild:
    /// say so when they hold values.
    func unknownColumnWarnings(store: Store, layout: StorageLayout, steps: [MigrationStep]) throws -> [MigrationWarning] {
        var warnings: [MigrationWarning] = []
        for step in steps where step.kind == .dropTable {
            guard let name = step.table, let table = layout.table(named: name) else { continue }
            let known = Set(table.columns.map(\.name))
            for column in try store.connection.columns(of: name) where !known.contains(column.name) && !column.isHidden {
                let values = try store.connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(name)) WHERE \(SQLText.q(column.name)) IS NOT NULL") ?? 0
                if values > 0 {
                    warnings.append(MigrationWarning(message: """
                                                         \(name).\(column.name) is not in the layout of the store's version: \
                                                         its \(values) non-nil value\(values == 1 ? "" : "s") will be lost when \(name) is rebuilt
                                                         """, isDestructive: true))
                }
            }
        }
        return warnings
    }
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

/// Counts rows for plans, each count once.
package struct RowCounter {
    let connection: Connection
    /// Count every row even in large tables (`plan --exact-counts`).
    var exact = false
    var cache: [String: Int64] = [:]
    /// Tables above this many rows are not scanned for a plan: their row count is
    /// the highest row id (exact unless rows were deleted), and dropped values are
    /// checked for presence only, so that planning stays fast on large stores.
    package static let exactCountLimit: Int64 = 1_000_000
    /// The limit in use.
    var limit = exactCountLimit
    /// `countValues`' answer for "some, not counted".
    static let notCounted: Int64 = -1

    mutating func estimate(_ table: String) throws -> Int64 {
        try connection.scalarInt64("SELECT max(rowid) FROM \(SQLText.q(table))") ?? 0
    }

    var existing: Set<String>?

    /// Tables a later hop creates do not exist yet: they count as empty (the plan's
    /// counts for later hops are the store's counts now).
    mutating func exists(_ table: String) throws -> Bool {
        if existing == nil { existing = Set(try connection.tables()) }
        return existing!.contains(table)
    }

    mutating func count(_ table: String, _ numbers: [Int]?) throws -> Int64 {
        let key = "\(table)|\(numbers.map { $0.map(String.init).joined(separator: ",") } ?? "*")"
        if let known = cache[key] { return known }
        guard try exists(table) else { return 0 }
        let filter = numbers.map { " WHERE Z_ENT IN (\(SQLText.list($0)))" } ?? ""
        let value = try tooLargeToScan(table)
            ?? connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(table))\(filter)") ?? 0
        cache[key] = value
        return value
    }

    /// The estimated row count of an existing table over the limit, which a plan does
    /// not scan (nil when it may be scanned: small, or every row counted).
    mutating func tooLargeToScan(_ table: String) throws -> Int64? {
        guard !exact, try exists(table) else { return nil }
        let rows = try estimate(table)
        return rows > limit ? rows : nil
    }

    mutating func countValues(_ table: String, _ column: String, _ numbers: [Int]) throws -> Int64 {
        guard try exists(table), try connection.columns(of: table).contains(where: { $0.name == column }) else { return 0 }
        if try tooLargeToScan(table) != nil {
            let any = try connection.scalarInt64("""
                SELECT EXISTS (SELECT 1 FROM \(SQLText.q(table)) \
                WHERE \(SQLText.q(column)) IS NOT NULL AND Z_ENT IN (\(SQLText.list(numbers))))
                """) ?? 0
            return any == 0 ? 0 : Self.notCounted
        }
        return try connection.scalarInt64("SELECT count(\(SQLText.q(column))) FROM \(SQLText.q(table)) WHERE Z_ENT IN (\(SQLText.list(numbers)))") ?? 0
    }
}
