"""``tools/train.py -p/--profiler_options "batch_range=[10,20];state=CPU;timer_only=False"``: PaddleOCR's
profiler contract (``ppocr/utils/profiler.py``), on ``paddle.profiler``.

Options are ``key=value`` pairs separated by ``;``: ``batch_range`` (the steps profiled, default
``[10,20]``), ``state`` (CPU, GPU or All), ``sorted_key``, ``tracer_option``, ``profile_path`` (accepted
as PaddleOCR accepts them), ``timer_only`` (default True: step timings only; False: operator traces into
``./profiler_log``) and ``exit_on_finished`` (default True: as PaddleOCR, the trainer exits 0 once the
range is profiled, without saving). A range the training never reaches is closed when it ends.
"""

from __future__ import annotations

import sys

from paddle import profiler

_TRUE = ("true", "1", "yes")


def parse_options(text: str) -> dict[str, object]:
    """The options with PaddleOCR's defaults; a pair without ``=`` or a bad range is a ValueError."""
    options: dict[str, object] = {
        "batch_range": (10, 20),
        "state": "All",
        "sorted_key": "total",
        "tracer_option": "Default",
        "profile_path": "/tmp/profile",
        "exit_on_finished": True,
        "timer_only": True,
    }
    for pair in filter(None, (p.strip() for p in text.split(";"))):
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"profiler option {pair!r}: expected key=value")
        if key == "batch_range":
            start, _, end = value.strip("[]").partition(",")
            if not (start.strip().isdigit() and end.strip().isdigit()) or int(start) >= int(end):
                raise ValueError(f"batch_range {value!r}: expected [start,end] with start < end")
            options[key] = (int(start), int(end))
        elif key in ("exit_on_finished", "timer_only"):
            options[key] = value.lower() in _TRUE
        else:
            options[key] = value
    return options


class StepProfiler:
    """``step()`` after every training batch; ``close()`` when training ends."""

    def __init__(self, text: str | None, logger) -> None:
        self.options = parse_options(text) if text else None
        self.logger = logger
        self.profiler: profiler.Profiler | None = None
        self.steps = 0

    def step(self) -> None:
        if self.options is None:
            return
        self.steps += 1
        if self.profiler is None and self.steps == 1:
            start, end = self.options["batch_range"]
            targets = [profiler.ProfilerTarget.CPU]
            if self.options["state"] in ("GPU", "All") and profiler.ProfilerTarget.GPU in profiler.supported_targets():
                targets.append(profiler.ProfilerTarget.GPU)
            self.profiler = profiler.Profiler(
                targets=targets,
                scheduler=(start, end),
                on_trace_ready=profiler.export_chrome_tracing("./profiler_log"),
                timer_only=bool(self.options["timer_only"]),
            )
            self.profiler.start()
            return
        if self.profiler is not None:
            self.profiler.step()
            if self.steps == self.options["batch_range"][1]:
                self.close()
                if self.options["exit_on_finished"]:
                    self.logger.info("profiler: batch range done, exiting (exit_on_finished)")
                    sys.exit(0)

    def close(self) -> None:
        if self.profiler is not None:
            self.profiler.stop()
            self.profiler.summary(op_detail=True, thread_sep=False, time_unit="ms")
            self.profiler = None
