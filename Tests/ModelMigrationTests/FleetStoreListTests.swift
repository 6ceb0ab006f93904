import Foundation
import ModelMigration
import TestSupport
import Testing

/// How a fleet's stores are listed and shared between shards.
@Suite struct FleetStoreListTests {
    @Test func theShardHashIsFNV1aOfThePathAndStable() {
        // FNV-1a 64 reference values (the empty string is the offset basis).
        #expect(FleetShard.stableHash("") == 0xcbf2_9ce4_8422_2325)
        #expect(FleetShard.stableHash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(FleetShard.stableHash("foobar") == 0x8594_4171_f739_67e8)
    }

    @Test func everyStoreBelongsToExactlyOneShard() throws {
        let paths = (0..<2000).map { "/data/tenants/t\($0 % 37)/store-\($0).sqlite" }
        let shards = (0..<5).map { FleetShard(index: $0, count: 5)! }
        var perShard = [Int](repeating: 0, count: 5)
        for path in paths {
            let owners = shards.filter { $0.contains(path) }
            #expect(owners.count == 1, "\(path)")
            perShard[owners[0].index] += 1
        }
        // A fair share each, give or take.
        for count in perShard { #expect(count > 300 && count < 500, "\(perShard)") }
    }

    @Test func shardsAreParsedAsIOfN() {
        #expect(FleetShard(parsing: "2/8") == FleetShard(index: 2, count: 8))
        #expect(FleetShard(parsing: "0/1")?.contains("anything") == true)
        for bad in ["8/8", "-1/4", "1", "1/0", "a/b", "1/2/3", ""] {
            #expect(FleetShard(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func foldersAreSearchedForThePatternSkippingHiddenExcludedAndBackupFiles() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-list")
        defer { directory.remove() }
        for name in [
            "a/one.sqlite", "a/b/two.sqlite", "a/b/c/three.sqlite", "a/notes.txt", "a/one.sqlite-wal",
            "a/.hidden/four.sqlite", "a/backups/one.v1-to-2.20261124T101500Z.sqlite",
            "a/one.v1-to-2.20261124T101500Z-2.sqlite",
            "a/old/five.sqlite", "x.store",
        ] {
            try directory.write(name, "")
        }
        let list = FleetStoreList(
            sources: [
                .path(directory.file("a")), .path(directory.file("x.store")), .path(directory.file("missing.sqlite")),
            ],
            excludedFolders: [directory.file("a/old")])
        let found = Set(
            list.compactMap { entry -> String? in
                guard case .store(let path) = entry else { return nil }
                return String(path.dropFirst(directory.path.count + 1))
            })
        // A file named on the command line is a store whatever its name; a missing
        // one is listed so that the run reports it.
        #expect(found == ["a/one.sqlite", "a/b/two.sqlite", "a/b/c/three.sqlite", "x.store", "missing.sqlite"])

        // A link back up the tree is not followed; a link to a store file is a store.
        try FileManager.default.createSymbolicLink(atPath: directory.file("a/b/up"), withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("a/b/linked.sqlite"), withDestinationPath: directory.file("a/old/five.sqlite"))
        let linked = Array(FleetStoreList(sources: [.path(directory.file("a/b"))]))
        #expect(
            Set(linked) == [
                .store(directory.file("a/b") + "/two.sqlite"), .store(directory.file("a/b") + "/c/three.sqlite"),
                .store(directory.file("a/b") + "/linked.sqlite"),
            ])

        let stores = FleetStoreList(sources: [.path(directory.file("a"))], pattern: "*.txt")
        #expect(Array(stores) == [.store(directory.file("a") + "/notes.txt")])
    }

    /// What `restore` keeps and what a killed run leaves are never stores, whatever
    /// the pattern: `.replaced/` is hidden, and the names are recognised anywhere.
    @Test func keptCopiesAndScratchFilesAreNeverStores() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-kept")
        defer { directory.remove() }
        for name in [
            "t/one.sqlite", "t/.replaced/one.sqlite.replaced.20261201T101500Z.sqlite",
            "t/one.sqlite.replaced.20261130T090000Z-2.sqlite",
            "t/one.sqlite.mm-scratch.restore.4127.88123456.4026531836.9f2c01ab",
            "kept/one.sqlite.replaced.20261201T101500Z.sqlite",
            "t/one.sqlite.replaced.sqlite", "t/my.replaced.20261201T101500Z.v1.sqlite",
        ] {
            try directory.write(name, "")
        }
        // Names that only look like kept copies are stores.
        let expected: [String: Set<String>] = [
            "*.sqlite": ["t/one.sqlite", "t/one.sqlite.replaced.sqlite", "t/my.replaced.20261201T101500Z.v1.sqlite"],
            "one*": ["t/one.sqlite", "t/one.sqlite.replaced.sqlite"],
        ]
        for (pattern, stores) in expected {
            let found = FleetStoreList(sources: [.path(directory.path)], pattern: pattern).map { entry -> String in
                guard case .store(let path) = entry else { return "\(entry)" }
                return String(path.dropFirst(directory.path.count + 1))
            }
            #expect(Set(found) == stores, "\(pattern)")
        }
        // A `.replaced` folder named on the command line is searched, and holds no store.
        #expect(Array(FleetStoreList(sources: [.path(directory.file("t/.replaced"))])) == [])
    }

    @Test func backupNamesAreRecognised() {
        #expect(FleetStoreList.isBackupName("app.v1-to-12.20261124T101500Z.sqlite"))
        #expect(FleetStoreList.isBackupName("my.app.v3-to-4.20261124T101500Z-17.sqlite"))
        for name in [
            "app.sqlite", "app.v1-to-2.sqlite", "app.v1-to-2.2026.sqlite", "app.vx-to-2.20261124T101500Z.sqlite",
            "app.v1-to-2.20261124T101500Z-.sqlite", "v1-to-2.20261124T101500Z.sqlite.bak",
        ] {
            #expect(!FleetStoreList.isBackupName(name), "\(name)")
        }
    }

    @Test func listFilesGiveOnePathALineAndSayWhenUnreadable() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-list")
        defer { directory.remove() }
        try directory.write("d/s1.sqlite", "")
        try directory.write("list.txt", "# comment\n\n  \(directory.file("one.sqlite"))  \r\n\(directory.file("d"))\n")
        let list = FleetStoreList(sources: [
            .listFile(directory.file("list.txt")), .listFile(directory.file("nope.txt")),
        ])
        let entries = Array(list)
        #expect(entries.count == 3)
        #expect(entries[0] == .store(directory.file("one.sqlite")))
        #expect(entries[1] == .store(directory.file("d") + "/s1.sqlite"))
        guard case .unreadable(let path, let reason) = entries[2] else {
            Issue.record("\(entries)")
            return
        }
        #expect(path == directory.file("nope.txt"))
        #expect(reason.contains("No such file"))
    }

    /// One file reached by several paths (a hard link, a symbolic link, a folder
    /// through a link, the same path twice) is listed once, as the first path met;
    /// every later path is a duplicate of it, in every shard, so that shards agree.
    @Test func aFileReachedByTwoPathsIsListedOnceAndTheOthersAsDuplicates() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-list-duplicates")
        defer { directory.remove() }
        let a = try directory.write("real/a.sqlite", "a")
        let b = try directory.write("real/b.sqlite", "b")
        let c = try directory.write("real/c.sqlite", "c")
        #expect(link(a, directory.file("hard.sqlite")) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("soft.sqlite"), withDestinationPath: "real/a.sqlite")
        try FileManager.default.createSymbolicLink(atPath: directory.file("linked"), withDestinationPath: "real")
        let sources = [
            a, directory.file("hard.sqlite"), b, directory.file("soft.sqlite"), a, c, directory.file("linked/c.sqlite"),
        ]
        let entries = Array(FleetStoreList(sources: sources.map { .path($0) }))
        #expect(
            entries == [
                .store(a), .duplicate(path: directory.file("hard.sqlite"), of: a), .store(b),
                .duplicate(path: directory.file("soft.sqlite"), of: a),
                .duplicate(path: a, of: a), .store(c), .duplicate(path: directory.file("linked/c.sqlite"), of: c),
            ])

        // Shards: every file is a store in exactly one shard, the one of its first
        // path; each later path is a duplicate in its own shard, of that first path.
        var stores: [String] = []
        var duplicates: [String: String] = [:]
        for index in 0..<3 {
            for entry in FleetStoreList(sources: sources.map { .path($0) }, shard: FleetShard(index: index, count: 3)) {
                switch entry {
                case .store(let path): stores.append(path)
                case .duplicate(let path, let first): duplicates[path, default: ""] += first
                case .unreadable, .notAStore: Issue.record("\(entry)")
                }
            }
        }
        #expect(stores.sorted() == [a, b, c])
        #expect(
            duplicates == [
                directory.file("hard.sqlite"): a, directory.file("soft.sqlite"): a, a: a,
                directory.file("linked/c.sqlite"): c,
            ])
    }

    /// Listed paths that name backups or kept replaced stores (a list `find` made) are
    /// never stores: reported, never handled; a store of that folder is one.
    @Test func listedBackupsAndKeptCopiesAreNotStores() throws {
        let directory = try TemporaryDirectory(prefix: "FleetStoreListTests")
        defer { directory.remove() }
        let store = try directory.write("shop/Shop.sqlite", "s")
        let kept = try directory.write("shop/.replaced/Shop.replaced.20261129T040000Z.sqlite", "k")
        let besideStore = try directory.write("shop/Shop.replaced.20261129T040000Z-2.sqlite", "k")
        let backup = try directory.write("backups/shop/Shop.v1-to-2.20261129T040000Z.sqlite", "b")
        let other = try directory.write("shop/.replaced/notes.sqlite", "n")
        let entries = Array(FleetStoreList(sources: [store, kept, besideStore, backup, other].map { .path($0) }))
        #expect(entries.map(\.path) == [store, kept, besideStore, backup, other])
        #expect(entries[0] == .store(store))
        for entry in entries.dropFirst() {
            guard case .notAStore(_, let reason) = entry else {
                Issue.record("\(entry)")
                continue
            }
            #expect(reason.contains("never a store to migrate"))
        }
        #expect(FleetRunner.listOutcome(entries[3]).status == .notAStore)
    }
}
