"""Keys that real configs write in a fixed-key slot instead of the slot's own key.

The bash reads the trainer slots by position and uses their keys only as trainer names, so PaddleOCR
runs configs whose ``pact_train`` line reads ``quant_train:null`` (the three
``ch_ppocr_server_v2_0_det`` configs) or ``quant_export:null``, and whose ``fpgm_train`` line reads
``fpgm_export:null`` (``det_r18_ct`` and ``det_r50_db_v2_0``, which copied the export lines' keys
into the trainer lines). tipc reads exactly these keys in exactly these slots, each with a note
naming the line, the key and the slot; any other key there is still an error. The key is kept as
written: it is the trainer name that selects the line, as in the bash.

The same five configs write a ``whole_train_lite_infer=4`` item on the train batch line, a mode no
harness script runs (``UNREAD_ITEM_MODES``): the bash never matches it, tipc reads it and notes that
it is never used.
"""

from __future__ import annotations

from collections.abc import Mapping

from tipc.config.bounds import excerpt
from tipc.config.model import Field
from tipc.config.modes import UNREAD_ITEM_MODES
from tipc.dialects.paddleocr.config.values import mode_items

# slot (its own key) -> the other keys real configs write on its line
SLOT_VARIANTS: Mapping[str, tuple[str, ...]] = {
    "pact_train": ("quant_train", "quant_export"),
    "fpgm_train": ("fpgm_export",),
}


def variants_of(key: str) -> tuple[str, ...]:
    return SLOT_VARIANTS.get(key, ())


def variant_note(section: str, line: int, key: str, slot: str) -> str:
    """What the plan says about a variant key, so that reading it is never silent."""
    name = excerpt(key)
    return (
        f"{section}: line {line}: key '{name}' read in the {slot} slot, where real configs write it "
        f"(the bash reads the line by position; a trainer named '{name}' selects it)"
    )


def unread_item_notes(field: Field, path: str) -> tuple[str, ...]:
    """One note per ``mode=value`` item of ``field`` whose mode no harness script runs."""
    return tuple(
        f"line {field.line}: item '{excerpt(mode)}={excerpt(value)}' of '{excerpt(field.key)}' names a mode "
        "no harness script runs (the bash never matches it): not used"
        for mode, value in mode_items(field, path) or ()
        if mode in UNREAD_ITEM_MODES
    )
