"""A config's tags, read from its file name, and the ``--tags`` filter over them.

PaddleOCR names a config ``train_<hw>_<fleet|normal>_<amp|normal>_infer_python_<infer hw>.txt``
(``train_linux_gpu_fleet_normal_infer_python_linux_gpu_cpu.txt``). Its readme says the short
``train_infer_python.txt`` *is* ``train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt``;
``train_pact_infer_python.txt`` and ``train_ptq_infer_python.txt`` are that config quantized.

A config's tags are words: its training hardware (``linux_gpu``), ``fleet`` and ``amp`` when the
name says so (any other word in the fleet place too, e.g. ``nproc2``), ``pact`` or ``ptq``, and
``normal`` when it is neither fleet nor amp (``normal_normal`` in the name). A name that does not
follow the pattern has no tags. Words rather than ``slot=value`` pairs because "normal" would be
ambiguous between the two places that spell it; as one word it means the plain config.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

NORMAL = "normal"
SHORT_HARDWARE = "linux_gpu"  # what the short names stand for, by PaddleOCR's readme

_FULL = re.compile(
    r"train_(?P<hw>[a-z0-9]+_[a-z0-9]+)_(?P<train>[a-z0-9]+)_(?P<precision>[a-z0-9]+)_infer_python_.+\.txt"
)
_SHORT = re.compile(r"train_(?:(?P<variant>[a-z0-9]+)_)?infer_python\.txt")


@dataclass(frozen=True, slots=True)
class ConfigTags:
    hardware: str  # linux_gpu, linux_cpu, linux_dcu, mac_cpu, windows_gpu ...
    train: str = NORMAL  # fleet, normal, or another word in that place (nproc2)
    precision: str = NORMAL  # amp or normal
    variant: str = ""  # pact, ptq, or "" for none

    @property
    def words(self) -> tuple[str, ...]:
        """What ``--tags`` matches and the report shows, in the name's order."""
        plain = self.train == NORMAL and self.precision == NORMAL
        extra = [w for w in (self.train, self.precision) if w != NORMAL]
        return tuple(w for w in (self.hardware, *extra, NORMAL if plain else "", self.variant) if w)


def config_tags(file_name: str) -> ConfigTags | None:
    """The tags of a config file name; None for a name that does not follow PaddleOCR's pattern."""
    full = _FULL.fullmatch(file_name)
    if full:
        return ConfigTags(full["hw"], full["train"], full["precision"])
    short = _SHORT.fullmatch(file_name)
    if short:
        return ConfigTags(SHORT_HARDWARE, variant=short["variant"] or "")
    return None


def tag_words(file_name: str) -> tuple[str, ...]:
    tags = config_tags(file_name)
    return () if tags is None else tags.words


TagGroups = tuple[frozenset[str], ...]


def parse_tag_groups(values: Sequence[str]) -> TagGroups:
    """``--tags a,b --tags c`` → ({a, b}, {c}): a config matches when it has every tag of one group.
    ``ValueError`` names an empty tag."""
    groups = []
    for value in values:
        words = [w.strip() for w in value.split(",")]
        if not all(words):
            raise ValueError(f"--tags {value!r}: empty tag; expected words separated by commas, e.g. linux_cpu,normal")
        groups.append(frozenset(words))
    return tuple(groups)


def matches(words: Sequence[str], groups: TagGroups) -> bool:
    """No groups: everything matches."""
    return not groups or any(group <= set(words) for group in groups)
