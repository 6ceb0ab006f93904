#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Reads one YAML document whose root is a mapping into a ``YAMLNode`` tree.
///
/// The loader is strict, because model and mapping files are written by people and
/// a silent misreading is worse than an error: the input must be UTF-8, hold exactly
/// one document, use no duplicate keys and only scalar keys. Aliases are resolved into
/// copies of their anchored nodes; merge keys (`<<`) are ordinary keys.
///
/// Hostile input fails fast with bounded memory: files over ``maximumFileSize`` bytes
/// are refused before parsing, nesting is limited to ``maximumDepth`` collections,
/// and documents (alias copies included) to ``maximumNodeCount`` nodes.
///
/// ```swift
/// let root = try YAMLLoader.load(contentsOf: "Models/Contacts/2.yaml")
/// for pair in root.mappingPairs ?? [] { print(pair.key.scalarText ?? "", pair.key.location) }
/// ```
package enum YAMLLoader {
    /// The largest file the loader reads: 16 MiB, far above any model file.
    package static let maximumFileSize = 16 * 1024 * 1024
    /// The deepest nesting of sequences and mappings, the root counting as level 1.
    package static let maximumDepth = 256
    /// The most nodes a document may have, every node an alias copies included, so
    /// that alias bombs ("billion laughs") stop early.
    package static let maximumNodeCount = 1_000_000

    /// Loads a document from UTF-8 bytes (a UTF-8 byte order mark is allowed).
    /// - Parameter file: The name used in locations and messages.
    package static func load(bytes: [UInt8], file: String) throws(YAMLError) -> YAMLNode {
        guard bytes.count <= maximumFileSize else { throw tooLarge(bytes.count, file: file) }
        let source = try YAMLSourceText(bytes: bytes, file: file)
        try source.validate()
        let parser: LibYAMLParser
        do {
            parser = try LibYAMLParser(bytes: source.bytes)
        } catch {
            throw YAMLError(error, in: source)
        }
        var builder = YAMLTreeBuilder(source: source)
        var hasDocument = false
        parsing: while true {
            let event: LibYAMLParser.Event
            do {
                event = try parser.next()
            } catch {
                throw YAMLError(error, in: source)
            }
            switch event {
            case .streamStart, .documentEnd:
                continue
            case .streamEnd:
                break parsing
            case .documentStart(let mark):
                // Stop at the second document's start: its content is not read at all.
                guard !hasDocument else {
                    throw YAMLError(
                        .multipleDocuments,
                        "the file must contain a single YAML document, but a second document starts here",
                        file: file, at: source.location(mark))
                }
                hasDocument = true
            case .scalar(let text, let style, let tag, let anchor, let mark):
                try builder.addScalar(text, style: style, tag: tag, anchor: anchor, at: mark)
            case .alias(let anchor, let mark):
                try builder.addAlias(anchor, at: mark)
            case .sequenceStart(let tag, let anchor, let mark):
                try builder.open(mapping: false, tag: tag, anchor: anchor, at: mark)
            case .mappingStart(let tag, let anchor, let mark):
                try builder.open(mapping: true, tag: tag, anchor: anchor, at: mark)
            case .sequenceEnd, .mappingEnd:
                try builder.close()
            }
        }
        // A file with only `---` holds one document whose root is an empty plain scalar.
        guard let root = builder.root, root.content != .scalar("", .plain) || root.tag != nil else {
            throw YAMLError(
                .emptyDocument, "the file contains no YAML document; expected a mapping",
                file: file, at: nil)
        }
        guard case .mapping = root.content else {
            throw YAMLError(
                .notAMapping, "the document root must be a mapping, found \(root.kindDescription)",
                file: file, at: root.location)
        }
        return root
    }

    /// Reads and loads a file; locations name the file by `path` as given.
    package static func load(contentsOf path: String) throws(YAMLError) -> YAMLNode {
        try load(bytes: readFile(path), file: path)
    }

    /// Reads a regular file with POSIX calls, refusing one over the size limit before
    /// reading it, so that a huge file fails at once.
    private static func readFile(_ path: String) throws(YAMLError) -> [UInt8] {
        func failure(_ detail: String) -> YAMLError {
            YAMLError(.unreadable, "cannot read the file: \(detail)", file: path, at: nil)
        }
        func systemError() -> String { String(cString: strerror(errno)) }

        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure(systemError()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(systemError()) }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw failure("it is a directory") }
        if status.st_mode & S_IFMT == S_IFREG, status.st_size > maximumFileSize {
            throw tooLarge(Int(status.st_size), file: path)
        }
        // Read to the end rather than trusting st_size (pipes, files that grow), one
        // byte past the limit at most.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= maximumFileSize {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                guard errno == EINTR else { throw failure(systemError()) }
                continue
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        if bytes.count > maximumFileSize { throw tooLarge(bytes.count, file: path) }
        return bytes
    }

    private static func tooLarge(_ size: Int, file: String) -> YAMLError {
        YAMLError(
            .tooLarge, "the file is too large (\(size) bytes; the limit is \(maximumFileSize) bytes)",
            file: file, at: nil)
    }
}
