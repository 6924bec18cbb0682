"""Read a workload file: a tokenizer and a recursive-descent parser, one query per line.

The format (documented in the README) is a small subset of SQL, so analysts can paste their queries::

    # comments start with '#'; blank lines are skipped
    COUNT(*) WHERE age BETWEEN 30 AND 39 AND sex = 'F'
    AVG(length_of_stay) WHERE zip LIKE '021%' WEIGHT 2
    SELECT COUNT(*) FROM Patients WHERE sex = 'Male' AND age <= 36

Grammar (keywords in any case; ``SELECT`` and ``FROM name`` are optional and ignored)::

    query      := [SELECT] aggregate [FROM name] [WHERE predicate (AND predicate)*] [WEIGHT number] [;]
    aggregate  := COUNT '(' '*' ')' | (SUM | AVG | MIN | MAX) '(' column ')'
    predicate  := column ( op literal | BETWEEN literal AND literal
                         | IN '(' literal (',' literal)* ')' | LIKE 'prefix%' )
    op         := '=' | '<' | '<=' | '>' | '>='
    column     := name | "any name in double quotes"
    literal    := number | 'text in single quotes'

A name starts with a letter or ``_`` and may hold letters, digits, ``_``, ``-`` and ``.`` (so Adult's
``marital-status`` needs no quotes). A parse error names the file, the line, the column and the token
found, and says what was expected there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from kanon_engine.data.sniff import detect_encoding
from kanon_engine.errors import KanonError
from kanon_engine.i18n import _
from kanon_engine.workload.query import (
    AGGREGATES,
    KEYWORDS,
    Between,
    Comparison,
    InList,
    LikePrefix,
    Literal,
    Predicate,
    Query,
    Workload,
    is_bare_name,
)

__all__ = ["KEYWORDS", "WorkloadError", "is_bare_name", "parse_query", "parse_workload", "read_workload"]


class WorkloadError(KanonError):
    """A workload file or query cannot be read (syntax), or does not fit the table (columns, types)."""

    kind = "workload"


@dataclass(frozen=True)
class Token:
    kind: str  # NAME, QNAME, STRING, NUMBER, OP, LPAREN, RPAREN, COMMA, STAR, SEMI, END
    text: str
    column: int  # 1-based position in the line

    def shown(self) -> str:
        if self.kind == "END":
            return _("the end of the line")
        if self.kind == "STRING":
            return f"'{self.text}'"
        if self.kind == "QNAME":
            return f'"{self.text}"'
        return f"'{self.text}'"


def _name_start(c: str) -> bool:
    return c.isalpha() or c == "_"


def _name_char(c: str) -> bool:
    return c.isalnum() or c in "_-."


class _Tokenizer:
    """Splits one line into tokens; ``#`` starts a comment outside quotes."""

    def __init__(self, text: str, fail: Callable[..., NoReturn]) -> None:
        self.text = text
        self.fail = fail
        self.i = 0

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        text = self.text
        while True:
            while self.i < len(text) and text[self.i].isspace():
                self.i += 1
            if self.i >= len(text) or text[self.i] == "#":
                out.append(Token("END", "", len(text) + 1))
                return out
            out.append(self._next())

    def _next(self) -> Token:
        text, start = self.text, self.i
        c = text[start]
        if c in "'\"":
            return self._quoted(c)
        if c.isdigit() or (c in "+-." and self._number_at(start)):
            return self._number()
        if _name_start(c):
            j = start
            while j < len(text) and _name_char(text[j]):
                j += 1
            self.i = j
            return Token("NAME", text[start:j], start + 1)
        two = text[start : start + 2]
        if two in ("<=", ">="):
            self.i += 2
            return Token("OP", two, start + 1)
        if two in ("<>", "!="):
            self.fail(
                Token("OP", two, start + 1),
                _("a comparison kanon reads (=, <, <=, >, >=); not-equal is not supported"),
            )
        single = {
            "=": "OP",
            "<": "OP",
            ">": "OP",
            "(": "LPAREN",
            ")": "RPAREN",
            ",": "COMMA",
            "*": "STAR",
            ";": "SEMI",
        }
        if c in single:
            self.i += 1
            return Token(single[c], c, start + 1)
        self.fail(
            Token("CHAR", c, start + 1), _("a name, a number, a quoted text or one of = < <= > >= ( ) , *")
        )
        raise AssertionError  # fail raises

    def _number_at(self, i: int) -> bool:
        text = self.text
        if text[i] in "+-":
            i += 1
        if i < len(text) and text[i] == ".":
            i += 1
        return i < len(text) and text[i].isdigit()

    def _number(self) -> Token:
        text, start = self.text, self.i
        j = start
        if text[j] in "+-":
            j += 1
        while j < len(text) and (text[j].isdigit() or text[j] == "."):
            j += 1
        if j < len(text) and text[j] in "eE":
            k = j + 1
            if k < len(text) and text[k] in "+-":
                k += 1
            if k < len(text) and text[k].isdigit():
                j = k
                while j < len(text) and text[j].isdigit():
                    j += 1
        word = text[start:j]
        if j < len(text) and _name_char(text[j]):
            while j < len(text) and _name_char(text[j]):
                j += 1
            self.fail(
                Token("NAME", text[start:j], start + 1), _("a number or a name that starts with a letter")
            )
        try:
            float(word)
        except ValueError:
            self.fail(Token("NUMBER", word, start + 1), "a number")
        self.i = j
        return Token("NUMBER", word, start + 1)

    def _quoted(self, quote: str) -> Token:
        text, start = self.text, self.i
        j = start + 1
        parts: list[str] = []
        while True:
            k = text.find(quote, j)
            if k < 0:
                self.fail(
                    Token("STRING", text[start:], start + 1),
                    _("the closing {quote} of the quoted text", quote=quote)
                    if quote == "'"
                    else _("the closing {quote} of the quoted column name", quote=quote),
                )
            parts.append(text[j:k])
            if text[k + 1 : k + 2] == quote:  # doubled quote = the quote itself
                parts.append(quote)
                j = k + 2
                continue
            self.i = k + 1
            return Token("STRING" if quote == "'" else "QNAME", "".join(parts), start + 1)


class _LineParser:
    """Recursive descent over the tokens of one line (see the module docstring for the grammar)."""

    def __init__(self, text: str, line: int, source: str) -> None:
        self.line = line
        self.source = source
        self.tokens = _Tokenizer(text, self.fail).tokens()
        self.pos = 0

    def fail(self, token: Token, expected: str) -> NoReturn:
        where = (
            _("{source}, line {line}", source=self.source, line=str(self.line)) if self.line else self.source
        )
        raise WorkloadError(
            _(
                "{where}, column {column}: expected {expected}, found {found}.",
                where=where,
                column=str(token.column),
                expected=expected,
                found=token.shown(),
            ),
            hint=_(
                "See the workload format in the README (one query per line, e.g. COUNT(*) WHERE age "
                "BETWEEN 30 AND 39 AND sex = 'F')."
            ),
            where=f"line {self.line}" if self.line else self.source,  # a locator (the editor underlines it)
        )

    # --- token helpers ---------------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def keyword(self, word: str) -> bool:
        """Consume the keyword ``word`` when it is next."""
        if self.tok.kind == "NAME" and self.tok.text.upper() == word:
            self.pos += 1
            return True
        return False

    def expect_keyword(self, word: str, expected: str | None = None) -> None:
        if not self.keyword(word):
            self.fail(self.tok, expected or word)

    def expect(self, kind: str, expected: str) -> Token:
        if self.tok.kind != kind:
            self.fail(self.tok, expected)
        token = self.tok
        self.pos += 1
        return token

    # --- grammar ---------------------------------------------------------------------------------------
    def query(self) -> Query:
        self.keyword("SELECT")
        aggregate, column = self.aggregate()
        if self.keyword("FROM"):
            self.column_name(_("a table name after FROM"))
        predicates = []
        if self.keyword("WHERE"):
            predicates.append(self.predicate())
            while self.keyword("AND"):
                predicates.append(self.predicate())
        weight = 1.0
        if self.keyword("WEIGHT"):
            token = self.expect("NUMBER", _("a weight (a number) after WEIGHT"))
            weight = float(token.text)
            if not weight > 0:
                self.fail(token, _("a weight greater than 0"))
        if self.tok.kind == "SEMI":
            self.pos += 1
        if self.tok.kind != "END":
            self.fail(self.tok, _("AND, WEIGHT or the end of the query"))
        return Query(aggregate, column, tuple(predicates), weight, self.line)

    def aggregate(self) -> tuple[str, str | None]:
        token = self.tok
        name = token.text.upper() if token.kind == "NAME" else ""
        if name not in AGGREGATES:
            self.fail(
                token, _("an aggregate: COUNT(*), SUM(column), AVG(column), MIN(column) or MAX(column)")
            )
        self.pos += 1
        self.expect("LPAREN", _("'(' after {name}", name=name))
        if name == "COUNT":
            self.expect("STAR", _("'*' in COUNT(*) (kanon counts records)"))
            column = None
        else:
            column = self.column_name(_("the column to aggregate in {name}(...)", name=name))
        self.expect("RPAREN", _("')' to close {name}(", name=name))
        return name, column

    def column_name(self, expected: str | None = None) -> str:
        expected = expected or _("a column name")
        token = self.tok
        if token.kind == "QNAME" or (token.kind == "NAME" and token.text.upper() not in KEYWORDS):
            self.pos += 1
            return token.text
        if token.kind == "NAME":
            expected += _(' (a column named {text} goes in double quotes: "{text}")', text=token.text)
        self.fail(token, expected)
        raise AssertionError

    def literal(self, expected: str | None = None) -> Literal:
        expected = expected or _("a number or a quoted text such as 'F'")
        token = self.tok
        if token.kind == "NUMBER":
            self.pos += 1
            return Literal(float(token.text), token.text)
        if token.kind == "STRING":
            self.pos += 1
            return Literal(token.text, token.text)
        self.fail(token, expected)
        raise AssertionError

    def predicate(self) -> Predicate:
        column = self.column_name(_("a column name (a condition such as age >= 30)"))
        token = self.tok
        if token.kind == "OP":
            self.pos += 1
            return Comparison(column, token.text, self.literal())
        if self.keyword("BETWEEN"):
            low = self.literal()
            self.expect_keyword("AND", _("AND between the two ends of BETWEEN"))
            return Between(column, low, self.literal())
        if self.keyword("IN"):
            self.expect("LPAREN", _("'(' to open the list after IN"))
            values = [self.literal()]
            while self.tok.kind == "COMMA":
                self.pos += 1
                values.append(self.literal())
            self.expect("RPAREN", _("',' or ')' in the list after IN"))
            return InList(column, tuple(values))
        if self.keyword("LIKE"):
            pattern = self.expect("STRING", _("a quoted pattern such as '021%' after LIKE"))
            body = pattern.text
            if not body.endswith("%") or "%" in body[:-1] or "_" in body:
                self.fail(pattern, _("a prefix pattern: text ending in % such as '021%' (no other % or _)"))
            return LikePrefix(column, body[:-1])
        self.fail(
            token, _("a comparison after '{column}': =, <, <=, >, >=, BETWEEN, IN or LIKE", column=column)
        )
        raise AssertionError


def parse_query(text: str, line: int = 0, source: str = "query") -> Query:
    """One query from its text (``line`` numbers the error messages)."""
    return _LineParser(text, line, source).query()


def parse_workload(text: str, source: str = "workload") -> Workload:
    """Every query of a workload text; blank lines and ``#`` comments are skipped."""
    queries = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        queries.append(parse_query(line, number, source))
    if not queries:
        raise WorkloadError(
            _("{source} holds no query.", source=source),
            hint=_("Write one query per line, e.g. COUNT(*) WHERE age BETWEEN 30 AND 39."),
            where=source,
        )
    return Workload(tuple(queries), source)


def read_workload(path: str | Path) -> Workload:
    """Read a workload file (UTF-8, or cp1252 as Windows editors save it)."""
    return parse_workload(read_workload_text(path), Path(path).name)


def read_workload_text(path: str | Path) -> str:
    """The text of a workload file as written (UTF-8, or cp1252 as Windows editors save it)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise WorkloadError(
            _("The workload file {path} does not exist.", path=path), where=str(path)
        ) from None
    except OSError as exc:
        raise WorkloadError(
            _("The workload file {path} cannot be read: {value}.", path=path, value=exc.strerror or exc),
            where=str(path),
        ) from None

    encoding = detect_encoding(raw, partial=False)  # UTF-8, UTF-16 (Notepad's "Unicode"), cp1252
    if not encoding.startswith("utf-16") and b"\x00" in raw:  # UTF-16 without its byte-order mark
        encoding = "utf-16-le" if raw[1:2] == b"\x00" else "utf-16-be"
    try:
        return raw.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        raise WorkloadError(
            _(
                "The workload file {name} is neither UTF-8, UTF-16 nor Windows text ({encoding} did not "
                "read it).",
                name=path.name,
                encoding=encoding,
            ),
            hint=_("Save it again as UTF-8 text."),
            where=str(path),
        ) from None
