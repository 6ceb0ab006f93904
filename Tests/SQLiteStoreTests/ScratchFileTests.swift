import Foundation
import ScratchFiles
import TestSupport
import Testing

/// Scratch names carry their owner, so that a sweep removes exactly what dead
/// processes left: never a live process's file, never a file that only looks alike.
@Suite struct ScratchFileTests {
    @Test func aNameCarriesItsOwnerAndPurpose() throws {
        let name = ScratchFile.name(for: "App.sqlite", purpose: "backup")
        #expect(name.hasPrefix("App.sqlite.mm-scratch.backup.\(getpid())."))
        let owner = try #require(ScratchFile.owner(ofName: name))
        #expect(owner.pid == getpid())
        #expect(owner.purpose == "backup")
        // SQLite's side files of a scratch store are its own.
        #expect(ScratchFile.owner(ofName: name + "-journal")?.pid == getpid())
        #expect(!ScratchFile.ownerIsGone(pid: owner.pid, start: owner.start))
    }

    @Test(arguments: [
        "App.sqlite", "App.mm-scratch.sqlite", "x.mm-scratch.backup.12.0", "x.mm-scratch.backup.abc.0.ff",
        "x.mm-scratch..12.0.1.ff", "x.mm-scratch.backup.12.0.1.zz", "x.mm-scratch.backup.-3.0.1.ff",
        "x.mm-scratch.backup.12.0.1.ff.more",
        "x.mm-scratch.backup.12.0.ff",
    ])
    func namesThatAreNotScratchNames(name: String) {
        #expect(ScratchFile.owner(ofName: name) == nil)
    }

    /// A process id that is in use again, by a process that started at another time,
    /// is not the owner (Linux's /proc start time tells them apart).
    @Test func aReusedProcessIDIsNotTheOwner() throws {
        let start = try #require(ScratchFile.startTime(of: getpid()))
        #expect(!ScratchFile.ownerIsGone(pid: 1, start: 0))
        #expect(ScratchFile.ownerIsGone(pid: getppid(), start: (ScratchFile.startTime(of: getppid()) ?? start) + 1))
    }

    @Test func aSweepRemovesOnlyDeadOwnersEntries() throws {
        let folder = try TemporaryDirectory(prefix: "scratch-sweep")
        defer { folder.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let dead = process.processIdentifier
        let deadFile = try folder.write("a.sqlite.mm-scratch.create.\(dead).0.\(ScratchFile.namespace).beef", "x")
        let deadJournal = try folder.write(
            "a.sqlite.mm-scratch.create.\(dead).0.\(ScratchFile.namespace).beef-journal", "j")
        try FileManager.default.createDirectory(
            atPath: folder.file("r.mm-scratch.read.\(dead).0.\(ScratchFile.namespace).aa/inside"),
            withIntermediateDirectories: true)
        let live = try folder.write(ScratchFile.name(for: "a.sqlite", purpose: "create"), "mine")
        // Another PID namespace (a container sharing the folder): its ids mean nothing here.
        let foreign = try folder.write(
            "b.sqlite.mm-scratch.create.\(dead).0.\(ScratchFile.namespace + 1).beef", "theirs")
        let other = try folder.write("a.sqlite", "the store")
        let removed = ScratchFile.sweep(folder: folder.path)
        #expect(
            Set(removed.map(\.path)) == [
                deadFile, folder.file("r.mm-scratch.read.\(dead).0.\(ScratchFile.namespace).aa"),
            ])
        #expect(removed.allSatisfy { $0.pid == dead })
        for gone in [deadFile, deadJournal, folder.file("r.mm-scratch.read.\(dead).0.\(ScratchFile.namespace).aa")] {
            #expect(!FileManager.default.fileExists(atPath: gone))
        }
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: foreign))
        #expect(FileManager.default.fileExists(atPath: other))
        #expect(ScratchFile.takeRemoved().count >= 2)
    }
}
