import DataModel

/// Collects "not imported" findings grouped by topic, so that a class name on every
/// entity is one line naming the entities, not one line each.
struct WarningCollector {
    private var topics: [String] = []
    private var places: [String: [String]] = [:]

    mutating func add(_ topic: String, at place: String? = nil) {
        if places[topic] == nil {
            topics.append(topic)
            places[topic] = []
        }
        if let place, !places[topic]!.contains(place) { places[topic]!.append(place) }
    }

    var lines: [String] {
        topics.map { topic in
            let list = places[topic] ?? []
            return list.isEmpty ? topic : "\(topic): \(list.joined(separator: ", "))"
        }
    }
}
