import CoreDataImport
import DataModel
import Foundation
import ModelMigration

extension Import {
    /// Every `.xcmappingmodel` under the --mapping-models folders, read and converted.
    func convertMappingModels(compiled: CompiledModel, imported: ImportedModel) throws -> ImportedMappings {
        var read: [XcodeMappingModel] = []
        var unread: [(path: String, reason: String)] = []
        let fileManager = FileManager.default
        for folder in mappingModels {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: folder, isDirectory: &isDirectory) else {
                throw global.fail("\(folder): no such folder (--mapping-models)", .failed)
            }
            guard isDirectory.boolValue else {
                throw global.fail(
                    """
                    \(folder): a file, not a folder (--mapping-models takes the folder that holds the .xcmappingmodel \
                    bundles)
                    """,
                    .failed)
            }
            var found: [String] = []
            if folder.hasSuffix(".xcmappingmodel") { found.append(folder) }
            let entries = (fileManager.enumerator(atPath: folder)?.allObjects as? [String] ?? []).sorted()
            found += entries.filter { $0.hasSuffix(".xcmappingmodel") || $0.hasSuffix(".cdm") }
                .filter { !$0.contains(".xcmappingmodel/") }
                .map { (folder as NSString).appendingPathComponent($0) }
            func stem(_ path: String) -> String {
                ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            }
            let compiledFiles = Dictionary(found.filter { $0.hasSuffix(".cdm") }.map { (stem($0), $0) }) { first, _ in
                first
            }
            for path in found where path.hasSuffix(".xcmappingmodel") {
                let xml = (path as NSString).appendingPathComponent("xcmapping.xml")
                if fileManager.fileExists(atPath: xml) {
                    do { read.append(try XcodeMappingModel.read(path: path)) } catch {
                        unread.append((path, error.problems.joined(separator: "; ")))
                    }
                } else if let cdm = compiledFiles[stem(path)] {
                    // No editing copy, but what mapc compiled from it: read that instead.
                    do { read.append(try XcodeMappingModel.readCompiled(cdm: cdm, path: path)) } catch {
                        unread.append(
                            (
                                path,
                                "no xcmapping.xml, and its compiled \(stem(path)).cdm cannot be read: "
                                    + error.problems.joined(separator: "; ")
                            ))
                    }
                } else {
                    unread.append(
                        (path, "no xcmapping.xml in the folder (and no compiled \(stem(path)).cdm beside it)"))
                }
            }
            let sourceNames = Set(found.filter { $0.hasSuffix(".xcmappingmodel") }.map(stem))
            for path in found where path.hasSuffix(".cdm") && !sourceNames.contains(stem(path)) {
                do { read.append(try XcodeMappingModel.readCompiled(cdm: path, path: path)) } catch {
                    unread.append((path, error.problems.joined(separator: "; ")))
                }
            }
        }
        let bundleName = ((path.hasSuffix("/") ? String(path.dropLast()) : path) as NSString).lastPathComponent
        let stem = (bundleName as NSString).deletingPathExtension
        var converter = MappingModelConverter(model: compiled, versions: imported.versions, bundleName: stem)
        // Only where the recorded paths do not name two versions here.
        let folders = Set(imported.versions.map(\.source))
        let unpaired = read.filter { mappingModel in
            ![mappingModel.sourceModelPath, mappingModel.destinationModelPath].allSatisfy { path in
                path.map { folders.contains(($0 as NSString).lastPathComponent) } ?? false
            }
        }
        converter.versionsOfEmbeddedModels = embeddedVersions(unpaired, compiled: compiled)
            .merging(recordedVersions(unpaired, compiled: compiled)) { embedded, _ in embedded }
        converter.recordedEntityHashes = recordedEntityHashes(read, compiled: compiled)
        return converter.convert(read, unread: unread)
    }
}
