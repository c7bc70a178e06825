"""The abstract syntax tree of a `storage.rules` file. `offset` is the node's start in the source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union


@dataclass
class Literal:
    offset: int
    value: Any


@dataclass
class Name:
    offset: int
    name: str


@dataclass
class PathLiteral:
    offset: int
    parts: list[Union[str, "Expression"]]  # literal segments and `$(expr)` bindings


@dataclass
class ListLiteral:
    offset: int
    items: list["Expression"]


@dataclass
class MapLiteral:
    offset: int
    entries: list[tuple["Expression", "Expression"]]


@dataclass
class Unary:
    offset: int
    operator: str
    operand: "Expression"


@dataclass
class Binary:
    offset: int
    operator: str
    left: "Expression"
    right: "Expression"


@dataclass
class Logical:
    """`a && b && …` or `a || b || …`, flattened: error absorption looks at every operand."""
    offset: int
    operator: str
    operands: list["Expression"]


@dataclass
class Conditional:
    offset: int
    condition: "Expression"
    then: "Expression"
    otherwise: "Expression"


@dataclass
class TypeCheck:
    offset: int
    operand: "Expression"
    type_name: str


@dataclass
class Member:
    offset: int
    target: "Expression"
    name: str


@dataclass
class Index:
    offset: int
    target: "Expression"
    index: "Expression"


@dataclass
class Slice:
    offset: int
    target: "Expression"
    start: "Expression"
    end: "Expression"


@dataclass
class Call:
    offset: int
    callee: "Expression"  # a Name (function) or a Member (method or namespace function)
    arguments: list["Expression"]


Expression = Union[Literal, Name, PathLiteral, ListLiteral, MapLiteral, Unary, Binary, Logical, Conditional, TypeCheck,
                   Member, Index, Slice, Call]


@dataclass
class Function:
    offset: int
    name: str
    parameters: list[str]
    lets: list[tuple[str, Expression]]
    result: Expression


@dataclass
class Allow:
    offset: int
    methods: list[str]
    condition: Expression | None


@dataclass
class Segment:
    kind: str  # "literal", "single" ({x}) or "glob" ({x=**})
    text: str  # the literal, or the variable name


@dataclass
class Match:
    offset: int
    segments: list[Segment]
    functions: list[Function] = field(default_factory=list)
    allows: list[Allow] = field(default_factory=list)
    matches: list["Match"] = field(default_factory=list)


@dataclass
class Service:
    offset: int
    name: str
    functions: list[Function]
    matches: list[Match]


@dataclass
class RulesFile:
    version: str  # "1" or "2"
    functions: list[Function]
    services: list[Service]
