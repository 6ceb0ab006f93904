package import DataModel

/// Objects inserted together and checked together, all or nothing: see
/// ``ObjectAccess/insertAll(describingSources:keeping:_:)``.
///
/// Each object carries a source number chosen by the caller (a line number, for JSON
/// Lines); refusals name it, and messages about another object of the batch say where
/// that object came from (`Member 1 (line 1)`). A refused object is not written, the
/// batch goes on so that every refusal is found, and in the end nothing is written.
package final class ObjectBatch {
    let access: ObjectAccess
    let describeSource: (Int) -> String
    let limit: Int
    /// ``ObjectAccess/batchKeepsWhatItReads`` when the batch began.
    private let keeps: Bool
    /// Root entity → primary key → source, for every object the batch wrote (as runs:
    /// memory stays flat for a million objects with consecutive keys and sources, and
    /// eight bytes an object for keys in any other order).
    /// By the table's ``ObjectAccess/slot(_:)`` (no hash of the root's name per object),
    /// with the root's name.
    private var sources: [(root: String, runs: KeyRuns)?] = []
    /// Per table slot, the one entity whose rows the table holds (``InsertShape/aloneInTable``).
    private var onlyEntities: [Int64?] = []
    /// Rows the batch wrote and took out again (``rowDeleted(table:key:)``), per table slot.
    private var deletedRows: [Int: Set<Int64>] = [:]
    /// Root entity → keys of the objects whose own line was refused (a `_pk` given, or
    /// a row taken out again when its waiting references were refused): a later check of
    /// a reference to one is not reported, as the line that defines it already is.
    private var refusedObjects: [String: Set<Int64>] = [:]
    /// Root entity number → the highest primary key in use (`Z_PRIMARYKEY.Z_MAX` as the
    /// batch advanced it), written back once, when the batch ends.
    var highestKeys: [Int64: Int64] {
        var all = earlierHighestKeys
        if let last = lastHighest { all[last.root] = last.key }
        return all
    }
    /// The highest keys of every root entity but the last one asked for.
    private var earlierHighestKeys: [Int64: Int64] = [:]
    /// The last root entity asked for and its highest key: a load of one entity reads
    /// and advances it per object with no hashing.
    private var lastHighest: (root: Int64, key: Int64)?
    /// Objects the batch gave a destination through the inverse of a to-many
    /// relationship with a `minCount` (`Item.parts` when a `Part` names its item):
    /// the entity declaring it → the relationship → primary key → the first source.
    private(set) var linked: [String: [String: [Int64: Int]]] = [:]
    /// Whether a reference to an object that is not written yet (a later line, the
    /// object itself) waits for the end of the batch instead of being refused: `load`
    /// takes objects in any order, as `dump` writes them (a child before its parent,
    /// an object whose to-one points at itself, cycles).
    package var resolvesReferencesAtEnd = false
    /// The references that waited: set when the batch ends
    /// (`ObjectAccess.resolveDeferredReferences`), each checked as on insert.
    var deferredReferences = DeferredReferences()
    /// The to-ones written into their rows before their targets were: checked when the
    /// batch ends (`ObjectAccess.checkProvisionalTargets`).
    var provisionalTargets: ProvisionalTargets
    /// The end of each ordered list the batch appended to: list (``OrderedList/slot``)
    /// → owner's key → the highest place among its members, so that appending a member
    /// costs no query. An owner is absent until its list is first read, and forgotten
    /// when the batch writes its list in a way it does not follow (a list given whole).
    private var listEnds: [IntegerTable] = []
    /// Whether a waiting list given whole reserved its places
    /// (`temp.mm_reserved_places`, ``ObjectAccess/reservePlaces(_:key:waiting:positions:batch:)``).
    var reservesPlaces = false
    /// Whether a list given whole by its owner's line moved rows already written into
    /// it (until then, a row whose to-one waited was in no list of that to-one).
    var movedWrittenMembers = false
    /// Whether a row whose to-one waited may be in a list of it now (else the query
    /// for its owners can be left out): always, when the batch keeps nothing.
    var writtenRowsMayHaveOwners: Bool { !keeps || movedWrittenMembers }
    /// Per list (``OrderedList/slot``), the highest owner key its members named when
    /// first asked: a row written later with a higher key owns an empty list.
    private var highestOwners: [Int64?] = []
    /// Per list, the highest owner whose end the batch noted (raises the highest owner
    /// when the list's ends are emptied).
    private var listMaxOwners: [Int64] = []
    /// Destination table (its ``ObjectAccess/slot(_:)``) → primary key → the row's
    /// entity number (`Z_ENT`), for rows a relationship of the batch named: a row keeps
    /// its number, so each target is looked up once (rows are only added while a batch
    /// runs, but for the rows ``rowDeleted(table:key:)`` says were taken out again).
    private var rowEntities: [IntegerTable] = []
    /// Per count query of an inverse side's maximum (``TargetRule/inverseCountSlot``):
    /// target → its objects on that side, read once and then kept as this batch's rows
    /// join, so that a million members of lists with a `maxCount` cost no `count(*)`
    /// each (a load was quadratic in the lists' length). Forgotten whenever the batch
    /// changes a membership another way (a list given whole, join rows, a deferred
    /// reference, a row taken out again).
    private var inverseCounts: [IntegerTable] = []
    /// The source of the object being inserted (for deferred references).
    private(set) var currentSource = 0
    /// How many objects the batch wrote.
    package private(set) var insertedCount = 0
    /// Kept refusals with their arrival order (a tie-breaker among refusals of one source).
    private var kept: [(refusal: ObjectRefusal, order: Int)] = []
    /// How many refusals there were in all.
    package private(set) var refusalCount = 0

    init(access: ObjectAccess, describeSource: @escaping (Int) -> String, limit: Int) {
        self.access = access
        self.describeSource = describeSource
        self.limit = max(1, limit)
        keeps = access.batchKeepsWhatItReads
        cacheLimit = max(1, access.batchCacheLimit)
        provisionalTargets = ProvisionalTargets(memoryLimit: access.provisionalTargetsInMemory)
    }

    /// Inserts one object, checked against the model as
    /// ``ObjectAccess/insert(_:values:relationships:primaryKey:)`` checks it. Returns
    /// its primary key, or nil when the model refuses it (the refusal is recorded, and
    /// the batch will write nothing).
    /// - Throws: `StoreError` for an unknown entity or when the store fails.
    @discardableResult
    package func insert(
        _ entityName: String, values: [String: AttributeValue?] = [:], relationships: [String: [Int64]] = [:],
        positions: [String: Int64] = [:], primaryKey requested: Int64? = nil, source: Int
    ) throws(StoreError) -> Int64? {
        try inserting(entityName, source: source, requested: requested) { shape in
            let key = try access.insertRow(
                shape, values: values, relationships: relationships, positions: positions, primaryKey: requested,
                batch: self)
            if !relationships.isEmpty, shape.notesLinks { noteLinks(shape.entity, relationships, source: source) }
            return key
        }
    }

    /// Records the stored objects this object became a destination of, through the
    /// inverse of a to-many relationship with a `minCount`: their count is checked
    /// when the batch ends (`ObjectAccess.checkBatch`).
    func noteLinks(_ entity: CompiledEntity, _ relationships: [String: [Int64]], source: Int) {
        for (name, targets) in relationships where !targets.isEmpty {
            guard let r = entity.relationship(named: name), let inverse = r.declaration.inverse,
                let owner = r.inverseEntity,
                let other = access.version.entity(named: owner)?.relationship(named: inverse),
                other.declaration.isToMany, (other.declaration.minCount ?? 0) > 0
            else { continue }
            for target in targets where linked[owner]?[inverse]?[target] == nil {
                linked[owner, default: [:]][inverse, default: [:]][target] = source
            }
        }
    }

    /// The stored (non-transient) attributes of an entity, in the order
    /// ``insert(_:attributeValues:primaryKey:source:)`` takes their values.
    package func storedAttributes(of entityName: String) throws(StoreError) -> [CompiledAttribute] {
        try access.insertShape(entityName).attributes.map(\.attribute)
    }

    /// Inserts one object, its values given by position (in the order of
    /// ``storedAttributes(of:)``: `.none` for an attribute not given, so that its default
    /// applies, `.some(nil)` for nil), checked and reported as
    /// ``insert(_:values:relationships:positions:primaryKey:source:)`` does: for loaders
    /// that read a million objects, with no dictionary of values per object.
    @discardableResult
    package func insert(
        _ entityName: String, attributeValues: [AttributeValue??], relationships: [String: [Int64]] = [:],
        positions: [String: Int64] = [:], primaryKey requested: Int64? = nil, source: Int
    ) throws(StoreError) -> Int64? {
        try inserting(entityName, source: source, requested: requested) { shape in
            let key = try access.insertRow(
                shape, given: attributeValues, relationships: relationships, positions: positions,
                primaryKey: requested, batch: self)
            if !relationships.isEmpty, shape.notesLinks { noteLinks(shape.entity, relationships, source: source) }
            return key
        }
    }

    private func inserting(
        _ entityName: String, source: Int, requested: Int64?, _ insertRow: (InsertShape) throws -> Int64
    ) throws(StoreError) -> Int64? {
        currentSource = source
        var root: String?
        do {
            let shape = try access.insertShape(entityName)
            root = shape.rootName
            let key = try insertRow(shape)
            let slot = shape.tableSlot
            while sources.count <= slot {
                sources.append(nil)
                onlyEntities.append(nil)
            }
            if sources[slot] == nil {
                sources[slot] = (shape.rootName, KeyRuns())
                onlyEntities[slot] = shape.aloneInTable ? shape.entityNumber : nil
            }
            sources[slot]?.runs.append(key, number: source)
            insertedCount += 1
            return key
        } catch let refusal as RowRefusal {
            refuse(source: source, field: refusal.field, message: refusal.message)
            if let root, let requested { noteRefusedObject(root: root, key: requested) }
            return nil
        } catch let error as StoreError {
            throw error
        } catch let error as SQLiteError {
            throw StoreError.from(error, path: access.store.path)
        } catch {
            throw StoreError(.sqlite, String(describing: error), path: access.store.path)
        }
    }

    /// The highest primary key in use for a root entity: `Z_PRIMARYKEY.Z_MAX` at
    /// first, then as this batch advanced it.
    func highestKey(root number: Int64) throws(StoreError) -> Int64 {
        if let last = lastHighest, last.root == number { return last.key }
        let key: Int64
        if let earlier = earlierHighestKeys[number] {
            key = earlier
        } else {
            key = try access.highestKeyInUse(root: number)
        }
        makeLast(number, key)
        return key
    }

    /// Makes `root` the last root entity asked for, the one before it kept with the others.
    private func makeLast(_ root: Int64, _ key: Int64) {
        if let last = lastHighest, last.root != root { earlierHighestKeys[last.root] = last.key }
        earlierHighestKeys[root] = nil
        lastHighest = (root, key)
    }

    /// Notes that a root entity's objects now use keys up to `key`.
    func advanceHighestKey(root number: Int64, to key: Int64) {
        if let last = lastHighest, last.root == number {
            lastHighest = (number, key)
        } else {
            makeLast(number, key)
        }
    }

    /// Notes a member's place in `owner`'s list once its row is written: the list's end
    /// when it was appended; a place given (a dump's `_position`) moves a known end (an
    /// unknown one is read from the store when next needed).
    func noteListEnd(_ list: Int, owner: Int64, at place: Int64, appended: Bool) {
        grow(&listEnds, to: list)
        if listEnds[list].count >= cacheLimit {
            // Every owner noted goes back to the store's answer.
            raiseHighestOwner(list, to: listMaxOwners[list])
            listEnds[list].removeAll()
        }
        if appended {
            listEnds[list][owner] = place
            if owner > listMaxOwners[list] { listMaxOwners[list] = owner }
        } else if let end = listEnds[list][owner] {
            if place > end { listEnds[list][owner] = place }
        } else {
            raiseHighestOwner(list, to: owner)
        }
    }

    /// Notes that a member written ahead of its owner (whose row is not written yet)
    /// names `key` in `list`.
    func noteNamedOwner(_ key: Int64, of list: OrderedList) {
        raiseHighestOwner(list.slot, to: key)
    }

    /// From now on, owners up to `key` in `list` have their list's end read from the
    /// store when the batch knows none (a member naming them was written without its
    /// place noted).
    private func raiseHighestOwner(_ slot: Int, to key: Int64) {
        guard slot < highestOwners.count, let highest = highestOwners[slot], key > highest else { return }
        highestOwners[slot] = key
    }

    /// The highest owner key the members of a list (by its slot) name, read once.
    private func highestOwner(_ list: OrderedList) throws(StoreError) -> Int64 {
        let slot = list.slot
        while highestOwners.count <= slot { highestOwners.append(nil) }
        if let known = highestOwners[slot] { return known }
        let highest = try access.wrap { () throws(SQLiteError) -> Int64 in
            try access.connection.scalarInt64(list.highestOwnerSQL) ?? 0
        }
        highestOwners[slot] = highest
        return highest
    }

    /// The end of `owner`'s list as the batch knows it, if it does: noted, or 0 for an
    /// owner above every owner key the list's members named (the store's rows when the
    /// list was first asked for, then every member this batch wrote: each noted its place,
    /// or raised the highest). A new owner's empty list costs nothing per object.
    func listEnd(_ list: OrderedList, owner: Int64) throws(StoreError) -> Int64? {
        guard keeps else { return nil }
        let slot = list.slot
        // Above every owner the batch noted an end for: not in the table (no lookup).
        if slot >= listEnds.count || owner > listMaxOwners[slot] {
            return owner > (try highestOwner(list)) ? 0 : nil
        }
        if let end = listEnds[slot][owner] { return end }
        return owner > (try highestOwner(list)) ? 0 : nil
    }

    /// Forgets the end of `owner`'s list (it is read from the store when next needed).
    func forgetListEnd(_ list: Int, owner: Int64) {
        if list < listEnds.count { listEnds[list][owner] = nil }
        raiseHighestOwner(list, to: owner)
    }

    /// Forgets what it knows of a row taken out again (a refused deferred reference's):
    /// its entity number. A list's end it was at stays as known, one past a place no
    /// longer used: later members still come after every member, and the lists' ends
    /// are not read again per refusal (which made a load of refused members quadratic).
    func rowDeleted(table: Int, key: Int64) {
        if table < rowEntities.count { rowEntities[table][key] = nil }
        deletedRows[table, default: []].insert(key)
        forgetInverseCounts()
    }

    /// A target's count on an inverse side, as the batch knows it.
    func inverseCount(_ slot: Int, target: Int64) -> Int64? {
        keeps && slot < inverseCounts.count ? inverseCounts[slot][target] : nil
    }

    /// Notes a target's count on an inverse side, read from the store.
    func noteInverseCount(_ slot: Int, target: Int64, count: Int64) {
        makeRoom(in: &inverseCounts, slot: slot)
        inverseCounts[slot][target] = count
    }

    /// A row just written joined `target`'s objects on an inverse side.
    func addInverseMember(_ slot: Int, target: Int64) {
        if slot < inverseCounts.count, let count = inverseCounts[slot][target] {
            inverseCounts[slot][target] = count + 1
        }
    }

    /// Forgets every count: they are read from the store again when needed.
    func forgetInverseCounts() {
        if !inverseCounts.isEmpty { inverseCounts = [] }
    }

    /// The entity number noted for a key no row has: the row can only come from this
    /// batch's own `INSERT`, which notes its number. (A row's `Z_ENT` reads as 0 when
    /// NULL, in a damaged store: the sentinel is a number no column read gives.)
    static let noRow = Int64.min

    /// The entity number of a row the batch looked up before (``noRow`` when there
    /// was none), if it did.
    func rowEntity(table: Int, key: Int64) -> Int64? {
        guard keeps else { return nil }
        if table < rowEntities.count, let number = rowEntities[table][key] { return number }
        // A row this batch wrote to a table of one entity (not noted per row).
        guard table < onlyEntities.count, let number = onlyEntities[table],
            sources[table]?.runs.number(for: key) != nil,
            deletedRows[table]?.contains(key) != true
        else { return nil }
        return number
    }

    /// Forgets what the batch noted of a row's entity (a row now written where it
    /// noted none).
    func forgetRowEntity(table: Int, key: Int64) {
        if table < rowEntities.count, !rowEntities[table].isEmpty { rowEntities[table][key] = nil }
    }

    /// Notes a row's entity number.
    func noteRowEntity(_ number: Int64, table: Int, key: Int64) {
        makeRoom(in: &rowEntities, slot: table)
        rowEntities[table][key] = number
    }

    /// How many entries one slot of a cache (list ends, row entities, inverse counts)
    /// keeps before it starts again empty. Each is a cache of what the store holds: an
    /// entry forgotten is read again when next needed. Without a bound, a million rows
    /// each in a list of its own (a tree whose nodes name their parent) kept a million
    /// entries per cache, over a hundred megabytes.
    static let defaultCacheLimit = 1 << 16
    /// ``defaultCacheLimit``, lowered by a test (``ObjectAccess/batchCacheLimit``).
    let cacheLimit: Int

    private func grow(_ books: inout [IntegerTable], to slot: Int) {
        while books.count <= slot { books.append(IntegerTable()) }
        while listMaxOwners.count <= slot { listMaxOwners.append(Int64.min) }
    }

    /// Makes room for one more entry in a cache slot: a full slot starts again empty.
    private func makeRoom(in books: inout [IntegerTable], slot: Int) {
        grow(&books, to: slot)
        if books[slot].count >= cacheLimit { books[slot].removeAll() }
    }

    /// Records a refusal the caller found itself (a line that is not valid JSON, say),
    /// so that it is reported with the others and the batch writes nothing.
    package func refuse(source: Int, field: String?, message: String) {
        refusalCount += 1
        kept.append((ObjectRefusal(source: source, field: field, message: message), refusalCount))
        // Memory stays bounded however many objects are refused: only the first
        // `limit` by source are reported.
        if kept.count >= 4 * limit + 64 { trim() }
    }

    /// Notes that the object `key` of `root`'s table is refused (its line, or its
    /// references that waited).
    package func noteRefusedObject(root: String, key: Int64) {
        refusedObjects[root, default: []].insert(key)
    }

    /// Whether the object `key` of `root`'s table was refused.
    func isRefusedObject(root: String, key: Int64) -> Bool {
        refusedObjects[root]?.contains(key) == true
    }

    /// Whether any object was refused so far.
    package var hasRefusals: Bool { refusalCount > 0 }

    /// The error that reports the refusals, when there are any.
    var refusals: ObjectRefusals? {
        guard refusalCount > 0 else { return nil }
        trim()
        return ObjectRefusals(refusals: kept.map(\.refusal), count: refusalCount)
    }

    private func trim() {
        kept.sort { ($0.refusal.source, $0.order) < ($1.refusal.source, $1.order) }
        if kept.count > limit { kept.removeSubrange(limit...) }
    }

    /// `Member 1`, and where it came from when this batch wrote it: `Member 1 (line 1)`.
    func describe(_ entity: String, _ key: Int64) -> String {
        let root = access.version.entity(named: entity)?.root ?? entity
        return "\(entity) \(key)" + (source(root: root, key: key).map { " (\(describeSource($0)))" } ?? "")
    }

    /// The source of the object of `root`'s table with `key`, when this batch wrote it.
    func source(root: String, key: Int64) -> Int? {
        guard let slot = sources.firstIndex(where: { $0?.root == root }) else { return nil }
        return sources[slot]?.runs.number(for: key)
    }

    /// The root entities the batch wrote objects of, by name, each with their keys in
    /// increasing order.
    func writtenKeys() -> [(root: String, keys: [Int64])] {
        sources.compactMap { $0 }.sorted { $0.root < $1.root }.map { ($0.root, $0.runs.keys) }
    }
}

/// A refusal found while inserting one object, before it is filed under its source.
struct RowRefusal: Error {
    var field: String?
    var message: String

    init(_ field: String?, _ message: String) {
        self.field = field
        self.message = message
    }
}
