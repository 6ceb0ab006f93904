import DataModel
import Foundation
import ScratchFiles

/// An exported bundle, ready to write.
package struct ExportedModel: Sendable {
    /// One version's folder and `contents`.
    package struct Version: Sendable {
        package var number: Int
        package var folder: String
        package var contents: String
    }

    /// The model's name (the bundle is `<name>.xcdatamodeld`).
    package var name: String
    /// Every version, in order; the last is current.
    package var versions: [Version]
    /// What Xcode's format has no place for, one line each.
    package var omissions: [String]
    /// The folder `.xccurrentversion` names: the last version's, or the one an
    /// import found current (`xcodeVersion: { current: true }`).
    package var current: String
    /// What export decided that the YAML alone does not say, one line each.
    package var notes: [String] = []

    /// `.xccurrentversion`: the property list naming the current version.
    package var currentVersionPlist: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>\(XMLText.escape(current))</string>
        </dict>
        </plist>

        """
    }

    /// Writes the bundle at `path` (a `.xcdatamodeld` folder): into a temporary
    /// folder beside it, then moved into place, so `path` never holds half a
    /// bundle. An existing `path` is replaced only with `force`.
    package func write(to path: String, force: Bool) throws(ExportError) {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        let exists = manager.fileExists(atPath: path, isDirectory: &isFolder)
        if exists, !force {
            throw ExportError("\(path) exists; pass --force to replace it")
        }
        if exists, !isFolder.boolValue {
            throw ExportError("\(path) exists and is not a folder; nothing was written")
        }
        // Named after this process: an export killed midway leaves a folder that the
        // next export here removes (ScratchFile).
        ScratchFile.sweep(beside: path)
        let temporary = ScratchFile.path(beside: path, purpose: "export")
        do {
            for version in versions {
                let folder = (temporary as NSString).appendingPathComponent(version.folder)
                try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(version.contents.utf8).write(
                    to: URL(fileURLWithPath: (folder as NSString).appendingPathComponent("contents")))
            }
            try Data(currentVersionPlist.utf8).write(
                to: URL(fileURLWithPath: (temporary as NSString).appendingPathComponent(".xccurrentversion")))
            if exists { try manager.removeItem(atPath: path) }
            try manager.moveItem(atPath: temporary, toPath: path)
        } catch {
            try? manager.removeItem(atPath: temporary)
            throw ExportError("\(path): cannot write the bundle: \(SystemReason.text(error))")
        }
    }
}
