import Foundation

/// A model read from `Models/<Name>/`: its version descriptions and, when every
/// version is valid, the compiled model.
public struct LoadedModel: Sendable {
    /// The model's name (its folder's name).
    public var name: String
    /// The folder (or, for a single file, the file) it was read from.
    public var path: String
    /// Version descriptions in ascending order (only those that decoded).
    public var versions: [ModelVersionDescription]
    /// The compiled model; `nil` when any version has errors.
    public var compiled: CompiledModel?
}

/// What loading a path produced: models, every diagnostic, and the source texts
/// (for rendering excerpts).
public struct ModelLoadResult: Sendable {
    /// The models found.
    public var models: [LoadedModel]
    /// Every diagnostic, errors and warnings, in file and position order.
    public var diagnostics: [Diagnostic]
    /// File path → text, for `DiagnosticRenderer`.
    public var sources: [String: String]

    /// True when there is at least one error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// The compiled models, or a `DiagnosticsError` with every diagnostic.
    public func compiledModels() throws(DiagnosticsError) -> [CompiledModel] {
        if hasErrors { throw DiagnosticsError(diagnostics) }
        return models.compactMap(\.compiled)
    }
}

/// Reads `Models/` trees: a folder of models, one model's folder, or one version file.
public enum ModelLoader {
    /// Loads, validates and compiles everything under `path`.
    ///
    /// - A file: one version (`Models/Contacts/2.yaml`), checked on its own.
    /// - A folder holding `<N>.yaml` files: one model, every version.
    /// - Any other folder: each subfolder is a model (`./Models`).
    public static func load(path: String) -> ModelLoadResult {
        var result = ModelLoadResult(models: [], diagnostics: [], sources: [:])
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            result.diagnostics.append(Diagnostic(.error, "\(path): no such file or folder", at: nil))
            return result
        }
        if !isDirectory.boolValue {
            loadModel(files: [path], folder: nil, into: &result)
        } else {
            let entries = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
            let yamlFiles = entries.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            if !yamlFiles.isEmpty {
                loadModel(files: yamlFiles.map { join(path, $0) }, folder: path, into: &result)
            } else {
                let folders = entries.filter { !$0.hasPrefix(".") && isFolder(join(path, $0)) }
                for folder in folders {
                    let inner = ((try? FileManager.default.contentsOfDirectory(atPath: join(path, folder))) ?? []).sorted()
                    let files = inner.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
                    if files.isEmpty {
                        result.diagnostics.append(Diagnostic(.error, "\(join(path, folder)): model has no versions (expected 1.yaml, 2.yaml, …)", at: nil))
                    } else {
                        loadModel(files: files.map { join(join(path, folder), $0) }, folder: join(path, folder), into: &result)
                    }
                }
                if folders.isEmpty {
                    result.diagnostics.append(Diagnostic(.error, "\(path): no models found (expected \(path)/<Model>/1.yaml)", at: nil))
                }
            }
        }
        result.diagnostics.sort(by: diagnosticOrder)
        return result
    }

    /// Loads and compiles exactly one model (the only one under `path`, or the one named).
    public static func loadModel(path: String, named name: String? = nil) throws(DiagnosticsError) -> CompiledModel {
        let result = load(path: path)
        let models = try result.compiledModels()
        if let name {
            guard let model = models.first(where: { $0.name == name }) else {
                throw DiagnosticsError([Diagnostic(.error, "\(path): no model named '\(name)' (found: \(models.map(\.name).joined(separator: ", ")))", at: nil)])
            }
            return model
        }
        guard models.count == 1 else {
            throw DiagnosticsError([Diagnostic(.error, "\(path): \(models.count) models found (\(models.map(\.name).joined(separator: ", "))); name one with --model", at: nil)])
        }
        return models[0]
    }

    static func diagnosticOrder(_ a: Diagnostic, _ b: Diagnostic) -> Bool {
        let la = a.location, lb = b.location
        switch (la, lb) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case let (l?, r?):
            if l.file != r.file { return l.file.localizedStandardCompare(r.file) == .orderedAscending }
            return (l.line, l.column) < (r.line, r.column)
        }
    }

    private static func join(_ a: String, _ b: String) -> String {
        a.hasSuffix("/") ? a + b : a + "/" + b
    }

    private static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The version number a file name promises: `3.yaml` → 3.
    static func versionNumber(ofFile path: String) -> Int? {
        let name = (path as NSString).lastPathComponent
        let stem = name.hasSuffix(".yaml") ? String(name.dropLast(5)) : name.hasSuffix(".yml") ? String(name.dropLast(4)) : name
        // `01.yaml` is refused: one version, one spelling of its number.
        guard !stem.isEmpty, !stem.hasPrefix("0"), stem.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(stem), n >= 1 else { return nil }
        return n
    }

    private static func loadModel(files: [String], folder: String?, into result: inout ModelLoadResult) {
        var versions: [ModelVersionDescription] = []
        var failed = false
        var byNumber: [Int: String] = [:]
        for file in files {
            let fileNumber = versionNumber(ofFile: file)
            if fileNumber == nil {
                result.diagnostics.append(Diagnostic(.error, "\(file): a version file is named <N>.yaml with N = 1, 2, 3, …", at: nil,
                                                     hint: "rename it, or move it out of the model folder"))
                failed = true
                continue
            }
            if let n = fileNumber, let other = byNumber[n] {
                result.diagnostics.append(Diagnostic(.error, "\(file): duplicate version \(n) (also \(other))", at: nil))
                failed = true
                continue
            }
            if let n = fileNumber { byNumber[n] = file }
            guard let data = FileManager.default.contents(atPath: file) else {
                result.diagnostics.append(Diagnostic(.error, "\(file): cannot read the file", at: nil))
                failed = true
                continue
            }
            let bytes = [UInt8](data)
            if bytes.count <= YAMLLoader.maximumFileSize {
                result.sources[file] = String(decoding: bytes, as: UTF8.self)
            }
            let root: YAMLNode
            do {
                root = try YAMLLoader.load(bytes: bytes, file: file)
            } catch {
                result.diagnostics.append(Diagnostic(.error, error.message, at: error.location ?? SourceLocation(file: file, line: 1, column: 1)))
                failed = true
                continue
            }
            var decoder = ModelDecoder(file: file)
            guard let version = decoder.decode(root) else {
                result.diagnostics += decoder.reader.diagnostics
                failed = true
                continue
            }
            result.diagnostics += decoder.reader.diagnostics
            if decoder.reader.diagnostics.contains(where: { $0.severity == .error }) { failed = true }
            if let fileNumber, version.version != 0, version.version != fileNumber {
                result.diagnostics.append(Diagnostic(.error, "version: the file is named \(fileNumber).yaml but says version \(version.version)",
                                                     at: version.versionLocation, hint: "a version's number is its file name; add a new file for a new version"))
                failed = true
            }
            if let folder, !version.model.isEmpty {
                let folderName = (folder as NSString).lastPathComponent
                if version.model != folderName {
                    result.diagnostics.append(Diagnostic(.error, "model: '\(version.model)' differs from its folder's name '\(folderName)'",
                                                         at: version.modelLocation))
                    failed = true
                }
            }
            let semantic = ModelValidator.validate(version)
            result.diagnostics += semantic
            if semantic.contains(where: { $0.severity == .error }) { failed = true }
            versions.append(version)
        }
        let name = folder.map { ($0 as NSString).lastPathComponent } ?? versions.first?.model ?? "?"
        if let folder {
            let numbers = byNumber.keys.sorted()
            if let highest = numbers.last {
                let missing = (1...highest).filter { byNumber[$0] == nil }
                if !missing.isEmpty {
                    result.diagnostics.append(Diagnostic(.error, "\(folder): missing version\(missing.count > 1 ? "s" : "") \(missing.map(String.init).joined(separator: ", ")) (versions are numbered 1, 2, 3, … without gaps)", at: nil))
                    failed = true
                }
            } else if files.isEmpty {
                result.diagnostics.append(Diagnostic(.error, "\(folder): model has no versions", at: nil))
                failed = true
            }
        }
        versions.sort { $0.version < $1.version }
        var compiled: CompiledModel?
        if !failed, !versions.isEmpty {
            compiled = CompiledModel(name: versions[0].model, versions: versions.map(ModelCompiler.compile))
        }
        result.models.append(LoadedModel(name: name, path: folder ?? files.first ?? "", versions: versions, compiled: compiled))
    }
}
