package import Foundation
import ScratchFiles

/// The versions of an Xcode data model as read from disk: an `.xcdatamodeld` bundle,
/// a single `.xcdatamodel` folder or a bare `contents` file. A value, so that the
/// conversion (`XcodeModelImporter`) never touches the file system.
package struct XcodeModelBundle: Sendable {
    /// One version: its `.xcdatamodel` folder name and the bytes of its `contents` XML.
    package struct Version: Sendable {
        /// The folder name, `SampleModel 2.xcdatamodel`.
        package var folder: String
        /// The `contents` file's path, for messages.
        package var path: String
        /// The XML text.
        package var contents: Data

        /// Creates a version from its folder name and XML.
        package init(folder: String, path: String, contents: Data) {
            self.folder = folder
            self.path = path
            self.contents = contents
        }

        /// The folder name without `.xcdatamodel`: what Xcode shows.
        package var name: String { folder.hasSuffix(".xcdatamodel") ? String(folder.dropLast(12)) : folder }
    }

    /// The bundle's name without its extension (`SampleModel`), the default model name.
    package var name: String
    /// The path read, for messages and header comments.
    package var path: String
    /// Every version with a `contents` file, in the order found (unordered).
    package var versions: [Version]
    /// The folder `.xccurrentversion` names, when there is one.
    package var currentVersion: String?
    /// Versions that exist only compiled (`.mom`) or without a `contents` file: reported, skipped.
    package var skipped: [String]

    /// Creates a bundle value.
    package init(name: String, path: String, versions: [Version], currentVersion: String? = nil, skipped: [String] = [])
    {
        self.name = name
        self.path = path
        self.versions = versions
        self.currentVersion = currentVersion
        self.skipped = skipped
    }

    /// Reads `path`: an `.xcdatamodeld` folder, an `.xcdatamodel` folder or a `contents` file.
    package static func read(path: String) throws(ImportError) -> XcodeModelBundle {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard fileManager.fileExists(atPath: trimmed, isDirectory: &isDirectory) else {
            throw ImportError(.unreadable, "\(path): no such file or folder")
        }
        let last = (trimmed as NSString).lastPathComponent
        func stem(_ name: String) -> String { (name as NSString).deletingPathExtension }

        if !isDirectory.boolValue {
            // A bare `contents` file: its folder names the version and the model.
            let folder = PathText.parent(of: trimmed)
            let folderName = (folder as NSString).lastPathComponent
            let version = Version(
                folder: folderName.isEmpty || folderName == "." ? last : folderName,
                path: trimmed, contents: try readFile(trimmed))
            return XcodeModelBundle(name: stem(version.folder), path: trimmed, versions: [version])
        }
        if last.hasSuffix(".xcdatamodel") {
            let contents = trimmed + "/contents"
            guard fileManager.fileExists(atPath: contents) else {
                if fileManager.fileExists(atPath: trimmed + "/elements") {
                    return XcodeModelBundle(
                        name: stem(last), path: trimmed,
                        versions: [
                            Version(
                                folder: last, path: trimmed + "/elements",
                                contents: try XcodeThreeModel.contents(ofArchiveAt: trimmed + "/elements"))
                        ])
                }
                throw ImportError(.unreadable, "\(path): no 'contents' file (a compiled model is not supported)")
            }
            return XcodeModelBundle(
                name: stem(last), path: trimmed,
                versions: [Version(folder: last, path: contents, contents: try readFile(contents))])
        }
        let entries: [String]
        do { entries = try fileManager.contentsOfDirectory(atPath: trimmed).sorted() } catch {
            throw ImportError(.unreadable, "\(path): cannot list the folder (\(error.localizedDescription))")
        }
        var bundle = XcodeModelBundle(name: stem(last), path: trimmed, versions: [])
        for entry in entries where !entry.hasPrefix(".") {
            let full = trimmed + "/" + entry
            if entry.hasSuffix(".xcdatamodel") {
                let contents = full + "/contents"
                if fileManager.fileExists(atPath: contents) {
                    bundle.versions.append(Version(folder: entry, path: contents, contents: try readFile(contents)))
                } else if fileManager.fileExists(atPath: full + "/elements") {
                    // Xcode 3's binary format, read into the XML of later Xcodes.
                    bundle.versions.append(
                        Version(
                            folder: entry, path: full + "/elements",
                            contents: try XcodeThreeModel.contents(ofArchiveAt: full + "/elements")))
                    bundle.skipped.append("\(entry): saved in Xcode 3's binary format (elements); read from it")
                } else {
                    bundle.skipped.append("\(entry): no 'contents' file (compiled only); skipped")
                }
            } else if entry.hasSuffix(".mom") || entry.hasSuffix(".omo") {
                bundle.skipped.append("\(entry): a compiled model version, whose source is not in the bundle; skipped")
            } else if entry.hasSuffix(".momd") {
                bundle.skipped.append("\(entry): compiled model versions, whose sources are not in the bundle; skipped")
            }
        }
        let marker = trimmed + "/.xccurrentversion"
        if fileManager.fileExists(atPath: marker) {
            bundle.currentVersion = currentVersionName(in: try readFile(marker))
        }
        if bundle.versions.isEmpty {
            let why = bundle.skipped.isEmpty ? "" : " (" + bundle.skipped.joined(separator: "; ") + ")"
            throw ImportError(.unreadable, "\(path): no model versions with a 'contents' file found\(why)")
        }
        return bundle
    }

    private static func readFile(_ path: String) throws(ImportError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError(.unreadable, "\(path): cannot read the file")
        }
        return data
    }

    /// `_XCCurrentVersionName` from the `.xccurrentversion` property list (XML or binary).
    static func currentVersionName(in data: Data) -> String? {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            return nil
        }
        return plist["_XCCurrentVersionName"] as? String
    }
}
