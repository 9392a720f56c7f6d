"""CTC for every sub-model, plus a mutual distance term for distillation."""

from __future__ import annotations

import paddle
from paddle.nn import functional as F

from .data import BLANK


def ctc_loss(logits: paddle.Tensor, labels: paddle.Tensor, label_lengths: paddle.Tensor) -> paddle.Tensor:
    log_probs = F.log_softmax(logits, axis=-1).transpose([1, 0, 2])  # T, B, C
    steps, batch = log_probs.shape[0], log_probs.shape[1]
    input_lengths = paddle.full([batch], steps, dtype="int64")
    losses = F.ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=BLANK, reduction="none")
    return losses.mean()


def total_loss(outputs: dict, labels, label_lengths, distance_weight: float) -> dict[str, paddle.Tensor]:
    """{"loss": sum, "loss_ctc_<name>": …, "loss_distance": …}; names as the train log prints them."""
    parts = {}
    for name, logits in outputs.items():
        parts[f"loss_ctc_{name}" if name else "loss_ctc"] = ctc_loss(logits, labels, label_lengths)
    if len(outputs) > 1 and distance_weight > 0:
        probs = [F.softmax(logits, axis=-1) for logits in outputs.values()]
        parts["loss_distance"] = distance_weight * F.mse_loss(probs[0], probs[1])
    parts["loss"] = paddle.add_n(list(parts.values()))
    return parts
