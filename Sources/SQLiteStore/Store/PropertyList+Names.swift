package import PropertyList

// The property list types live in their own module (CoreDataImport reads Xcode 3
// models with them); SQLiteStore's users keep naming them through SQLiteStore.

/// A property list value (see `PropertyList.PropertyListValue`).
package typealias PropertyListValue = PropertyList.PropertyListValue
/// Binary property list encoding and decoding (see `PropertyList.BinaryPropertyList`).
package typealias BinaryPropertyList = PropertyList.BinaryPropertyList
/// A property list that cannot be decoded (see `PropertyList.PropertyListError`).
package typealias PropertyListError = PropertyList.PropertyListError
