#!/usr/bin/env python3
"""A reference interpreter for Core Data predicates, independent of migrate's SQL.

It parses a predicate format string itself, reads a store's rows with Python's
sqlite3 module, and evaluates the predicate object by object, in Python, with
NSPredicate's meaning as Docs/Predicates.md writes it down:

- nil: `==`/`!=` are null-safe (nil == nil holds, nil != 5 holds); `<`, `>`,
  BETWEEN, IN and the string operators are false when an operand is nil; NOT is
  two-valued (NOT of a false comparison holds, whatever made it false).
- BEGINSWITH, ENDSWITH, CONTAINS are false for an empty right side
  (NSString's rangeOfString: finds no empty string); LIKE is a whole-text
  wildcard match (`*`, `?`); MATCHES is a whole-text regular expression match
  (re.fullmatch: patterns are kept to the part of ICU's syntax Python shares).
- [c] lower-cases, [d] removes combining marks after canonical decomposition.
- ANY/ALL/NONE over a to-many relationship; ALL and NONE hold for no objects;
  @count, @sum (0 for none), @min/@max/@avg (nil for none).

Only the subset the differential test (predicate_diff.py) generates is
understood: key paths of one entity and one to-many relationship with an
inverse column, literals, lists, CAST(…, 'NSDate'), + - * /.

Usage as a script: predicate_reference.py STORE ENTITY PREDICATE (prints the
primary keys that satisfy it, one per line). The layout is read from the store:
`Z<NAME>` columns, the entity's Z_ENT from Z_PRIMARYKEY.
"""

import datetime
import re
import sqlite3
import sys
import unicodedata

KEYWORDS = {"AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS",
            "LIKE", "MATCHES", "YES", "NO", "TRUE", "FALSE", "NIL", "NULL", "TRUEPREDICATE", "FALSEPREDICATE", "CAST"}
STRING_OPS = {"BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"}
REFERENCE_DATE = datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)


class ParseError(Exception):
    pass


def tokenize(text):
    tokens, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "'\"":
            j, out = i + 1, []
            while j < len(text) and text[j] != c:
                if text[j] == "\\" and j + 1 < len(text):
                    j += 1
                    out.append({"n": "\n", "t": "\t"}.get(text[j], text[j]))
                else:
                    out.append(text[j])
                j += 1
            if j >= len(text):
                raise ParseError("unterminated string")
            tokens.append(("str", "".join(out)))
            i = j + 1
        elif c.isdigit() or (c == "." and i + 1 < len(text) and text[i + 1].isdigit()):
            m = re.match(r"\d+(\.\d+)?([eE][-+]?\d+)?", text[i:])
            s = m.group(0)
            tokens.append(("num", float(s) if ("." in s or "e" in s or "E" in s) else int(s)))
            i += len(s)
        elif c.isalpha() or c in "_@$#":
            m = re.match(r"[@$#]?[A-Za-z_][A-Za-z0-9_]*", text[i:])
            tokens.append(("name", m.group(0)))
            i += len(m.group(0))
        else:
            for op in ("==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||", "=", "<", ">", "!", "(", ")", "{", "}",
                       "[", "]", ",", ".", "+", "-", "*", "/"):
                if text.startswith(op, i):
                    tokens.append(("op", {"=": "==", "<>": "!=", "=<": "<=", "=>": ">=", "&&": "AND", "||": "OR",
                                          "!": "NOT"}.get(op, op)))
                    i += len(op)
                    break
            else:
                raise ParseError("unexpected character %r" % c)
    tokens.append(("end", None))
    return tokens


class Parser:
    """Predicate := ('OR' | 'AND' | 'NOT' trees of) comparisons; expressions as in NSExpression."""

    def __init__(self, text):
        self.tokens = tokenize(text)
        self.i = 0

    def peek(self):
        return self.tokens[self.i]

    def keyword(self):
        kind, value = self.peek()
        if kind == "name" and value.upper() in KEYWORDS:
            return value.upper()
        if kind == "op" and value in ("AND", "OR", "NOT"):
            return value
        return None

    def take(self):
        token = self.tokens[self.i]
        self.i += 1
        return token

    def expect(self, value):
        if self.take() != ("op", value):
            raise ParseError("expected %s" % value)

    def parse(self):
        p = self.predicate()
        if self.peek()[0] != "end":
            raise ParseError("trailing text")
        return p

    def predicate(self):
        p = self.conjunction()
        while self.keyword() == "OR":
            self.take()
            p = ("or", p, self.conjunction())
        return p

    def conjunction(self):
        p = self.negation()
        while self.keyword() == "AND":
            self.take()
            p = ("and", p, self.negation())
        return p

    def negation(self):
        k = self.keyword()
        if k == "NOT":
            self.take()
            return ("not", self.negation())
        if k in ("TRUEPREDICATE", "FALSEPREDICATE"):
            self.take()
            return ("const", k == "TRUEPREDICATE")
        if self.peek() == ("op", "("):
            saved = self.i
            try:
                self.take()
                inner = self.predicate()
                self.expect(")")
                return inner
            except ParseError:
                self.i = saved
        return self.comparison()

    def comparison(self):
        quantifier = self.keyword() if self.keyword() in ("ANY", "SOME", "ALL", "NONE") else None
        if quantifier:
            self.take()
            quantifier = "ANY" if quantifier == "SOME" else quantifier
        lhs = self.expression()
        kind, value = self.take()
        if kind == "op" and value in ("==", "!=", "<", "<=", ">", ">="):
            op = value
        elif kind == "name" and value.upper() in STRING_OPS | {"BETWEEN", "IN"}:
            op = value.upper()
        else:
            raise ParseError("expected an operator, found %r" % (value,))
        options = ""
        if self.peek() == ("op", "["):
            self.take()
            options = self.take()[1].lower()
            self.expect("]")
        return ("cmp", quantifier, lhs, op, options, self.expression())

    def expression(self):
        e = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            e = ("arith", self.take()[1], e, self.term())
        return e

    def term(self):
        e = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            e = ("arith", self.take()[1], e, self.unary())
        return e

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            inner = self.unary()
            return ("lit", -inner[1]) if inner[0] == "lit" and isinstance(inner[1], (int, float)) else ("neg", inner)
        return self.primary()

    def primary(self):
        kind, value = self.take()
        if kind in ("num", "str"):
            return ("lit", value)
        if kind == "op" and value == "(":
            e = self.expression()
            self.expect(")")
            return e
        if kind == "op" and value == "{":
            items = []
            if self.peek() != ("op", "}"):
                items.append(self.expression())
                while self.peek() == ("op", ","):
                    self.take()
                    items.append(self.expression())
            self.expect("}")
            return ("list", items)
        if kind == "name":
            k = value.upper()
            if k in ("YES", "TRUE", "NO", "FALSE"):
                return ("lit", 1 if k in ("YES", "TRUE") else 0)
            if k in ("NIL", "NULL"):
                return ("lit", None)
            if k == "CAST":
                self.expect("(")
                inner = self.expression()
                self.expect(",")
                type_name = self.take()[1]
                self.expect(")")
                if type_name != "NSDate" or inner[0] != "lit":
                    raise ParseError("only CAST('…', 'NSDate') of a literal")
                when = datetime.datetime.fromisoformat(inner[1].replace("Z", "+00:00"))
                return ("lit", (when - REFERENCE_DATE).total_seconds())
            path = [value.lstrip("#")]
            while self.peek() == ("op", "."):
                self.take()
                path.append(self.take()[1].lstrip("#"))
            return ("path", path)
        raise ParseError("expected an expression, found %r" % (value,))


# MARK: Strings

def fold(text, options):
    if "c" in options:
        text = text.lower()
    if "d" in options:
        text = unicodedata.normalize("NFC", "".join(ch for ch in unicodedata.normalize("NFD", text)
                                                    if unicodedata.category(ch) != "Mn"))
    return text


def like_regex(pattern):
    out, escaped = [], False
    for ch in pattern:
        if escaped:
            out.append(re.escape(ch))
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def string_operator(op, options, a, b):
    if a is None or b is None or not isinstance(a, str) or not isinstance(b, str):
        return False
    if op == "MATCHES":
        # [d] folds the text and the pattern; [c] is the expression's own option.
        if "d" in options:
            a, b = fold(a, "d"), fold(b, "d")
        return re.fullmatch(b, a, re.IGNORECASE if "c" in options else 0) is not None
    a, b = fold(a, options), fold(b, options)
    if op == "LIKE":
        return re.fullmatch(like_regex(b), a, re.DOTALL) is not None
    if b == "":
        return False  # rangeOfString: finds no empty string
    return {"BEGINSWITH": a.startswith, "ENDSWITH": a.endswith, "CONTAINS": a.__contains__}[op](b)


# MARK: Evaluation

class Store:
    """The rows of one entity and of the destination of its to-many relationships."""

    def __init__(self, path, entity, to_many):
        self.db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        self.entity = entity
        self.to_many = to_many  # relationship name -> (destination entity, inverse to-one name)
        self.rows = self.objects(entity)
        self.children = {}
        for name, (destination, inverse) in to_many.items():
            column = "Z" + inverse.upper()
            children = {}
            for row in self.objects(destination):
                children.setdefault(row.get(column), []).append(row)
            self.children[name] = children

    def objects(self, entity):
        numbers = [n for (n,) in self.db.execute("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", (entity,))]
        cursor = self.db.execute('SELECT * FROM "Z%s" WHERE Z_ENT IN (%s) ORDER BY Z_PK'
                                 % (entity.upper(), ",".join(str(n) for n in numbers)))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    def matching(self, predicate_text):
        tree = Parser(predicate_text).parse()
        return [row["Z_PK"] for row in self.rows if Evaluator(self, row).predicate(tree)]


class Evaluator:
    def __init__(self, store, row):
        self.store = store
        self.row = row

    def predicate(self, p):
        kind = p[0]
        if kind == "const":
            return p[1]
        if kind == "and":
            return self.predicate(p[1]) and self.predicate(p[2])
        if kind == "or":
            return self.predicate(p[1]) or self.predicate(p[2])
        if kind == "not":
            return not self.predicate(p[1])
        _, quantifier, lhs, op, options, rhs = p
        if quantifier:
            relationship, key = lhs[1][0], lhs[1][1:]
            elements = self.store.children[relationship].get(self.row["Z_PK"], [])
            right = self.value(rhs, self.row)
            tests = [self.compare(self.value(("path", key), element), op, options, right) for element in elements]
            return {"ANY": any(tests), "ALL": all(tests), "NONE": not any(tests)}[quantifier]
        return self.compare(self.value(lhs, self.row), op, options, self.value(rhs, self.row))

    def compare(self, a, op, options, b):
        if op in STRING_OPS:
            return string_operator(op, options, a, b)
        if op in ("==", "!="):
            if isinstance(a, str) and isinstance(b, str):
                a, b = fold(a, options), fold(b, options)
            equal = a == b  # None == None holds; None == 5 does not
            return equal if op == "==" else not equal
        if op == "IN":
            if a is None:
                return False
            items = [fold(x, options) if isinstance(x, str) else x for x in b if x is not None]
            return (fold(a, options) if isinstance(a, str) else a) in items
        if a is None:
            return False
        if op == "BETWEEN":
            low, high = b
            return low is not None and high is not None and low <= a <= high
        if b is None:
            return False
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]

    def value(self, e, row):
        kind = e[0]
        if kind == "lit":
            return e[1]
        if kind == "list":
            return [self.value(item, row) for item in e[1]]
        if kind == "neg":
            v = self.value(e[1], row)
            return None if v is None else -v
        if kind == "arith":
            a, b = self.value(e[2], row), self.value(e[3], row)
            if a is None or b is None:
                return None
            if e[1] == "/":
                return None if b == 0 else a / b  # as doubles; SQLite gives NULL for / 0
            return {"+": a + b, "-": a - b, "*": a * b}[e[1]]
        path = e[1]
        if len(path) >= 2 and path[0] in self.store.to_many and path[1].startswith("@"):
            elements = self.store.children[path[0]].get(row["Z_PK"], [])
            if path[1] == "@count":
                return len(elements)
            values = [v for v in (element.get("Z" + path[2].upper()) for element in elements) if v is not None]
            if path[1] == "@sum":
                return sum(values)
            if not values:
                return None
            return {"@min": min, "@max": max, "@avg": lambda vs: sum(vs) / len(vs)}[path[1]](values)
        if len(path) != 1:
            raise ParseError("unsupported key path %s" % ".".join(path))
        return row.get("Z" + path[0].upper())


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        return 64
    store = Store(argv[1], argv[2], {})
    for key in store.matching(argv[3]):
        print(key)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
