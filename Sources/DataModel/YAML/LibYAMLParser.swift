internal import CYAML

/// The one owner of a libyaml parser handle and of the input bytes it reads.
///
/// libyaml keeps a pointer to its input for the parser's whole life, so the
/// parser copies the bytes into storage it frees itself, after `yaml_parser_delete`.
/// Events are copied into Swift values and deleted at once, so no C memory escapes.
/// Not `Sendable`: a libyaml parser is a mutable C state machine used by one loader call.
final class LibYAMLParser {
    /// A libyaml position: 0-based line and column; columns count characters
    /// (Unicode scalars), because libyaml decodes its input before scanning.
    struct Mark: Hashable {
        var line: Int
        var column: Int
    }

    /// One parsing event, copied out of libyaml.
    enum Event {
        case streamStart
        case streamEnd
        case documentStart(Mark)
        case documentEnd
        case alias(anchor: String, Mark)
        case scalar(String, YAMLNode.ScalarStyle, tag: String?, anchor: String?, Mark)
        case sequenceStart(tag: String?, anchor: String?, Mark)
        case sequenceEnd
        case mappingStart(tag: String?, anchor: String?, Mark)
        case mappingEnd
    }

    /// What libyaml reported when it stopped.
    struct Failure: Error {
        enum Stage { case memory, reader, scanner, parser, other }

        var stage: Stage
        /// libyaml's problem text, e.g. "found character that cannot start any token".
        var problem: String
        /// Where the problem is (scanner and parser errors).
        var problemMark: Mark?
        /// The byte offset of the problem (reader errors).
        var problemOffset: Int?
        /// The offending character (reader errors), if libyaml names one.
        var problemValue: Int?
        /// What libyaml was doing, e.g. "while scanning a quoted scalar".
        var context: String?
        /// Where that started.
        var contextMark: Mark?
    }

    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>

    /// Creates a parser over a copy of UTF-8 `bytes` (without a byte order mark).
    init(bytes: some Collection<UInt8>) throws(Failure) {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        // On failure libyaml frees what it allocated itself; only our memory is left.
        guard yaml_parser_initialize(parser) != 0 else {
            parser.deallocate()
            throw Failure(stage: .memory, problem: "cannot allocate the YAML parser")
        }
        let input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(fromContentsOf: bytes)
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
        self.parser = parser
        self.input = input
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    /// The next event; after `.streamEnd` or a failure, libyaml returns nothing useful.
    func next() throws(Failure) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) != 0 else { throw currentFailure() }
        defer { yaml_event_delete(&event) }
        let mark = Self.mark(event.start_mark)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_STREAM_END_EVENT:
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(anchor: Self.string(event.data.alias.anchor) ?? "", mark)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let value =
                scalar.value.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self)
                } ?? ""
            return .scalar(
                value, Self.style(scalar.style),
                tag: Self.string(scalar.tag), anchor: Self.string(scalar.anchor), mark)
        case YAML_SEQUENCE_START_EVENT:
            let start = event.data.sequence_start
            return .sequenceStart(tag: Self.string(start.tag), anchor: Self.string(start.anchor), mark)
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            let start = event.data.mapping_start
            return .mappingStart(tag: Self.string(start.tag), anchor: Self.string(start.anchor), mark)
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd
        default:
            // YAML_NO_EVENT: libyaml only returns it after the stream has ended.
            return .streamEnd
        }
    }

    private func currentFailure() -> Failure {
        let state = parser.pointee
        let stage: Failure.Stage
        switch state.error {
        case YAML_MEMORY_ERROR: stage = .memory
        case YAML_READER_ERROR: stage = .reader
        case YAML_SCANNER_ERROR: stage = .scanner
        case YAML_PARSER_ERROR: stage = .parser
        default: stage = .other
        }
        let problem = state.problem.map { String(cString: $0) } ?? "unknown libyaml error"
        let context = state.context.map { String(cString: $0) }
        switch stage {
        case .reader:
            return Failure(
                stage: stage, problem: problem,
                problemOffset: state.problem_offset,
                problemValue: state.problem_value == -1 ? nil : Int(state.problem_value))
        case .scanner, .parser:
            return Failure(
                stage: stage, problem: problem, problemMark: Self.mark(state.problem_mark),
                context: context, contextMark: context == nil ? nil : Self.mark(state.context_mark))
        case .memory, .other:
            return Failure(stage: stage, problem: problem)
        }
    }

    private static func mark(_ mark: yaml_mark_t) -> Mark {
        Mark(line: Int(mark.line), column: Int(mark.column))
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLNode.ScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }
}
