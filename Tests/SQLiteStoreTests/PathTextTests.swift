import Foundation
import ScratchFiles
import Testing

/// `PathText.parent(of:)` gives what `NSString.deletingLastPathComponent` gives, and
/// also for a one-character relative path, on which Foundation traps on Linux (`migrate
/// create x` crashed).
@Suite struct PathTextTests {
    @Test(arguments: [
        ("x", ""), ("x/y", "x"), ("ab", ""), ("/x", "/"), ("x/", ""), ("./x", "."), ("a/b/", "a"), ("a//b", "a"),
        ("/", "/"), ("", ""), ("/a/b/c.sqlite", "/a/b"), ("y/Contacts.xcdatamodeld", "y"), ("é/ü", "é"),
    ])
    func theFolderOfAPath(path: String, folder: String) {
        #expect(PathText.parent(of: path) == folder)
    }

    /// Where Foundation does not trap, the two agree.
    @Test(arguments: ["x/y", "ab", "/x", "./x", "a/b/", "/", "/a/b/c.sqlite", "ab/cd/", "../ab"])
    func agreesWithFoundation(path: String) {
        #expect(PathText.parent(of: path) == (path as NSString).deletingLastPathComponent)
    }
}
