"""ITLR logical forms (arXiv 2503.17860): quoted terms with AND, OR, NOT and parentheses.

Grammar (`logical_form.lark`): T -> U OR U | U; U -> V AND V | V; V -> NOT W | W;
W -> "string" | (T), so NOT binds tighter than AND, and AND tighter than OR. Generators write
logical forms and check them with `parse`; the retrieval stage evaluates the tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from pipeline.errors import ComlqError
from pipeline.resources import package_data

# -- the tree ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    text: str


@dataclass(frozen=True)
class Not:
    child: Node


@dataclass(frozen=True)
class And:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    children: tuple[Node, ...]


Node = Term | Not | And | Or


def terms(node: Node, positive: bool | None = None, _negated: bool = False) -> Iterator[str]:
    """The node's term texts, left to right; positive=True: only terms under an even number of NOTs."""
    if isinstance(node, Term):
        if positive is None or positive != _negated:
            yield node.text
    elif isinstance(node, Not):
        yield from terms(node.child, positive, not _negated)
    else:
        for child in node.children:
            yield from terms(child, positive, _negated)


def to_string(node: Node) -> str:
    """The canonical logical form of a tree; parsing it gives the tree back, with nested
    same-operator nodes flattened (And(a, And(b, c)) -> And(a, b, c))."""
    if isinstance(node, Term):
        return '"' + node.text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(node, Not):
        inner = to_string(node.child)
        return f"NOT {inner}" if isinstance(node.child, Term) else f"NOT ({inner})"
    joiner = " AND " if isinstance(node, And) else " OR "
    return joiner.join(to_string(c) if not isinstance(c, Or) or isinstance(node, Or) else f"({to_string(c)})"
                       for c in node.children)


# -- parsing ----------------------------------------------------------------------------------


_ESCAPE = re.compile(r"\\(.)")


class _ToTree(Transformer):
    def term(self, items: list[Token]) -> Term:
        return Term(_ESCAPE.sub(r"\1", str(items[0])[1:-1]))  # drop the quotes, undo backslash escapes

    def negation(self, items: list[Node]) -> Not:
        return Not(items[0])

    def and_expr(self, items: list[Node]) -> And:
        return And(tuple(items))

    def or_expr(self, items: list[Node]) -> Or:
        return Or(tuple(items))


@cache
def _parser() -> Lark:
    grammar = package_data("pipeline", "logical_form.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", transformer=_ToTree())


def parse(text: str) -> Node:
    """Parse an ITLR logical form; bad input raises ComlqError naming the column and what was expected."""
    if not text or not text.strip():
        raise ComlqError("logical form is empty")
    try:
        tree = _parser().parse(text)
    except UnexpectedEOF as exc:
        raise ComlqError(
            f"logical form {text!r}: unexpected end of input; expected {_expected(exc.expected)}") from None
    except UnexpectedToken as exc:
        where = "end of input" if exc.token.type == "$END" else f"{str(exc.token)!r} at column {exc.column}"
        raise ComlqError(f"logical form {text!r}: unexpected {where}; expected {_expected(exc.expected)}") from None
    except UnexpectedCharacters as exc:
        raise ComlqError(f"logical form {text!r}: unexpected character {text[exc.pos_in_stream]!r} at column "
                         f"{exc.column} (terms must be in quotes)") from None
    except UnexpectedInput as exc:  # any other lark error
        raise ComlqError(f"logical form {text!r}: {exc}") from None
    return tree


_NAMES = {"TERM": "a quoted term", "LPAR": "'('", "RPAR": "')'",
          "_AND": "AND", "_OR": "OR", "_NOT": "NOT", "$END": "end"}


def _expected(names: set[str] | Sequence[str]) -> str:
    return " or ".join(sorted({_NAMES.get(n, n) for n in names}))
