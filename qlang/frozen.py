"""Pickling for the frozen dataclasses that mypyc compiles (`qlang.compiled`).

A compiled class unpickles by setting each attribute in turn, which a frozen dataclass refuses,
so a `Signature` or a syntax's `Extent` sent to a Ray actor or a worker process would fail to
arrive.  Each such class reduces itself to its constructor and the arguments it was built with.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def by_fields(instance: DataclassInstance) -> tuple[Any, tuple[Any, ...]]:
    """`instance`'s `__reduce__`: its class, called again with its fields that `__init__` takes."""
    return type(instance), tuple(getattr(instance, f.name) for f in fields(instance) if f.init)
