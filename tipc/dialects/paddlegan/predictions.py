"""What PaddleGAN's predictor measured: ``tools/inference.py`` prints nothing per image; it saves the images under
``<--output_path>/<--model_type>/`` and, for a model whose yml has validation metrics, appends one line per
metric to ``metric.txt`` there (``Metric psnr: 27.0864``), which PaddleGAN's own ``compare_results.py`` holds
against ``test_tipc/results/``. Each metric of the file, its last value, is one prediction named
``metric.txt:<name>`` (text the metric's name, score its value), read only when the stage wrote the file (it is
the same file every night, and every cell appends to it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from tipc import Prediction, log_lines

if TYPE_CHECKING:
    from tipc import StageRecord

METRIC_FILE = "metric.txt"
_METRIC = re.compile(r"^Metric (?P<name>\S+): (?P<value>[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf))\s*$")
CLOCK_SLACK = 1.0  # seconds: a file system's coarse mtime may date the file just before the stage's start


def metric_lines(lines: Iterable[str], source: str) -> tuple[Prediction, ...]:
    """Each metric's last value in ``lines`` (of the file ``source``), in the order the names first appear."""
    found: dict[str, float] = {}
    for line in lines:
        match = _METRIC.match(line.strip())
        if match is not None:
            found[match["name"]] = float(match["value"])
    return tuple(Prediction(f"{source}:{name}", text=name, score=value) for name, value in found.items())


def _flag(argv: tuple[str, ...], name: str) -> str | None:
    """The value of ``--name value`` or ``--name=value``, the last one given (as argparse takes it)."""
    value = None
    for index, arg in enumerate(argv):
        if arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
        elif arg == name and index + 1 < len(argv):
            value = argv[index + 1]
    return value


def metrics(record: StageRecord) -> tuple[Prediction, ...]:
    """The metrics the stage's ``tools/inference.py`` appended to its ``metric.txt``; none when it wrote none."""
    output, model_type = _flag(record.argv, "--output_path"), _flag(record.argv, "--model_type")
    if output is None or model_type is None:
        return ()
    path = Path(record.cwd or ".") / output / model_type / METRIC_FILE
    try:
        if path.stat().st_mtime < record.start - CLOCK_SLACK:
            return ()
        return metric_lines(list(log_lines(path)), METRIC_FILE)
    except OSError:
        return ()
