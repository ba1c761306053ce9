"""One registry for everything a plugin can add: motion patterns, facts, edit ops, benchmark
formats and pair kinds. Each is a :class:`Registry`, so they all store, look up, refuse a
second registration and name what is known in the same way.

A registry is a ``dict`` (name -> object, in registration order: built-ins first), so code
that iterates it or indexes a name it knows is registered reads as before; a name that may
come from a user goes through :meth:`Registry.lookup`, whose error names every known one.
This module imports nothing from tempogen but its errors, so every layer can hold one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from tempogen.errors import ConfigurationError

T = TypeVar("T")


class UnknownNameError(ConfigurationError, KeyError):
    """A name no registered entry has (a pattern, a fact, an op, a format, a pair kind): a
    user's error (exit 2) that is also a ``KeyError`` for code that looks names up."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class Registry(dict[str, T], Generic[T]):
    """Named entries of one kind, in registration order.

    ``kind`` is the noun errors use (``"motion"``, ``"format"``); ``error`` the exception an
    unknown name raises (an :class:`UnknownNameError` unless the kind has its own)."""

    def __init__(self, kind: str, error: Callable[[str], Exception] = UnknownNameError) -> None:
        super().__init__()
        self.kind = kind
        self.error = error

    def add(self, name: str, entry: T, *, same: Callable[[T, T], bool] | None = None) -> T:
        """Register ``entry`` under ``name``; a name taken by another entry is refused
        (``same(old, new)`` true means it is the same one registered again, which is kept)."""
        if not name:
            raise ValueError(f"a {self.kind} needs a name")
        if name in self:
            if same is not None and same(self[name], entry):
                return self[name]
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self[name] = entry
        return entry

    def lookup(self, name: str, where: str = "") -> T:
        """The entry ``name``; an unknown name raises :meth:`unknown` (``where`` prefixes
        the message: a file and line, a field)."""
        try:
            return self[name]
        except (KeyError, TypeError):  # TypeError: an unhashable name from a parsed file
            raise self.unknown(name, where) from None

    def unknown(
        self, name: object, where: str = "", known: Iterable[str] | None = None
    ) -> Exception:
        """The error for an unknown ``name``: ``unknown KIND 'name'; known: a, b, c`` in
        registration order, built-ins first (``known`` narrows the list, e.g. to the formats
        that can be scored)."""
        names = ", ".join(self if known is None else known) or "none"
        prefix = f"{where}: " if where else ""
        return self.error(f"{prefix}unknown {self.kind} {name!r}; known: {names}")

    def check(self, names: Iterable[str], where: str = "") -> None:
        """Refuse the first of ``names`` that is not registered."""
        for name in names:
            self.lookup(name, where)

    def copy(self) -> Registry[T]:
        """A registry of the same kind holding the same entries (a test's scratch copy)."""
        twin: Registry[T] = Registry(self.kind, self.error)
        twin.update(self)
        return twin

    def listing(self, describe: Callable[[T], str] | None = None) -> list[str]:
        """One line per entry for the CLI: its name, then ``describe(entry)`` if given."""
        if describe is None:
            return list(self)
        width = max((len(n) for n in self), default=0)
        return [f"{name:{width}s}  {describe(entry)}".rstrip() for name, entry in self.items()]
