"""Trainer name → (train script, export script, quant flag): the dispatch table of docs/spec.md §3.4."""

from __future__ import annotations

from dataclasses import dataclass

from tipc.config.bounds import excerpt
from tipc.config.model import NULL, Field, TipcConfig

# The bash glued the to_static override to the norm script with two spaces.
TO_STATIC_JOIN = "  "


@dataclass(frozen=True, slots=True)
class Trainer:
    name: str
    train: Field  # the line holding the script (for errors)
    train_text: str  # script + fixed args, as the command string spells it
    export: Field  # the export line paired with it
    quant: bool = False
    extra: Field | None = None  # to_static: the override appended after the script

    @property
    def skip_reason(self) -> str | None:
        """Why the bash dropped this trainer silently (``null`` script), or None."""
        if self.train.value == NULL:
            return f"trainer {excerpt(self.name)!r}: its script ({self.train.key}, line {self.train.line}) is null"
        return None

    @property
    def has_export(self) -> bool:
        return not self.export.is_null


def resolve_trainer(config: TipcConfig, name: str) -> Trainer:
    """Compare ``name`` with the keys the config wrote, in the bash's order; anything else is norm."""
    table = (
        (config.pact_train, config.quant_export, True),
        (config.fpgm_train, config.fpgm_export, False),
        (config.distill_train, config.distill_export, False),
    )
    for train, export, quant in table:
        if _selects(train, name):
            return Trainer(name, train, train.value, export, quant)
    to_static = config.to_static
    if to_static is not None and _selects(to_static, name):
        text = config.norm_train.value + TO_STATIC_JOIN + to_static.value
        return Trainer(name, config.norm_train, text, config.norm_export, extra=to_static)
    if _selects(config.custom_train, name):
        return Trainer(name, config.custom_train, config.custom_train.value, config.export2)
    return Trainer(name, config.norm_train, config.norm_train.value, config.norm_export)


def _selects(field: Field, name: str) -> bool:
    # A `null:null` placeholder line names no trainer.
    return field.key != NULL and field.key == name
