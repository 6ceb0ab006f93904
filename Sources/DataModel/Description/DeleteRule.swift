/// What happens to a relationship's destination when its source object is deleted.
/// Not part of the entity version hash (as in Core Data).
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    case nullify, cascade, deny, noAction
}
