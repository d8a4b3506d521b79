"""Policy bundles: loaded and compiled once, shared by every session."""

from __future__ import annotations

import os

from . import _native


class Bundle:
    """A compiled policy bundle (a directory with ``bundle.yaml``)."""

    __slots__ = ("_native",)

    def __init__(self, native: _native.NativeBundle) -> None:
        self._native = native

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Bundle":
        """Loads and compiles the bundle in directory ``path``.

        Raises :class:`turnstile.BundleError` when the bundle is missing or
        has problems; its ``problems`` attribute lists every diagnostic as a
        dict with ``code``, ``message``, ``file``, ``line``, ``column`` and
        ``help``.
        """
        return cls(_native.NativeBundle.load(os.fspath(path)))

    @property
    def name(self) -> str:
        """The bundle's name, from its manifest."""
        return self._native.name

    @property
    def id(self) -> str:
        """The bundle's content id: the same wherever its files lie."""
        return self._native.id

    @property
    def path(self) -> str:
        """The directory the bundle was loaded from."""
        return os.fspath(self._native.path)

    def __repr__(self) -> str:
        return f"Bundle(name={self.name!r}, id={self.id!r})"
