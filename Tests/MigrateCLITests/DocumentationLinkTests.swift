import Foundation
import TestSupport
import Testing

/// Every relative link of README.md, Docs/*.md and the examples' Markdown resolves:
/// the file or folder exists, and a `#anchor` names a heading of the target as
/// GitHub slugs it. Moving a section between documents cannot leave a dead link.
@Suite struct DocumentationLinkTests {
    /// The Markdown files checked, relative to the package root.
    static let documents: [String] = {
        let root = TestModels.packageRoot
        var files = ["README.md"]
        for folder in ["Docs", "Examples"] {
            let enumerator = FileManager.default.enumerator(atPath: root + "/" + folder)
            while let path = enumerator?.nextObject() as? String {
                if path.hasPrefix(".build") || path.contains("/.build") {
                    enumerator?.skipDescendants()
                    continue
                }
                if path.hasSuffix(".md") { files.append(folder + "/" + path) }
            }
        }
        return files.sorted()
    }()

    /// GitHub's anchor for a heading: lower-cased, punctuation dropped (hyphens and
    /// underscores kept), spaces made hyphens; a repeated heading gets `-1`, `-2`….
    static func anchors(of markdown: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var result: Set<String> = []
        for line in lines(outsideFences: markdown) where line.hasPrefix("#") {
            let text = line.drop(while: { $0 == "#" })
            guard text.first == " " else { continue }
            var slug = ""
            for character in text.trimmingCharacters(in: .whitespaces).lowercased() {
                if character == " " {
                    slug.append("-")
                } else if character.isLetter || character.isNumber || character == "-" || character == "_" {
                    slug.append(character)
                }
            }
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            result.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return result
    }

    /// The lines of a Markdown text that are not inside fenced code blocks.
    static func lines(outsideFences markdown: String) -> [Substring] {
        var inFence = false
        var result: [Substring] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if !inFence { result.append(line) }
        }
        return result
    }

    /// The relative link targets of a Markdown text (inline code and fences left out), with their line.
    static func links(in markdown: String) -> [(line: Int, target: String)] {
        var result: [(Int, String)] = []
        var inFence = false
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            guard !inFence else { continue }
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            for match in prose.matches(of: /\]\(([^)\s]+)\)/) {
                let target = String(match.output.1)
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                result.append((index + 1, target))
            }
        }
        return result
    }

    /// Why a link of `document` is dead, or nil when it resolves.
    static func problem(with target: String, in document: String) -> String? {
        let root = TestModels.packageRoot
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let pathPart = String(parts[0])
        let folder = (document as NSString).deletingLastPathComponent
        let file =
            pathPart.isEmpty
            ? document : ((folder as NSString).appendingPathComponent(pathPart) as NSString).standardizingPath
        guard FileManager.default.fileExists(atPath: root + "/" + file) else { return "no file \(file)" }
        guard parts.count == 2 else { return nil }
        guard file.hasSuffix(".md"), let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else {
            return "an anchor into \(file), which is not a Markdown file"
        }
        return anchors(of: text).contains(String(parts[1])) ? nil : "no heading #\(parts[1]) in \(file)"
    }

    @Test func everyRelativeLinkResolves() throws {
        #expect(Self.documents.contains("Docs/GettingStarted.md"))
        var dead: [String] = []
        for document in Self.documents {
            let text = try String(contentsOfFile: TestModels.packageRoot + "/" + document, encoding: .utf8)
            for link in Self.links(in: text) {
                if let problem = Self.problem(with: link.target, in: document) {
                    dead.append("\(document):\(link.line): (\(link.target)): \(problem)")
                }
            }
        }
        #expect(dead == [])
    }

    @Test func anchorsAreSluggedAsGitHubSlugsThem() {
        let markdown =
            """
            # The `migrate` command\n## Stores from Apple's Core Data\n```\n# not a heading\n```\n## Fleets\n### \
            Fleets\n
            """
        #expect(
            Self.anchors(of: markdown) == ["the-migrate-command", "stores-from-apples-core-data", "fleets", "fleets-1"])
    }

    @Test func aDeadFileOrAnchorIsNamed() {
        #expect(Self.problem(with: "Docs/NoSuch.md", in: "README.md") == "no file Docs/NoSuch.md")
        #expect(
            Self.problem(with: "CLI.md#no-such-heading", in: "Docs/CLI.md")
                == "no heading #no-such-heading in Docs/CLI.md")
        #expect(Self.problem(with: "../README.md#exit-codes", in: "Docs/CLI.md") == nil)
        #expect(Self.problem(with: "../Examples/Library", in: "Docs/Migrations.md") == nil)
    }
}
