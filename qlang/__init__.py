"""qlang: a typed question language for neuro-symbolic VQA, with four surface syntaxes."""

# first, before any hot module: importing it installs the finder that may load them compiled
from qlang import compiled  # noqa: F401
from qlang.api import check, compile, convert, format, lower, parse
from qlang.errors import CheckError, Diagnostic, ParseError, QlangError, UnsupportedOperation
from qlang.ir import Lit, Node, op
from qlang.passes.canonical import canonicalize
from qlang.signatures import SIGNATURES
from qlang.syntax import SYNTAXES, detect

__all__ = [
    "SIGNATURES", "SYNTAXES", "CheckError", "Diagnostic", "Lit", "Node", "ParseError",
    "QlangError", "UnsupportedOperation", "canonicalize", "check", "compile", "convert", "detect",
    "format", "lower", "op", "parse",
]
