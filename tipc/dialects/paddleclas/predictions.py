"""What PaddleClas's predictor predicted, read as tipc's ``Prediction``.

``deploy/python/predict_cls.py`` prints one line per image, its file name, a tab, then the top-k:
``class id(s): [3, 1], score(s): [0.91, 0.05], label_name(s): ['dog', 'cat']`` (scores at two decimals; without a
class list only ``score(s): [...]``). Pure but for reading the log; at most ``LIMIT`` predictions per stage.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

from tipc.metrics.logfile import log_lines
from tipc.metrics.logtext import messages_of_lines
from tipc.metrics.predictions import LIMIT, Prediction, Ranked
from tipc.results.records import StageRecord

_LIST = r"\[[^\]]*\]"
_TOP_K = re.compile(
    rf"^(?P<image>[^\t]+):\t(?:class id\(s\): (?P<ids>{_LIST}), )?score\(s\): (?P<scores>{_LIST})"
    rf"(?:, label_name\(s\): (?P<labels>\[.*\]))?\s*$"
)
NO_CLASS_ID = -1  # a top-k printed without class ids (a postprocess that gives scores only)


def _literal_list(text: str) -> list[object] | None:
    try:
        value = ast.literal_eval(text)  # a list literal only: the regex saw to that
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, list) else None


def _numbers(values: list[object], kind: tuple[type, ...]) -> bool:
    return all(isinstance(v, kind) and not isinstance(v, bool) for v in values)


def _top_k(message: str) -> Prediction | None:
    match = _TOP_K.match(message)
    if match is None:
        return None
    scores = _literal_list(match["scores"])
    ids: list[object] | None = _literal_list(match["ids"]) if match["ids"] else [NO_CLASS_ID] * len(scores or ())
    labels = _literal_list(match["labels"]) if match["labels"] else []
    if scores is None or ids is None or labels is None or len(ids) != len(scores):
        return None
    if not (_numbers(scores, (int, float)) and _numbers(ids, (int,))):
        return None
    names = [str(v) for v in labels] + [""] * len(scores)
    ranked = tuple(Ranked(int(str(i)), float(str(s)), n) for i, s, n in zip(ids, scores, names, strict=False))
    return Prediction(match["image"].strip(), top_k=ranked)


def classification_lines(lines: Iterable[str], limit: int = LIMIT) -> tuple[Prediction, ...]:
    """PaddleClas's ``predict_cls.py`` lines: one top-k per image, in log order."""
    found: list[Prediction] = []
    for _, message in messages_of_lines(line for line in lines if "score(s): [" in line):
        prediction = _top_k(message)
        if prediction is not None:
            found.append(prediction)
            if len(found) >= limit:
                break
    return tuple(found)


def classification(record: StageRecord) -> tuple[Prediction, ...]:
    return classification_lines(log_lines(Path(record.log)))
