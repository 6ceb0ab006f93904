package import DataModel
import Foundation

/// The mapping files of a model: `Migrations/<Model>/<A>-to-<B>.yaml`.
package struct MappingFiles: Sendable {
    /// Files by (A, B).
    package var files: [MappingFile]
    /// Problems found while reading them.
    package var diagnostics: [Diagnostic]
    /// Source texts for rendering.
    package var sources: [String: String]

    /// Reads every mapping file of `model` under `folder`. A missing folder means
    /// none; a folder that exists but cannot be read to the end (permissions, no
    /// file descriptors left, an I/O error) is an error, never "none": reading it as
    /// empty would infer hops the user mapped.
    ///
    /// Nothing in the folder is ignored silently: a file not named
    /// `<A>-to-<B>.yaml`, one mapping a version onto itself or backwards, and (given
    /// the model's `versions`) one naming a version the model does not have is an
    /// error naming the file, so `validate`, `plan` and `apply` refuse it alike.
    /// Folders (`Policies/`, where `import` writes policy skeletons) and hidden files
    /// are not mapping files and are skipped.
    /// Folders under `folder` that hold `.yaml` files but are named after none of
    /// `models` (`Migrations/Musics/`, `Migrations/1-to-2.yaml.d/`): nothing reads
    /// them, so a mapping written there would silently not be used.
    package static func strayFolders(in folder: String, models: Set<String>) -> [Diagnostic] {
        guard let names = try? DirectoryListing.entries(folder) else { return [] }
        var diagnostics: [Diagnostic] = []
        for name in names.sorted() where !name.hasPrefix(".") && name != "Policies" && !models.contains(name) {
            let path = (folder as NSString).appendingPathComponent(name)
            guard models.contains(where: { $0.lowercased() == name.lowercased() }) == false,
                let inside = try? DirectoryListing.entries(path),
                inside.contains(where: { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") })
            else { continue }
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(path): holds YAML files but is the mapping folder of no model (models: \
                    \(models.sorted().joined(separator: ", "))); nothing in it would be read (name it after its model, \
                    or move it out of \(folder))
                    """, at: nil))
        }
        return diagnostics
    }

    package static func load(folder: String, model: String, versions: [Int]? = nil) -> MappingFiles {
        var result = MappingFiles(files: [], diagnostics: [], sources: [:])
        let directory = folder.hasSuffix("/") ? folder + model : folder + "/" + model
        let names: [String]
        do {
            // The parent first: an unreadable `Migrations/` hides whether `<Model>` exists.
            guard let siblings = try DirectoryListing.entries(folder) else { return result }
            result.diagnostics += caseMismatches(siblings, folder: folder, model: model)
            guard let listed = try DirectoryListing.entries(directory) else { return result }
            names = listed
        } catch {
            result.diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(error.description); its mapping files decide how stores are migrated, so nothing is planned \
                    without them (make it readable by this user, or pass --migrations)
                    """, at: nil))
            return result
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            result.read(name, in: directory, model: model, versions: versions)
        }
        return result
    }

    /// `Migrations/music` for model `Music`: read on macOS, ignored on Linux.
    private static func caseMismatches(_ siblings: [String], folder: String, model: String) -> [Diagnostic] {
        siblings.sorted().filter { $0 != model && $0.lowercased() == model.lowercased() }.map { sibling in
            Diagnostic(
                .error,
                """
                \((folder as NSString).appendingPathComponent(sibling)): the mapping folder of model \(model) is named \
                \(model) exactly (names are case-sensitive here); nothing in this one would be read
                """, at: nil)
        }
    }

    /// Reads one entry of a model's mapping folder: a mapping file, or the reason
    /// none could use it.
    private mutating func read(_ name: String, in directory: String, model: String, versions: [Int]?) {
        let path = directory + "/" + name
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            // `Policies/` holds the skeletons `import` writes; any other folder
            // (`1-to-2.yaml/`, `sub/`) would hide mapping files nothing reads.
            if name != "Policies" {
                refuse(
                    """
                    \(path): a folder in a model's mapping folder: it holds mapping files (<A>-to-<B>.yaml) and a \
                    Policies folder only, and nothing in this one would be read (move its files up, or out of \
                    \(directory))
                    """)
            }
            return
        }
        // The reviewed losses of the model's hops (`--fail-on-destructive`), read by
        // the gate, not a mapping.
        if name == "accepted-losses.yaml" { return }
        guard name.hasSuffix(".yaml") || name.hasSuffix(".yml") else {
            // `1-to-2.yaml.orig`, `1to2.txt`, `notes.md`: read by nothing, so a
            // mapping written in it would silently not be used.
            refuse(
                """
                \(path): not a mapping file: a model's mapping folder holds files named <A>-to-<B>.yaml (e.g. \
                1-to-2.yaml), and this one would be ignored (rename it, or move it out of \(directory))
                """)
            return
        }
        let (file, diagnostics, text) = MappingFile.parse(path: path)
        if let text { self.sources[path] = text }
        self.diagnostics += diagnostics
        guard let file else { return }
        // A file maps a version to a later one: one hop (`1-to-2.yaml`) or a span
        // (`1-to-5.yaml`, as apps ship Core Data mapping models from an old version
        // straight to a newer one). Downgrades and a version onto itself are refused.
        if file.destinationVersion <= file.sourceVersion {
            refuse(
                """
                \(path): a mapping file maps a version to a later one, <A>-to-<B>.yaml with B > A (a hop, e.g. \
                1-to-2.yaml, or a span, e.g. 1-to-5.yaml)
                """)
            return
        }
        // A version the model does not have (`2-to-9.yaml` with versions 1 to 5):
        // no store ever takes the path, so the file would be ignored.
        if let versions,
            let missing = [file.sourceVersion, file.destinationVersion].first(where: { !versions.contains($0) })
        {
            refuse(
                """
                \(path): maps version \(file.sourceVersion) to \(file.destinationVersion), but model \(model) has no \
                version \(missing) (its versions: \(Self.describe(versions))); no migration would ever use this file
                """)
            return
        }
        // Two files for the same versions (`2-to-3.yaml` and `02-to-3.yaml`, or a
        // `.yml` beside a `.yaml`): using either would silently ignore the other.
        if let twin = self.files.first(where: {
            $0.sourceVersion == file.sourceVersion && $0.destinationVersion == file.destinationVersion
        }) {
            refuse(
                """
                \(path): maps version \(file.sourceVersion) to \(file.destinationVersion), as \(twin.path) does; keep \
                one file for these versions
                """)
            return
        }
        self.files.append(file)
    }

    /// An entry of the mapping folder no mapping can be read from, and why.
    private mutating func refuse(_ message: String) {
        diagnostics.append(Diagnostic(.error, message, at: nil))
    }

    /// `1 to 5`, or the numbers when there are gaps.
    private static func describe(_ versions: [Int]) -> String {
        guard let low = versions.min(), let high = versions.max() else { return "none" }
        return versions.count == high - low + 1
            ? "\(low) to \(high)" : versions.map(String.init).joined(separator: ", ")
    }

    /// The file for A → B (a hop or a span), if any.
    package func file(from a: Int, to b: Int) -> MappingFile? {
        files.first { $0.sourceVersion == a && $0.destinationVersion == b }
    }

    /// The files mapping version `a` to a later version, furthest first.
    public func files(from a: Int) -> [MappingFile] {
        files.filter { $0.sourceVersion == a }.sorted { $0.destinationVersion > $1.destinationVersion }
    }

    /// The spans: files mapping a version to one more than a hop later.
    public var spans: [MappingFile] { files.filter { $0.destinationVersion - $0.sourceVersion > 1 } }
}
