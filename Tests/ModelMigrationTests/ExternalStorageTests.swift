import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// Binary data that allows external storage, kept as Core Data keeps it: `0x01` and
/// the bytes in the row, or `0x02`, a file name and a NUL with the bytes in
/// `.<store>_SUPPORT/_EXTERNAL_DATA/`.
@Suite struct ExternalStorageTests {
    static let v1 = """
        entities:
          Photo:
            attributes:
              title: string?
              image: { type: binary, optional: true, externalStorage: true }

        """

    @Test func valuesAreWrittenInlineAndReadFromEitherForm() throws {
        let s = try MigrationScenario("Photos", versions: [Self.v1], storeName: "Photos.sqlite")
        defer { s.remove() }
        try s.withObjects {
            try $0.insert("Photo", values: ["title": .string("inline"), "image": .binary([7, 8, 9])])
        }
        #expect(try s.rows("SELECT ZIMAGE FROM ZPHOTO") == [[.blob([1, 7, 8, 9])]])

        // A value Core Data moved to a file.
        _ = try s.directory.write(".Photos_SUPPORT/_EXTERNAL_DATA/0A1B-EXT", bytes: [4, 5, 6])
        let store = try Store.open(path: s.storePath, access: .readWrite)
        try store.connection.execute(
            "INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZIMAGE) VALUES (2, 1, 1, 'file', X'02304131422D45585400')")
        try store.close()
        #expect(try s.fetch("Photo").map { $0.values["image"] } == [.binary([7, 8, 9]), .binary([4, 5, 6])])

        // A file that is gone is an error naming it, not empty data.
        try FileManager.default.removeItem(atPath: s.directory.file(".Photos_SUPPORT/_EXTERNAL_DATA/0A1B-EXT"))
        #expect { try s.fetch("Photo") } throws: { error in
            "\(error)".contains("_EXTERNAL_DATA/0A1B-EXT, which cannot be read")
        }
    }

    @Test func allowingAndDisallowingExternalStorageRewritesTheMarker() throws {
        let v0 = Self.v1.replacingOccurrences(of: ", externalStorage: true", with: "")
        let s = try MigrationScenario(
            "Toggle",
            versions: [
                v0, Self.v1,
                v0.replacingOccurrences(of: "optional: true }", with: "optional: true, hashModifier: again }"),
            ])
        defer { s.remove() }
        try s.withObjects { try $0.insert("Photo", values: ["image": .binary([7, 8])]) }
        #expect(try s.rows("SELECT ZIMAGE FROM ZPHOTO") == [[.blob([7, 8])]])
        try s.migrate(to: 2)
        #expect(try s.rows("SELECT ZIMAGE, typeof(ZIMAGE) FROM ZPHOTO") == [[.blob([1, 7, 8]), .text("blob")]])
        #expect(try s.fetch("Photo").map { $0.values["image"] } == [.binary([7, 8])])
        let back = try s.plan(to: 3)
        #expect(
            back.warnings.map(\.description) == [
                """
                destructive: Photo.image no longer allows external storage: values Core Data kept in files beside the \
                store stay references to those files
                """
            ])
        try s.migrate(to: 3)
        #expect(try s.rows("SELECT ZIMAGE FROM ZPHOTO") == [[.blob([7, 8])]])
    }
}
