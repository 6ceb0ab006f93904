#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Lists a folder's entries, telling "there is no such folder" apart from "the
/// folder could not be read".
///
/// `FileManager.contentsOfDirectory` throws for both, and `try?` turns a folder
/// that exists but cannot be read (mode 0700 owned by another user, no file
/// descriptors left, an I/O error halfway through) into an empty one: a
/// `Migrations/<Model>` folder read as "no mapping files" makes `apply` infer a
/// hop the user mapped, and drop the data the mapping carries. Every reader of a
/// folder whose contents decide what is migrated goes through here.
package enum DirectoryListing {
    /// Why a folder could not be listed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The folder.
        package var path: String
        /// `strerror` of the failing call.
        package var reason: String
        /// The errno value.
        package var code: Int32

        package var description: String { "\(path): cannot read the folder (\(reason))" }
    }

    /// The names in `path` (without `.` and `..`, unsorted), or nil when nothing
    /// exists at `path`. Throws when `path` exists but is not a folder, or cannot
    /// be opened or read to the end.
    package static func entries(_ path: String) throws(Failure) -> [String]? {
        guard let directory = opendir(path) else {
            let code = errno
            if code == ENOENT { return nil }
            throw Failure(path: path, reason: String(cString: strerror(code)), code: code)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                let code = errno
                if code != 0 { throw Failure(path: path, reason: String(cString: strerror(code)), code: code) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }
}
