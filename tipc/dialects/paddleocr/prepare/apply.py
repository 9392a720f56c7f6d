"""Make the planned data sets on disk: idempotent, and never touching foreign files.

A data set is skipped when its manifest entry has the same parameters and all
its files exist. Otherwise tipc removes the files its previous entry listed
(and only those), records the new entry, then writes. A file at a path tipc
wants to write that no manifest lists belongs to the user: tipc refuses unless
``force``, and even then only overwrites it, never deletes anything else.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Any

from tipc.dialects.paddleocr.prepare.manifest import Entry, Manifest, read_manifest, write_manifest
from tipc.dialects.paddleocr.prepare.targets import LabelledSet, PrepareJob, Target
from tipc.dialects.paddleocr.prepare.writer import (
    drawer,
    image_paths,
    labelled_image_dir,
    write_images,
    write_labelled_set,
)
from tipc.errors import ConfigError

INFER_KEY = "inference_images"


class PrepareAction(str, Enum):
    CREATED = "created"
    UNCHANGED = "unchanged"
    REGENERATED = "regenerated"


@dataclass(frozen=True, slots=True)
class Prepared:
    target: Target
    action: PrepareAction
    where: Path  # the label file or the image directory


@dataclass(frozen=True, slots=True)
class _Work:
    """A target reduced to what the bookkeeping needs."""

    dir: Path  # holds the manifest
    key: str
    params: dict[str, Any]
    planned: tuple[Path, ...]  # absolute, every file the write produces
    write: Callable[[], object]
    exclusive_dir: bool  # the directory must hold only tipc's files
    label_file: Path | None = None  # its digest proves the dataset is still as written

    def digest(self) -> str:
        if self.label_file is None or not self.label_file.is_file():
            return ""
        return hashlib.sha256(self.label_file.read_bytes()).hexdigest()


def _params(target: Target) -> dict[str, Any]:
    # Through JSON, as the manifest stores them: tuples become lists, and compare equal after a reread.
    params = {"generator": drawer(target.style).generator, "count": target.count, "seed": target.seed}
    stored: dict[str, Any] = json.loads(json.dumps({**params, **asdict(target.style)}))
    return stored


def _rel(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def _work(target: Target) -> _Work:
    if isinstance(target, LabelledSet):
        images = image_paths(target.style, labelled_image_dir(target.data_dir, target.label_file), target.count)
        return _Work(
            target.data_dir,
            _rel(target.label_file, target.data_dir),
            _params(target),
            (*images, target.label_file),
            partial(write_labelled_set, target.style, target.data_dir, target.label_file, target.count, target.seed),
            exclusive_dir=False,
            label_file=target.label_file,
        )
    return _Work(
        target.dir,
        INFER_KEY,
        _params(target),
        image_paths(target.style, target.dir, target.count),
        partial(write_images, target.style, target.dir, target.count, target.seed),
        exclusive_dir=True,
    )


def _files_in(dir: Path) -> list[Path]:
    if not dir.is_dir():
        return []
    return sorted(Path(root, name).absolute() for root, _, names in os.walk(dir) for name in names)


def _check_foreign(work: _Work, manifest: Manifest, force: bool) -> None:
    if force:
        return
    owned = manifest.owned()
    clashes = [p for p in work.planned if p.exists() and p not in owned]
    if clashes:
        # The label file comes last in ``planned``: name it first, it is the telling one.
        raise ConfigError(
            str(clashes[-1]),
            0,
            f"exists and tipc did not make it (no entry in {manifest.path}); "
            "refusing to overwrite it. Move it away, or rerun with --force to overwrite "
            f"the {len(clashes)} file(s) at paths tipc writes",
        )
    if work.exclusive_dir:
        foreign = [p for p in _files_in(work.dir) if p not in owned]
        if foreign:
            raise ConfigError(
                str(work.dir),
                0,
                f"directory holds {len(foreign)} file(s) tipc did not make (e.g. {foreign[0].name}); "
                "refusing to mix synthetic images into it. Use another directory, "
                "or rerun with --force to add them anyway",
            )


def _remove_stale(entry: Entry, manifest: Manifest, keep: set[Path]) -> None:
    """Delete files the old entry listed and the new one does not, inside the directory only."""
    root = manifest.dir.resolve()
    emptied: set[Path] = set()
    for rel in entry.files:
        path = (manifest.dir / rel).absolute()
        if path in keep or not path.is_file() or not path.resolve().is_relative_to(root):
            continue
        path.unlink()
        emptied.add(path.parent)
    for dir in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        if dir.resolve() != root and not any(dir.iterdir()):
            dir.rmdir()  # only a directory left empty by removing tipc's own files


def apply_target(target: Target, *, force: bool = False) -> Prepared:
    work = _work(target)
    where = target.label_file if isinstance(target, LabelledSet) else target.dir
    manifest = read_manifest(work.dir)
    entry = manifest.entries.get(work.key)
    if (
        entry is not None
        and entry.params == work.params
        and entry.digest == work.digest()
        and all((work.dir / f).exists() for f in entry.files)
    ):
        return Prepared(target, PrepareAction.UNCHANGED, where)
    _check_foreign(work, manifest, force)
    if entry is not None:
        _remove_stale(entry, manifest, set(work.planned))
    # Record before writing: files of an interrupted run are still known to be tipc's.
    new_entry = Entry(work.params, tuple(_rel(p, work.dir) for p in work.planned))
    write_manifest(manifest.with_entry(work.key, new_entry))
    work.write()
    write_manifest(manifest.with_entry(work.key, replace(new_entry, digest=work.digest())))
    return Prepared(target, PrepareAction.CREATED if entry is None else PrepareAction.REGENERATED, where)


def apply_job(job: PrepareJob, *, force: bool = False) -> tuple[Prepared, ...]:
    return tuple(apply_target(target, force=force) for target in job.targets)
