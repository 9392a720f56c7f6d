"""Word accuracy and normalised edit distance, named as PaddleOCR's RecMetric names them."""

from __future__ import annotations


def edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


class RecMetric:
    def __init__(self):
        self.correct = 0
        self.total = 0
        self.norm_edit = 0.0

    def update(self, predictions: list[str], targets: list[str]) -> None:
        for pred, target in zip(predictions, targets, strict=False):
            self.correct += pred == target
            self.norm_edit += edit_distance(pred, target) / max(len(pred), len(target), 1)
            self.total += 1

    def result(self) -> dict[str, float]:
        total = max(self.total, 1)
        # PaddleOCR's epsilons keep a perfect score just below 1 and an empty one just above 0.
        return {"acc": self.correct / (total + 1e-5), "norm_edit_dis": 1 - self.norm_edit / (total + 1e-5)}


def prefixed(name: str, primary: str, values: dict[str, float]) -> dict[str, float]:
    """The primary sub-model's metrics keep plain names; others get ``<name>_``."""
    return dict(values) if name in ("", primary) else {f"{name}_{k}": v for k, v in values.items()}
