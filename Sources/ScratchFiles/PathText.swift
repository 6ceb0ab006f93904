/// Path text that Foundation's `NSString` path methods get wrong on Linux:
/// `("x" as NSString).deletingLastPathComponent` traps (swift-corelibs-foundation,
/// `String._startOfLastPathComponent` on a one-character relative path), so `migrate
/// create x` crashed. Every module asks for a path's folder here.
package enum PathText {
    /// The folder part of `path`, as `NSString.deletingLastPathComponent` gives it: `""`
    /// for a name alone (`x`), `/` for a file at the root, trailing slashes ignored
    /// (`a/b/` → `a`), repeated slashes before the name dropped (`a//b` → `a`).
    package static func parent(of path: String) -> String {
        var scalars = Array(path.unicodeScalars)
        while scalars.count > 1, scalars.last == "/" { scalars.removeLast() }
        if scalars == ["/"] { return "/" }
        guard let slash = scalars.lastIndex(of: "/") else { return "" }
        var end = slash
        while end > 0, scalars[end - 1] == "/" { end -= 1 }
        if end == 0 { return "/" }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[..<end])
        return String(result)
    }
}
