package import DataModel

/// `load`'s fast path: a ``FastRecordReader`` per entity, the one a line's `_entity`
/// names (the loaded entity or a subentity of it; any entity for a whole store's
/// lines), so that lines of a hierarchy or of a whole store are read as fast as lines
/// of one entity.
package struct FastLineReader {
    private let version: CompiledVersion
    /// The loaded entity; nil for a whole store's lines, which name their entity.
    private let base: CompiledEntity?
    /// `base == nil`, kept: comparing the optional description per line copied it.
    private let requiresEntity: Bool
    private var readers: [String: FastRecordReader] = [:]
    /// The reader tried first: the loaded entity's, or the last line's for a whole store.
    private var first: FastRecordReader?
    private var scratch: [UInt8] = []
    /// The last line read.
    package private(set) var record = FastRecordReader.Record(count: 0)

    /// A reader of lines of `entity` (nil: a whole store's lines).
    package init(version: CompiledVersion, entity: CompiledEntity?) {
        self.version = version
        base = entity
        requiresEntity = entity == nil
        if let start = entity ?? version.entities.first { first = reader(for: start) }
    }

    /// Reads `line` into ``record`` and returns its entity's name; nil to leave the line
    /// to the general reader.
    package mutating func read(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        guard var reader = first else { return nil }
        var outcome = reader.read(line, into: &record, scratch: &scratch, requiresEntity: requiresEntity)
        if case .otherEntity(let name) = outcome {
            guard let entity = version.entity(named: name),
                base.map({ ObjectJSONLines.isSame(entity.name, orSubentityOf: $0.name, in: version) }) ?? true
            else { return nil }
            reader = self.reader(for: entity)
            outcome = reader.read(line, into: &record, scratch: &scratch, requiresEntity: true)
            if requiresEntity { first = reader }
        }
        return outcome == .read ? reader.entityName : nil
    }

    private mutating func reader(for entity: CompiledEntity) -> FastRecordReader {
        if let reader = readers[entity.name] { return reader }
        let reader = FastRecordReader(entity: entity, version: version)
        readers[entity.name] = reader
        return reader
    }
}
