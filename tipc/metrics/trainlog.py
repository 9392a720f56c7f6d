"""Training speed and loss from the step lines each suite's trainer logs (PaddleOCR's ``epoch: [i/n], global_step:
…``, PaddleClas's ``[Train][Epoch i/n][Iter: j/m]…``, PaddleSeg's ``[TRAIN] epoch: i, iter: j/m, …``,
PaddleDetection's ``Epoch: [i] [j/m] …``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .logtext import messages_of_lines

# (a substring every such line holds, the line's pattern): the substring test first, since the regex costs 85 ms a
# MiB on a line that is no step (1 GB of output without a newline comes as 1 MiB lines), the test a hundredth of it.
_STEP_LINES = (
    ("global_step: ", re.compile(r"\bepoch: \[\d+/\d+\], global_step: \d+")),  # PaddleOCR
    ("[Iter: ", re.compile(r"\[Train\]\[Epoch \d+/\d+\]\[Iter: \d+/\d+\]")),  # PaddleClas (not its [Avg] lines)
    ("[TRAIN] ", re.compile(r"\[TRAIN\] epoch: \d+, iter: \d+/\d+")),  # PaddleSeg
    ("Epoch: [", re.compile(r"\bEpoch: \[\d+\] \[ *\d+/\d+\]")),  # PaddleDetection
)
_NUMBER = re.compile(r"(?<![\w.])([A-Za-z_][\w]*): (-?(?:\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|inf))")


def step_values_of_lines(lines: Iterable[str]) -> Iterator[dict[str, float]]:
    """``{name: value}`` of every logged training step of lines read one at a time, in log order."""
    for _, message in messages_of_lines(lines):
        if any(mark in message and line.search(message) for mark, line in _STEP_LINES):
            yield {name: float(value) for name, value in _NUMBER.findall(message)}


def step_values(text: str) -> list[dict[str, float]]:
    """``{name: value}`` of every logged training step, in log order."""
    return list(step_values_of_lines(text.splitlines()))


def train_metrics(text: str) -> dict[str, float | None]:
    """``ips`` (mean over logged steps after the first, which carries start-up costs;
    the only step's value when one was logged), ``loss`` (last), ``steps`` (count)."""
    return train_metrics_of_lines(text.splitlines())


def train_metrics_of_lines(lines: Iterable[str]) -> dict[str, float | None]:
    """``train_metrics`` over lines read one at a time: memory does not grow with the log."""
    steps = 0
    first_ips: float | None = None
    later_ips_sum, later_ips_count = 0.0, 0
    loss: float | None = None
    for values in step_values_of_lines(lines):
        steps += 1
        if "ips" in values:
            if first_ips is None:
                first_ips = values["ips"]
            else:
                later_ips_sum += values["ips"]
                later_ips_count += 1
        loss = values.get("loss", loss)
    ips = later_ips_sum / later_ips_count if later_ips_count else first_ips
    return {"ips": ips, "loss": loss, "steps": steps}


def losses_of_lines(lines: Iterable[str], steps: int | None = None) -> list[float]:
    """The ``loss`` of the first ``steps`` logged steps (all when None), in log order; ``nan`` and
    ``inf`` included: a golden check looks for them. ``steps`` bounds a stage's part of an appended
    log that later runs appended to."""
    losses = []
    for count, values in enumerate(step_values_of_lines(lines), 1):
        if steps is not None and count > steps:
            break
        if "loss" in values:
            losses.append(values["loss"])
    return losses
