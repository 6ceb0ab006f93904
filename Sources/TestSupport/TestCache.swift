import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// What tests running in parallel share: compiled models and the bytes of empty
/// stores (creating a store syncs the disk several times; copying bytes does not).
final class TestCache: Sendable {
    static let shared = TestCache()
    private let models = Locked([String: CompiledModel]())
    private let stores = Locked([CompiledVersion: [UInt8]]())

    func model(_ key: String, _ make: () throws -> CompiledModel) throws -> CompiledModel {
        if let model = models.withLock({ $0[key] }) { return model }
        let model = try make()
        return models.withLock { models in
            if let first = models[key] { return first }
            models[key] = model
            return model
        }
    }

    func storeBytes(_ version: CompiledVersion) throws -> [UInt8] {
        if let bytes = stores.withLock({ $0[version] }) { return bytes }
        let directory = try TemporaryDirectory(prefix: "mm-store")
        defer { directory.remove() }
        let path = directory.file("template.sqlite")
        try Store.create(path: path, version: version).close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return stores.withLock { stores in
            if let first = stores[version] { return first }
            stores[version] = bytes
            return bytes
        }
    }
}
