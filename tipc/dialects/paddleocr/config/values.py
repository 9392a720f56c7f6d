"""Pure helpers that read the value forms of config lines (docs/spec.md §1.3).

Lists are split on ``|`` and trimmed by ``Field.values()``; these helpers add
the two forms that need more than that: mode-dependent values and positional
pairing.
"""

from __future__ import annotations

from tipc.config.bounds import excerpt
from tipc.config.model import Field, ModeValue
from tipc.config.modes import ITEM_MODES as MODE_NAMES
from tipc.config.modes import UNREAD_ITEM_MODES, Mode
from tipc.errors import ConfigError

# No real config defines lite_train_whole_infer items, so the bash trained that
# mode with the yml's full epoch count (bug B10). Its training half is "lite":
# take the lite_train_lite_infer item instead, and say so.
_FALLBACK = {Mode.LITE_TRAIN_WHOLE_INFER.value: Mode.LITE_TRAIN_LITE_INFER.value}


def mode_items(field: Field, path: str) -> tuple[tuple[str, str], ...] | None:
    """The ``(mode, value)`` items of a ``mode=value|mode=value`` field.

    Returns None when the field is null/empty or a plain scalar (no ``=`` and no
    ``|``). Raises ConfigError for anything else that is not a list of
    ``<known mode>=<non-empty value>`` items with distinct modes (a known mode includes the
    ``UNREAD_ITEM_MODES`` real configs write; the error lists only the modes worth writing).
    """
    if field.is_null or ("=" not in field.value and "|" not in field.value):
        return None
    items: list[tuple[str, str]] = []
    for item in field.values():
        mode, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not mode or not value:
            raise _item_error(field, path, f"malformed item '{excerpt(item)}'", "expected mode=value")
        if mode not in MODE_NAMES and mode not in UNREAD_ITEM_MODES:
            expected = f"expected one of {', '.join(MODE_NAMES)}"
            raise _item_error(field, path, f"unknown mode '{excerpt(mode)}'", expected)
        if any(mode == seen for seen, _ in items):
            raise _item_error(field, path, f"mode '{excerpt(mode)}' given twice", "expected each mode at most once")
        items.append((mode, value))
    return tuple(items)


def mode_value(field: Field, mode: str, path: str) -> ModeValue:
    """Resolve a mode-dependent field (epoch, train batch) for ``mode``.

    * null/empty → ``ModeValue(None)``: the override is not emitted.
    * a plain scalar such as ``3`` → that value for every mode. The bash drops
      it (the override silently vanishes); a scalar has one obvious meaning, so
      tipc keeps it rather than training with the yml's default unannounced.
    * ``mode=value`` items → the item for ``mode``; for ``lite_train_whole_infer``
      without an item, the ``lite_train_lite_infer`` item with
      ``fallback_from`` set; otherwise ``ModeValue(None)``.
    """
    if mode not in MODE_NAMES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {MODE_NAMES}")
    items = mode_items(field, path)
    if items is None:
        return ModeValue(None if field.is_null else field.value)
    table = dict(items)
    if mode in table:
        return ModeValue(table[mode])
    fallback = _FALLBACK.get(mode)
    if fallback in table:
        return ModeValue(table[fallback], fallback_from=fallback)
    return ModeValue(None)


def paired(values: tuple[str, ...], index: int) -> str | None:
    """The partner at ``index`` of a positionally paired list; None when the list is too short."""
    if index < 0:
        raise IndexError(f"negative pairing index {index}")
    return values[index] if index < len(values) else None


def _item_error(field: Field, path: str, found: str, expected: str) -> ConfigError:
    line = excerpt(f"{field.key}:{field.value}")
    return ConfigError(path, field.line, f"{found} in '{line}': {expected}")
