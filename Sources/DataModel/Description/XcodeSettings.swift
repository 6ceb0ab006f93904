/// What an Xcode model says of an element that neither the version hash nor the
/// store layout reads: class names, code generation, scalar accessors, user info,
/// `syncable`, and any other XML attribute, kept as Xcode wrote them so that
/// `migrate export` gives the app back the `contents` it compiles (Docs/Xcode.md).
package struct XcodeSettings: Sendable, Hashable, Codable {
    /// One XML attribute or user-info entry: a name and its text.
    package struct Entry: Sendable, Hashable, Codable {
        package var key: String
        package var value: String

        /// Creates an entry.
        package init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    /// XML attributes of the element, by their Xcode names, in the order read.
    package var attributes: [Entry] = []
    /// The element's `<userInfo>` entries, in order.
    package var userInfo: [Entry] = []
    /// `syncable="YES"` on the element (nil: as the version's default says).
    package var syncable: Bool?

    /// Creates empty settings.
    package init() {}

    /// True when nothing is kept.
    package var isEmpty: Bool { attributes.isEmpty && userInfo.isEmpty && syncable == nil }

    /// The text of an XML attribute.
    package subscript(key: String) -> String? {
        get { attributes.first { $0.key == key }?.value }
        set {
            if let index = attributes.firstIndex(where: { $0.key == key }) {
                if let newValue { attributes[index].value = newValue } else { attributes.remove(at: index) }
            } else if let newValue {
                attributes.append(Entry(key, newValue))
            }
        }
    }
}

/// An Xcode element the toolkit keeps without reading it: a fetched property, a
/// fetch request template, a configuration. Its XML attributes and children, as
/// written.
package struct XcodeElement: Sendable, Hashable, Codable {
    /// The element's name (`name="…"`).
    package var name: String
    /// Its other XML attributes and user info.
    package var settings: XcodeSettings
    /// Its child elements (a fetched property's `<fetchRequest>`, a configuration's
    /// `<memberEntity>`s), each with its tag.
    package var children: [Child]
    /// Where it is written.
    package var location: SourceLocation

    /// A child element: its tag and its XML attributes.
    package struct Child: Sendable, Hashable, Codable {
        package var tag: String
        package var attributes: [XcodeSettings.Entry]

        /// Creates a child.
        package init(tag: String, attributes: [XcodeSettings.Entry]) {
            self.tag = tag
            self.attributes = attributes
        }
    }

    /// Creates an element.
    package init(name: String, settings: XcodeSettings = .init(), children: [Child] = [], location: SourceLocation) {
        self.name = name
        self.settings = settings
        self.children = children
        self.location = location
    }
}

/// Which elements of a version say `syncable="YES"` when they say nothing of it
/// themselves (Xcode before 10 wrote it on every entity, and on every property too
/// in older files).
package enum SyncableDefault: String, Sendable, Hashable, Codable {
    /// Entities and properties.
    case all
    /// Entities only.
    case entities
}
