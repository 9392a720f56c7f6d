"""``train_benchmark_params`` and ``benchmark_train.sh``'s PARAMS, typed (docs/spec.md §1.5, §6.4).

The section's five lines become ``BenchmarkParams`` (batch sizes, precisions, epochs, the profiler
option, the env flags), each bad value a ``ConfigError`` naming the file and line. A PARAMS word
such as ``dynamic_bs8_fp32_DP_N1C1`` or ``dynamicTostatic_bs8_fp16_DP_N1C8`` becomes a ``Selector``;
``tipc --benchmark-params`` takes one or more of them, comma-separated, each read as the bash reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tipc.config.bounds import excerpt
from tipc.config.model import Field, TipcConfig, TrainBenchmark
from tipc.errors import ConfigError, SettingsError

SECTION = "train_benchmark_params"
TO_STATIC_WORD = "dynamicTostatic"  # a model type holding it swaps norm_train for to_static_train
# At most 6 digits each, checked before a number is made: the plan lists every card's id.
DEVICE = re.compile(r"N([1-9]\d{0,5})C([1-9]\d{0,5})")
MAX_NODES = 1024
MAX_CARDS_PER_NODE = 64  # real machines have 1 to 16
MAX_BATCH_DIGITS = 6
_FLAG = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
PARAMS_FORM = (
    "<modeltype>_bs<N>_<fp32|fp16|...>_<runmode>_N<nodes>C<cards> (e.g. dynamic_bs8_fp32_DP_N1C1) or dynamicTostatic"
)


@dataclass(frozen=True, slots=True)
class DeviceNum:
    """``NxCy``: nodes and cards in all."""

    nodes: int
    cards: int

    @property
    def label(self) -> str:
        return f"N{self.nodes}C{self.cards}"

    @property
    def gpu_ids(self) -> tuple[str, ...]:
        """The bash's ``seq 0 (C-1)/N``: the ids each node trains on (``N1C4`` → 0..3, ``N2C16`` → 0..7)."""
        return tuple(str(i) for i in range((self.cards - 1) // self.nodes + 1))


DEFAULT_DEVICE = DeviceNum(1, 4)  # the bash without PARAMS runs N1C4 only


@dataclass(frozen=True, slots=True)
class BenchmarkParams:
    """The section, read: lists as the bash splits them, every value checked."""

    batch_sizes: tuple[str, ...]
    fp_items: tuple[str, ...]
    epoch: int
    profiler_option: str  # "<key>:<value>", as the bash rebuilds line 13 for the profiling pass
    flags: tuple[tuple[str, str], ...]  # exported before every run
    lines: TrainBenchmark


@dataclass(frozen=True, slots=True)
class Selector:
    """One PARAMS word. ``batch_size`` None: the bare ``dynamicTostatic`` (the section's lists, N1C4)."""

    text: str
    model_type: str
    batch_size: str | None = None
    precision: str = ""
    run_mode: str = "DP"
    device: DeviceNum = DEFAULT_DEVICE

    @property
    def to_static(self) -> bool:
        return TO_STATIC_WORD in self.model_type


def benchmark_params(config: TipcConfig) -> BenchmarkParams:
    """The config's section, or a ``ConfigError`` saying that benchmark_train needs it."""
    section = config.train_benchmark
    if section is None:
        raise ConfigError(
            config.path,
            config.model_name.line,
            f"mode 'benchmark_train': expected a '{SECTION}' section (batch_size, fp_items, epoch, "
            "--profiler_options, flags lines), found none",
        )
    path = config.path
    return BenchmarkParams(
        batch_sizes=tuple(_positive(v, section.batch_size, path) for v in section.batch_size.values()),
        fp_items=_nonempty(section.fp_items, path),
        epoch=int(_positive(section.epoch.value, section.epoch, path)),
        profiler_option=f"{section.profiler_options.key}:{section.profiler_options.value}",
        flags=_flags(section.flags, path),
        lines=section,
    )


def parse_selectors(text: str) -> tuple[Selector, ...]:
    """``--benchmark-params``: comma-separated PARAMS words; a bad one is a ``SettingsError`` with the form."""
    words = tuple(w.strip() for w in text.split(","))
    if not all(words):
        raise SettingsError(f"--benchmark-params {text!r}: an empty word; expected {PARAMS_FORM}")
    return tuple(parse_selector(w) for w in words)


def parse_selector(word: str) -> Selector:
    """The bash's reading: ``_``-split, digits of the ``bs`` part, ``fp16`` trained as ``amp``."""
    if word == TO_STATIC_WORD:
        return Selector(word, word)
    parts = word.split("_")
    bad = f"--benchmark-params {excerpt(word)!r}"
    if len(parts) != 5:
        raise SettingsError(f"{bad}: expected 5 '_'-separated parts, {PARAMS_FORM}")
    model_type, bs, precision, run_mode, device = parts
    digits = "".join(c for c in bs if "0" <= c <= "9")
    if not bs.startswith("bs") or not 0 < len(digits) <= MAX_BATCH_DIGITS or int(digits) == 0:
        raise SettingsError(f"{bad}: batch part {excerpt(bs)!r}: expected bs<N> with 0 < N < 1000000, e.g. bs8")
    match = DEVICE.fullmatch(device)
    if not match:
        raise SettingsError(
            f"{bad}: device part {excerpt(device)!r}: expected N<nodes>C<cards>, e.g. N1C1, N1C8, N4C32"
        )
    nodes, cards = int(match[1]), int(match[2])
    if cards < nodes:
        raise SettingsError(f"{bad}: device part {device!r}: expected at least one card per node")
    if nodes > MAX_NODES or cards > nodes * MAX_CARDS_PER_NODE:
        raise SettingsError(
            f"{bad}: device part {device!r}: expected at most {MAX_NODES} nodes of at most "
            f"{MAX_CARDS_PER_NODE} cards each"
        )
    if not (model_type and precision and run_mode):
        raise SettingsError(f"{bad}: expected {PARAMS_FORM}")
    return Selector(word, model_type, digits, precision, run_mode, DeviceNum(nodes, cards))


def _positive(text: str, field: Field, path: str) -> str:
    if not text.isdigit() or int(text) == 0:
        raise ConfigError(path, field.line, f"{field.key}: {excerpt(text)!r}: expected a positive integer")
    return text


def _nonempty(field: Field, path: str) -> tuple[str, ...]:
    items = field.values()
    if not all(items):
        raise ConfigError(path, field.line, f"{field.key}: expected a '|' list of precisions like fp32|fp16")
    return items


def _flags(field: Field, path: str) -> tuple[tuple[str, str], ...]:
    """``;``-separated ``NAME=value`` items (the bash ``export``s each); ``null`` or empty: none."""
    if field.is_null:
        return ()
    items = [item.strip() for item in field.value.split(";") if item.strip()]
    for item in items:
        if not _FLAG.fullmatch(item):
            raise ConfigError(
                path, field.line, f"{field.key}: {excerpt(item)!r}: expected NAME=value items separated by ';'"
            )
    return tuple((name, value) for name, _, value in (item.partition("=") for item in items))
