import CoreDataImport
import Testing

@testable import MigrateCommands

/// `import --report` on a hop whose app mapping model is stale (made before a version
/// changed: its recorded hashes are not the versions'): Core Data never uses it, so the
/// hop is what inference gives, and the report names the stale model beside it
/// (WordPress-iOS's `WordPress-11-12`, whose ReaderPost gained an attribute the day after
/// it was made, read as plain "inferred").
@Suite struct ImportReportTests {
    @Test func aStaleMappingModelIsNamedOnTheHopsItSpans() {
        let stale = [
            StaleMappingModel(
                path: "Migrations/WordPress-11-12.xcmappingmodel", sourceVersion: 11, destinationVersion: 12,
                entities: ["ReaderPost (version 12)"]),
            StaleMappingModel(
                path: "M/Span.cdm", sourceVersion: 20, destinationVersion: 23,
                entities: ["Blog (version 20)", "Post (version 23)"]),
        ]
        #expect(
            Import.staleNote(stale, from: 11, to: 12)
                == "WordPress-11-12.xcmappingmodel (ReaderPost (version 12) differ)")
        #expect(Import.staleNote(stale, from: 10, to: 11) == nil)
        #expect(Import.staleNote(stale, from: 12, to: 13) == nil)
        #expect(Import.staleNote(stale, from: 21, to: 22) == "Span.cdm (Blog (version 20), Post (version 23) differ)")
    }
}
