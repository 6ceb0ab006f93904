import DataModel

extension LiteralValue {
    /// The literal as a value of an attribute type, for the model's rules.
    func attributeValue(for type: AttributeType) -> AttributeValue? {
        switch (self, type) {
        case (.integer(let v), .integer16), (.integer(let v), .integer32), (.integer(let v), .integer64):
            return .integer(v)
        case (.boolean(let v), .integer16), (.boolean(let v), .integer32), (.boolean(let v), .integer64):
            return .integer(v ? 1 : 0)
        case (.double(let v), .integer16), (.double(let v), .integer32), (.double(let v), .integer64):
            return Int64(exactly: v).map { .integer($0) } ?? .double(v)
        case (.integer(let v), .double), (.integer(let v), .float): return .double(Double(v))
        case (.double(let v), .double), (.double(let v), .float): return .double(v)
        case (.integer(let v), .decimal): return .decimal(String(v))
        case (.double(let v), .decimal): return .decimal(v.description)
        case (.string(let v), .string): return .string(v)
        case (.string(let v), .uri): return .uri(v)
        case (.boolean(let v), .boolean): return .boolean(v)
        case (.integer(let v), .boolean): return .boolean(v != 0)
        case (.date(let v), .date): return .date(v)
        default: return nil
        }
    }
}
