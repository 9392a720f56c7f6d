"""What a large report would hold of every record (a matrix row, a figures row) kept on disk instead,
in a scratch file of its folder, and read back one item at a time when a page is written: the memory
a report takes does not grow with its records."""

from __future__ import annotations

import pickle
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Generic, TypeVar, overload

from tipc.files.write import writing

T = TypeVar("T")


class Scratch:
    """A scratch file (``write.scratch_file``) of ``folder``, items put at its end and read at their place."""

    def __init__(self, file: BinaryIO, folder: Path) -> None:
        self.file, self.folder = file, folder

    def put(self, item: object) -> tuple[int, int]:
        """Writes ``item``; returns where it starts and where it ends."""
        with writing(self.folder):
            start = self.file.seek(0, 2)
            pickle.dump(item, self.file, pickle.HIGHEST_PROTOCOL)
            return start, self.file.tell()

    def get(self, start: int, end: int) -> object:
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


class Spill(Lazy[T]):
    """A list appended to: in ``scratch`` when given (each item's place kept as two integers), else in
    memory."""

    def __init__(self, scratch: Scratch | None = None) -> None:
        self.scratch = scratch
        self.items: list[T] = []
        self.bounds = array("q")  # item k lies between bounds[2k] and bounds[2k + 1]

    def append(self, item: T) -> None:
        if self.scratch is None:
            self.items.append(item)
        else:
            self.bounds.extend(self.scratch.put(item))

    def held(self) -> Sequence[T]:
        """What a model keeps: the items themselves (a tuple, compared by value) when in memory."""
        return self if self.scratch is not None else tuple(self.items)

    def __len__(self) -> int:
        return len(self.bounds) // 2 if self.scratch is not None else len(self.items)

    def item(self, k: int) -> T:
        if self.scratch is None:
            return self.items[k]
        return self.scratch.get(self.bounds[2 * k], self.bounds[2 * k + 1])  # type: ignore[return-value]
