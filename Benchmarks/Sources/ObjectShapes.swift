// `migrate load` on the shapes of data an outside trial found slow, each against the
// Python loop a programmer writes for it (`json` + `executemany`, no checks), in the same
// run on the same file: lines naming objects of later lines (`dump --all` writes entities
// in name order, books before their folders), a tree whose every node names the one
// before it, many-to-many lists ordered on both sides, and lists given whole on their
// owner's line. Load only: the dumps of these stores are the cases of ObjectIO.swift.
import Foundation

/// A tree: every node names the node before it as its parent (a list of one each).
let treeModel = """
    model: Tree
    version: 1
    entities:
      Node:
        attributes:
          name: string
          weight: integer32?
        relationships:
          parent: { destination: Node, inverse: children, optional: true }
          children: { destination: Node, toMany: true, ordered: true, inverse: parent }
    """

/// Books with tags, ordered on both sides (a join table with two order columns).
let tagsModel = """
    model: Tags
    version: 1
    entities:
      Book:
        attributes:
          title: string
        relationships:
          tags: { destination: Tag, toMany: true, ordered: true, inverse: books }
      Tag:
        attributes:
          name: string
        relationships:
          books: { destination: Book, toMany: true, ordered: true, inverse: tags }
    """

/// Python's load of each shape (`sys.argv[1]` the shape, `[2]` the store, `[3]` the file).
let pythonLoadShapes = #"""
    import json, sqlite3, sys
    shape, db, path = sys.argv[1], sys.argv[2], sys.argv[3]
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("BEGIN IMMEDIATE")
    def lines():
        with open(path, encoding="utf-8") as f:
            for line in f:
                yield json.loads(line)
    ends = {}
    def place(owner):
        ends[owner] = ends.get(owner, 0) + 1
        return ends[owner]
    if shape == "later":
        books, folders = [], []
        insert = ("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPAGES, ZRATING, ZREAD, ZFOLDER, Z_FOK_FOLDER) "
                  "VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?)")
        for o in lines():
            if o.get("_entity") == "Folder":
                folders.append((o["_pk"], o["title"]))
            else:
                folder = o.get("folder")
                books.append((o["_pk"], o["title"], o.get("pages"), o.get("rating"), o.get("read"), folder,
                              None if folder is None else place(folder)))
            if len(books) >= 10000:
                c.executemany(insert, books)
                books.clear()
        c.executemany(insert, books)
        c.executemany("INSERT INTO ZFOLDER (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (?, 2, 1, ?)", folders)
    elif shape == "tree":
        def rows():
            for o in lines():
                parent = o.get("parent")
                yield (o["_pk"], o["name"], o.get("weight"), parent, None if parent is None else place(parent))
        c.executemany("INSERT INTO ZNODE (Z_PK, Z_ENT, Z_OPT, ZNAME, ZWEIGHT, ZPARENT, Z_FOK_PARENT) VALUES (?, \#
    1, 1, ?, ?, ?, ?)", rows())
    elif shape == "tags":
        joins = []
        def rows():
            for o in lines():
                for i, tag in enumerate(o.get("tags", [])):
                    joins.append((o["_pk"], tag, i + 1, place(tag)))
                yield (o["_pk"], o["title"])
        c.executemany("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (?, 1, 1, ?)", rows())
        c.executemany("INSERT INTO Z_1TAGS (Z_1BOOKS, Z_2TAGS, Z_FOK_1BOOKS, Z_FOK_2TAGS) VALUES (?, ?, ?, ?)", joins)
    elif shape == "lists":
        members = []
        def rows():
            for o in lines():
                for i, book in enumerate(o.get("books", [])):
                    members.append((o["_pk"], i + 1, book))
                yield (o["_pk"], o["title"])
        c.executemany("INSERT INTO ZFOLDER (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (?, 2, 1, ?)", rows())
        c.executemany("UPDATE ZBOOK SET ZFOLDER = ?, Z_FOK_FOLDER = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", members)
    c.execute("COMMIT")
    """#

extension ObjectBenchmark {
    /// One shape: its name, the model, what both sides find in the store first (an
    /// entity and its lines), the load's arguments before the file, and the lines.
    struct Shape {
        var name: String
        var python: String
        var model: (name: String, yaml: String)
        var preload: (entity: String, lines: (Int) -> String, count: Int)?
        var arguments: [String]
        var count: Int
        var line: (Int) -> String
    }

    func shapes(size: Int) -> [Shape] {
        let folders = max(1, size / 10_000), tags = 1_000, perFolder = max(1, size / folders)
        func book(_ pk: Int, folder: Int?) -> String {
            let folder = folder.map { #""folder":\#($0),"# } ?? ""
            let rating = pk % 7 == 0 ? "null" : String(Double(pk % 50) / 10)
            return
                #"""
                {"_pk":\#(pk),"_entity":"Book",\#(folder)"pages":\#(pk % 900),"rating":\#(rating),\#
                "read":\#(pk % 2 == 0),"title":"Book \#
                \#(pk)"}
                """#
        }
        return [
            Shape(
                name: "books before their folders (--all)", python: "later", model: ("Library", libraryModel),
                preload: nil,
                arguments: ["--all"], count: size + folders
            ) { line in
                line <= size
                    ? book(line, folder: line % folders + 1)
                    : #"{"_pk":\#(line - size),"_entity":"Folder","title":"Folder"}"#
            },
            Shape(
                name: "a tree (each node the parent of the next)", python: "tree", model: ("Tree", treeModel),
                preload: nil,
                arguments: ["Node"], count: size
            ) { pk in
                #"{"_pk":\#(pk),"name":"n\#(pk)","weight":\#(pk % 100)\#(pk > 1 ? #","parent":\#(pk - 1)"# : "")}"#
            },
            Shape(
                name: "books with 5 tags, ordered both sides", python: "tags", model: ("Tags", tagsModel),
                preload: ("Tag", { #"{"_pk":\#($0),"name":"t\#($0)"}"# }, tags), arguments: ["Book"], count: size / 5
            ) { pk in
                #"""
                {"_pk":\#(pk),"title":"Book \#
                \#(pk)","tags":[\#((0..<5).map { String((pk * 7 + $0 * 131) % tags + 1) }.joined(separator: ","))]}
                """#
            },
            Shape(
                name: "folders listing their books whole", python: "lists", model: ("Library", libraryModel),
                preload: ("Book", { book($0, folder: nil) }, folders * perFolder), arguments: ["Folder"], count: folders
            ) { folder in
                let books = ((folder - 1) * perFolder + 1...folder * perFolder).map(String.init).joined(separator: ",")
                return #"{"_pk":\#(folder),"title":"Folder \#(folder)","books":[\#(books)]}"#
            },
        ]
    }

    /// Each shape loaded by `migrate` and by Python into copies of one store.
    func measureShapes(size: Int) throws -> [ObjectIO] {
        var results: [ObjectIO] = []
        for shape in shapes(size: size) {
            let empty = "\(work)/shape-empty.sqlite", lines = "\(work)/shape.jsonl"
            let target = "\(work)/shape.sqlite", raw = "\(work)/shape-raw.sqlite"
            let models = try emptyStore(shape.model.name, yaml: shape.model.yaml, at: empty)
            if let preload = shape.preload {
                try writeLines(preload.count, to: lines, preload.lines)
                _ = run(migrate, ["load", empty, preload.entity, lines, "--models", models])
            }
            try writeLines(shape.count, to: lines, shape.line)
            try copy(empty, target)
            try copy(empty, raw)
            let load = run(migrate, ["load", target] + shape.arguments + [lines, "--models", models])
            let pythonLoad = python(pythonLoadShapes, [shape.python, raw, lines])
            let none = Sample(status: 0, seconds: 0, cpu: 0, megabytes: 0)
            var m = Self.measured(size, shape.name, load: load, pythonLoad: pythonLoad, dump: none, pythonDump: none)
            m.measuresDump = false
            results.append(m)
            report(m, what: shape.name)
            for path in [empty, lines, target, raw] { try? FileManager.default.removeItem(atPath: path) }
        }
        return results
    }
}
