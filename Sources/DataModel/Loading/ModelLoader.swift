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
            guard let entries = listing(path, into: &result) else { return result }
            let yamlFiles = entries.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            if !yamlFiles.isEmpty {
                loadModel(files: yamlFiles.map { join(path, $0) }, folder: path, into: &result)
            } else {
                let folders = entries.filter { !$0.hasPrefix(".") && isFolder(join(path, $0)) }
                for folder in folders {
                    guard let inner = listing(join(path, folder), into: &result) else { continue }
                    let files = inner.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
                    if files.isEmpty {
                        result.diagnostics.append(
                            Diagnostic(
                                .error, "\(join(path, folder)): model has no versions (expected 1.yaml, 2.yaml, …)",
                                at: nil))
                    } else {
                        loadModel(
                            files: files.map { join(join(path, folder), $0) }, folder: join(path, folder), into: &result
                        )
                    }
                }
                if folders.isEmpty {
                    result.diagnostics.append(
                        Diagnostic(.error, "\(path): no models found (expected \(path)/<Model>/1.yaml)", at: nil))
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
                throw DiagnosticsError([
                    Diagnostic(
                        .error,
                        "\(path): no model named '\(name)' (found: \(models.map(\.name).joined(separator: ", ")))",
                        at: nil)
                ])
            }
            return model
        }
        guard models.count == 1 else {
            throw DiagnosticsError([
                Diagnostic(
                    .error,
                    """
                    \(path): \(models.count) models found (\(models.map(\.name).joined(separator: ", "))); \
                    name one with --model
                    """, at: nil)
            ])
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

    /// A folder's entries, sorted; nil (with an error) when it cannot be read: an
    /// unreadable folder is never taken for an empty one.
    private static func listing(_ path: String, into result: inout ModelLoadResult) -> [String]? {
        do {
            return try (DirectoryListing.entries(path) ?? []).sorted()
        } catch {
            result.diagnostics.append(Diagnostic(.error, error.description, at: nil))
            return nil
        }
    }

    private static func join(_ a: String, _ b: String) -> String {
        a.hasSuffix("/") ? a + b : a + "/" + b
    }

    private static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// What a version file's name says about its number.
    enum FileVersion: Equatable {
        /// `3.yaml` → 3.
        case number(Int)
        /// Digits that do not fit an `Int` (the digits, for the message).
        case tooLarge(String)
        /// Not `<N>.yaml` with N = 1, 2, 3, …
        case notAVersion
    }

    /// The version number a file name promises: `3.yaml` → 3.
    static func versionNumber(ofFile path: String) -> Int? {
        if case .number(let n) = fileVersion(path) { return n }
        return nil
    }

    static func fileVersion(_ path: String) -> FileVersion {
        let name = (path as NSString).lastPathComponent
        let stem =
            name.hasSuffix(".yaml")
            ? String(name.dropLast(5)) : name.hasSuffix(".yml") ? String(name.dropLast(4)) : name
        // `01.yaml` is refused: one version, one spelling of its number.
        guard !stem.isEmpty, !stem.hasPrefix("0"),
            stem.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            return .notAVersion
        }
        // `Int(_:)` refuses what overflows rather than trapping; the digits are
        // kept for the message (they are ASCII, so printing them is safe).
        guard let n = Int(stem) else { return .tooLarge(stem) }
        return .number(n)
    }

    /// The numbers missing from 1 through the highest of `numbers`, as runs:
    /// `[1, 4, 100]` → `2, 3, 5–99`. One entry per gap, so a file named
    /// `9223372036854775807.yaml` costs no more than `3.yaml`.
    static func missingVersions(_ numbers: [Int]) -> (text: String, count: Int)? {
        var runs: [String] = []
        var count = 0
        var previous = 0
        for n in Set(numbers).sorted() where n > previous {
            // Both are at least `previous + 1` apart and positive: no overflow.
            if n - previous > 1 {
                let (first, last) = (previous + 1, n - 1)
                switch last - first {
                case 0: runs.append("\(first)")
                case 1: runs.append("\(first), \(last)")
                default: runs.append("\(first)–\(last)")
                }
                // The gaps together are fewer than the highest number: no overflow.
                count += last - first + 1
            }
            previous = n
        }
        return runs.isEmpty ? nil : (runs.joined(separator: ", "), count)
    }

    private static func loadModel(files: [String], folder: String?, into result: inout ModelLoadResult) {
        var versions: [ModelVersionDescription] = []
        var failed = false
        var byNumber: [Int: String] = [:]
        var compiledVersions: [CompiledVersion] = []
        for file in files {
            let diagnosticsBefore = result.diagnostics.count
            guard let decoded = decodeVersionFile(file, byNumber: &byNumber, into: &result) else {
                failed = true
                continue
            }
            if decoded.failed { failed = true }
            let (versionFailed, compiledVersion) = checkVersion(
                decoded.version, fileNumber: decoded.number, folder: folder,
                since: diagnosticsBefore, into: &result)
            if versionFailed { failed = true }
            versions.append(decoded.version)
            if let compiledVersion { compiledVersions.append(compiledVersion) }
        }
        let name = folder.map { ($0 as NSString).lastPathComponent } ?? versions.first?.model ?? "?"
        if let folder, !checkVersionNumbers(of: folder, byNumber: byNumber, files: files, into: &result) {
            failed = true
        }
        versions.sort { $0.version < $1.version }
        var compiled: CompiledModel?
        if !failed, !versions.isEmpty {
            compiledVersions.sort { $0.version < $1.version }
            compiled = CompiledModel(name: versions[0].model, versions: compiledVersions)
        }
        result.models.append(
            LoadedModel(name: name, path: folder ?? files.first ?? "", versions: versions, compiled: compiled))
    }

    /// A version file's number (from its name, once per model), read and decoded;
    /// nil when it cannot be, `failed` when decoding reported an error.
    private static func decodeVersionFile(
        _ file: String, byNumber: inout [Int: String],
        into result: inout ModelLoadResult
    ) -> (version: ModelVersionDescription, number: Int, failed: Bool)? {
        let fileNumber: Int
        switch fileVersion(file) {
        case .number(let n):
            fileNumber = n
        case .tooLarge(let digits):
            result.diagnostics.append(
                Diagnostic(
                    .error, "\(file): version number \(digits) is too large (at most \(Int.max))", at: nil,
                    hint: "versions are numbered 1, 2, 3, … without gaps"))
            return nil
        case .notAVersion:
            result.diagnostics.append(
                Diagnostic(
                    .error, "\(file): a version file is named <N>.yaml with N = 1, 2, 3, …", at: nil,
                    hint: "rename it, or move it out of the model folder"))
            return nil
        }
        if let other = byNumber[fileNumber] {
            result.diagnostics.append(
                Diagnostic(.error, "\(file): duplicate version \(fileNumber) (also \(other))", at: nil))
            return nil
        }
        byNumber[fileNumber] = file
        guard let data = FileManager.default.contents(atPath: file) else {
            result.diagnostics.append(Diagnostic(.error, "\(file): cannot read the file", at: nil))
            return nil
        }
        let bytes = [UInt8](data)
        if bytes.count <= YAMLLoader.maximumFileSize {
            result.sources[file] = String(decoding: bytes, as: UTF8.self)
        }
        let root: YAMLNode
        do {
            root = try YAMLLoader.load(bytes: bytes, file: file)
        } catch {
            result.diagnostics.append(
                Diagnostic(.error, error.message, at: error.location ?? SourceLocation(file: file, line: 1, column: 1)))
            return nil
        }
        var decoder = ModelDecoder(file: file)
        let decoded = decoder.decode(root)
        result.diagnostics += decoder.reader.diagnostics
        guard let version = decoded else { return nil }
        return (version, fileNumber, decoder.reader.diagnostics.contains(where: { $0.severity == .error }))
    }

    /// A decoded version's own checks: its number against its file name, its model
    /// against its folder, the model's rules, and (when all of these pass since
    /// `diagnosticsBefore`) what only the layout shows, compiled.
    private static func checkVersion(
        _ version: ModelVersionDescription, fileNumber: Int, folder: String?, since diagnosticsBefore: Int,
        into result: inout ModelLoadResult
    ) -> (failed: Bool, compiled: CompiledVersion?) {
        var failed = false
        if version.version != 0, version.version != fileNumber {
            result.diagnostics.append(
                Diagnostic(
                    .error, "version: the file is named \(fileNumber).yaml but says version \(version.version)",
                    at: version.versionLocation,
                    hint: "a version's number is its file name; add a new file for a new version"))
            failed = true
        }
        if let folder, !version.model.isEmpty {
            let folderName = (folder as NSString).lastPathComponent
            if version.model != folderName {
                result.diagnostics.append(
                    Diagnostic(
                        .error, "model: '\(version.model)' differs from its folder's name '\(folderName)'",
                        at: version.modelLocation))
                failed = true
            }
        }
        let inheritance = Inheritance(version)
        let semantic = ModelValidator.validate(version, inheritance: inheritance)
        result.diagnostics += semantic
        if semantic.contains(where: { $0.severity == .error }) { failed = true }
        // What only the layout shows is checked for every version that is
        // otherwise valid, so that one run reports it with every other problem.
        guard !result.diagnostics[diagnosticsBefore...].contains(where: { $0.severity == .error }) else {
            return (failed, nil)
        }
        let (compiledVersion, layoutProblems) = ModelCompiler.compileCheckingLayout(version, inheritance: inheritance)
        result.diagnostics += layoutProblems
        if layoutProblems.contains(where: { $0.severity == .error }) { failed = true }
        return (failed, compiledVersion)
    }

    /// A model folder's versions are numbered 1, 2, 3, … without gaps; false after
    /// reporting a gap or an empty folder.
    private static func checkVersionNumbers(
        of folder: String, byNumber: [Int: String], files: [String], into result: inout ModelLoadResult
    ) -> Bool {
        if !byNumber.isEmpty {
            if let missing = missingVersions(Array(byNumber.keys)) {
                result.diagnostics.append(
                    Diagnostic(
                        .error,
                        """
                        \(folder): missing version\(missing.count > 1 ? "s" : "") \(missing.text) \
                        (versions are numbered 1, 2, 3, … without gaps)
                        """, at: nil))
                return false
            }
        } else if files.isEmpty {
            result.diagnostics.append(Diagnostic(.error, "\(folder): model has no versions", at: nil))
            return false
        }
        return true
    }
}
