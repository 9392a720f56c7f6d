"""``.tipc_prepare.json``: what ``tipc prepare`` made in a directory, and how.

The manifest is the only proof of ownership: tipc overwrites or removes a file
only when a manifest in that directory lists it. Layout::

    {"tool": "tipc prepare", "format": 1,
     "entries": {"<key>": {"params": {...}, "files": ["rel/path.png", ...], "digest": "<sha256>"}}}

``key`` names one dataset in the directory (a label file's path relative to
the directory, or ``inference_images``); ``files`` are relative to the directory;
``digest`` is the sha256 of the label file as written, so a label file that was
edited or clobbered afterwards (two prepares racing) is made again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tipc.errors import ConfigError

MANIFEST_NAME = ".tipc_prepare.json"
_TOOL = "tipc prepare"
_FORMAT = 1


@dataclass(frozen=True, slots=True)
class Entry:
    params: Mapping[str, Any]
    files: tuple[str, ...]
    digest: str = ""  # sha256 of the label file; "" for an image directory


@dataclass(frozen=True, slots=True)
class Manifest:
    dir: Path
    entries: Mapping[str, Entry] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.dir / MANIFEST_NAME

    def owned(self) -> frozenset[Path]:
        """Absolute paths of every file any entry lists, plus the manifest itself."""
        files = {_inside(self.dir, rel) for entry in self.entries.values() for rel in entry.files}
        return frozenset(files | {self.path.absolute()})

    def with_entry(self, key: str, entry: Entry) -> Manifest:
        return Manifest(self.dir, {**self.entries, key: entry})


def _inside(base: Path, rel: str) -> Path:
    return (base / rel).absolute()


def _malformed(path: Path, what: str) -> ConfigError:
    return ConfigError(str(path), 0, f"not a tipc prepare manifest ({what}); move it away or delete it")


def read_manifest(dir: Path) -> Manifest:
    """The manifest of ``dir``; an empty one when there is none."""
    dir = Path(dir).absolute()
    path = dir / MANIFEST_NAME
    if not path.is_file():
        return Manifest(dir)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _malformed(path, f"unreadable JSON: {exc}") from None
    if not isinstance(raw, dict) or raw.get("tool") != _TOOL or raw.get("format") != _FORMAT:
        raise _malformed(path, f'expected "tool": "{_TOOL}" and "format": {_FORMAT}')
    entries = raw.get("entries")
    if not isinstance(entries, dict):
        raise _malformed(path, '"entries" is not an object')
    parsed: dict[str, Entry] = {}
    for key, value in entries.items():
        if not (
            isinstance(value, dict)
            and isinstance(value.get("params"), dict)
            and isinstance(value.get("files"), list)
            and all(isinstance(f, str) for f in value["files"])
        ):
            raise _malformed(path, f"entry {key!r} lacks params/files")
        parsed[key] = Entry(value["params"], tuple(value["files"]), str(value.get("digest", "")))
    return Manifest(dir, parsed)


def write_manifest(manifest: Manifest) -> None:
    entries = {
        key: {"params": dict(e.params), "files": list(e.files), "digest": e.digest}
        for key, e in sorted(manifest.entries.items())
    }
    text = json.dumps({"tool": _TOOL, "format": _FORMAT, "entries": entries}, indent=1, sort_keys=True)
    manifest.dir.mkdir(parents=True, exist_ok=True)
    manifest.path.write_text(text + "\n", encoding="utf-8")
