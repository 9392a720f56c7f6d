"""What PaddleRec's predictor predicted: ``paddle_infer.py`` prints, per batch, the first row of its output as a
Python list of numpy values (``[array([0.5123], dtype=float32)]``, ``[np.float32(0.51)]``; numpy wraps a long
array over several lines). Each such print is one prediction, named ``batch <n>`` in print order, whose values
are a top-k list in output order (the class id of a value is its position), so a golden holds each value within
its tolerance.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from tipc import Prediction, Ranked, log_lines
from tipc.layout import PREDICTION_LIMIT, messages_of_lines

if TYPE_CHECKING:
    from tipc import StageRecord

_WRAPPERS = re.compile(r"array\(|np\.\w+\(|,?\s*dtype=\w+|\)")
_VALUES_ONLY = re.compile(r"[\[\]\s,0-9eE.+\-naif]*")
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)")
MAX_WRAPPED_LINES = 200  # a print numpy wrapped over more lines than this is not a batch's row


def batch_values(text: str) -> tuple[float, ...] | None:
    """The numbers of one printed batch, in order; None when ``text`` is not such a print."""
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return None
    bare = _WRAPPERS.sub("", stripped)
    if not _VALUES_ONLY.fullmatch(bare):
        return None
    values = tuple(float(number) for number in _NUMBER.findall(bare))
    return values or None


def batch_lines(lines: Iterable[str], limit: int = PREDICTION_LIMIT) -> tuple[Prediction, ...]:
    """Every printed batch of ``lines`` (a print wrapped over several lines read as one), in print order."""
    found: list[Prediction] = []
    pending: list[str] = []
    for _, message in messages_of_lines(lines):
        if not pending and not message.lstrip().startswith("["):
            continue
        pending.append(message)
        text = " ".join(pending)
        if text.count("[") > text.count("]") and len(pending) < MAX_WRAPPED_LINES:
            continue
        pending = []
        values = batch_values(text)
        if values is not None:
            ranked = tuple(Ranked(position, value) for position, value in enumerate(values))
            found.append(Prediction(f"batch {len(found)}", top_k=ranked))
            if len(found) >= limit:
                break
    return tuple(found)


def batches(record: StageRecord) -> tuple[Prediction, ...]:
    return batch_lines(log_lines(Path(record.log)))
