"""What a large report would hold of every record (a matrix row, a figures row) kept on disk instead,
in a scratch file of its folder, and read back one item at a time when a page is written: the memory
a report takes does not grow with its records."""

from __future__ import annotations

import pickle
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from operator import attrgetter
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar, overload

from tipc.files.write import writing

T = TypeVar("T")


class Scratch:
    """A scratch file (``write.scratch_file``) of ``folder``, items put at its end and read at their place.
    They are pickled: the file has no name, so only this process ever writes or reads it."""

    def __init__(self, file: BinaryIO, folder: Path) -> None:
        self.file, self.folder = file, folder

    def put(self, item: object) -> tuple[int, int]:
        """Writes ``item``; returns where it starts and where it ends."""
        with writing(self.folder):
            start = self.file.seek(0, 2)
            pickle.dump(item, self.file, pickle.HIGHEST_PROTOCOL)
            return start, self.file.tell()

    def get(self, start: int, end: int) -> Any:
        self.file.seek(start)
        return pickle.loads(self.file.read(end - start))


class Lazy(Sequence[T], Generic[T]):
    """A sequence whose items are made when asked for (``item``), a slice of it a tuple."""

    def item(self, k: int) -> T:
        raise NotImplementedError

    @overload
    def __getitem__(self, k: int) -> T: ...

    @overload
    def __getitem__(self, k: slice) -> tuple[T, ...]: ...

    def __getitem__(self, k: int | slice) -> T | tuple[T, ...]:
        if isinstance(k, slice):
            return tuple(self.item(j) for j in range(*k.indices(len(self))))
        return self.item(range(len(self))[k])  # a negative index counts from the end; out of range: IndexError

    def __iter__(self) -> Iterator[T]:
        return (self.item(k) for k in range(len(self)))


def flat(kind: type[T]) -> tuple[Callable[[T], tuple[object, ...]], Callable[[tuple[Any, ...]], T]]:
    """(pack, unpack) of a dataclass as the tuple of its fields: pickled five times as fast as itself."""
    get = attrgetter(*(f.name for f in fields(kind)))  # type: ignore[arg-type]
    return get, lambda values: kind(*values)


class Spill(Lazy[T]):
    """A list appended to, then read: in ``scratch`` when given, else in memory. In the file it is
    chunks of ``CHUNK`` items, each item ``pack``-ed (``flat``), so that it holds the chunk being
    filled, the chunk last read and two integers a chunk."""

    CHUNK = 256

    def __init__(
        self,
        scratch: Scratch | None = None,
        pack: Callable[[T], object] = lambda item: item,
        unpack: Callable[[Any], T] = lambda packed: packed,
    ) -> None:
        self.scratch, self.pack, self.unpack = scratch, pack, unpack
        self.items: list[T] = []  # in memory: every item; in the file: the chunk being filled
        self.size = 0
        self.bounds = array("q")  # chunk c lies between bounds[2c] and bounds[2c + 1]
        self.read: tuple[int, list[Any]] = (-1, [])  # the chunk last read

    def append(self, item: T) -> None:
        self.items.append(item)
        self.size += 1
        if self.scratch is not None and len(self.items) == self.CHUNK:
            self._put()

    def _put(self) -> None:
        assert self.scratch is not None
        self.bounds.extend(self.scratch.put([self.pack(x) for x in self.items]))
        self.items = []

    def held(self) -> Sequence[T]:
        """What a model keeps once every item is appended: the items themselves (a tuple, compared by
        value) when in memory, else this, its last chunk put in the file too."""
        if self.scratch is None:
            return tuple(self.items)
        if self.items:
            self._put()
        return self

    def __len__(self) -> int:
        return self.size

    def item(self, k: int) -> T:
        if self.scratch is None:
            return self.items[k]
        chunk, at = divmod(k, self.CHUNK)
        if chunk == len(self.bounds) // 2:  # the chunk being filled
            return self.items[at]
        if self.read[0] != chunk:
            self.read = (chunk, self.scratch.get(self.bounds[2 * chunk], self.bounds[2 * chunk + 1]))
        return self.unpack(self.read[1][at])
