"""The kind of key a free-key line should carry, and a warning when it carries another.

Free-key lines are found by position, so two swapped lines read without complaint (as the bash reads
them) and make nonsense arguments: ``Global.checkpoints`` swapped with ``--use_gpu`` gives the export
``--use_gpu=<save dir>/latest`` after its ``-o``. Each such role expects one kind of key: a trainer
override (``Section.key``, appended after the trainer's ``-o``) or a predictor flag (``--flag``). A
line whose key is of the other kind, or is the usual key of another role of its section, gets a
warning naming the line, what was found and what was expected. The config is still read as the bash
reads it (it runs such configs); ``null`` keys are placeholders and never warned about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from tipc.config.bounds import excerpt
from tipc.config.model import NULL, Field

WARNING = "warning: "  # how role warnings start among the config's (and so the plan's) notes


class KeyKind(Enum):
    OVERRIDE = "a trainer override (Section.key)"
    FLAG = "a predictor flag (--flag)"


@dataclass(frozen=True, slots=True)
class KeyRole:
    """A free-key role that expects one kind of key; ``usual`` is the key real configs write."""

    role: str
    kind: KeyKind
    usual: str


def kind_of(key: str) -> KeyKind:
    return KeyKind.FLAG if key.startswith("-") else KeyKind.OVERRIDE


def role_warnings(section: Iterable[KeyRole], fields: Mapping[str, Field]) -> tuple[str, ...]:
    """One warning per line of ``section`` (one section's key roles, in order) that holds a key of
    the wrong kind or another role's usual key. Lines read as missing (line 0) are skipped."""
    roles = tuple(section)
    usual = {r.usual: r for r in roles}
    warnings = []
    for expected in roles:
        field = fields[expected.role]
        if field.line == 0 or field.key in (NULL, expected.usual):
            continue
        key, other = f"'{excerpt(field.key)}'", usual.get(field.key)
        if other is not None:
            found, hint = f"{key}, the usual key of role {other.role},", " (swapped lines?)"
        elif kind_of(field.key) is not expected.kind:
            found, hint = f"{key}, {kind_of(field.key).value},", ""
        else:
            continue
        warnings.append(
            f"{WARNING}line {field.line}: found {found} for role {expected.role}; "
            f"expected {expected.kind.value} such as '{expected.usual}'{hint}"
        )
    return tuple(warnings)
