"""The run modes: the bash's first argument, and the keys of ``mode=value`` config items."""

from __future__ import annotations

from enum import Enum

from tipc.errors import ConfigError


class Mode(str, Enum):
    """The modes tipc runs. A ``str`` enum: a Mode compares equal to its name as the bash spells it.

    ``benchmark_train`` is ``benchmark_train.sh``'s: it trains only, per batch size × precision ×
    devices of the config's ``train_benchmark_params``. ``paddle2onnx_infer`` is the mode of
    ``test_paddle2onnx.sh`` (the name the suites' docs and ``prepare.sh`` give it): only paddle2onnx configs run
    in it."""

    LITE_TRAIN_LITE_INFER = "lite_train_lite_infer"
    LITE_TRAIN_WHOLE_INFER = "lite_train_whole_infer"
    WHOLE_TRAIN_WHOLE_INFER = "whole_train_whole_infer"
    WHOLE_INFER = "whole_infer"
    BENCHMARK_TRAIN = "benchmark_train"
    PADDLE2ONNX_INFER = "paddle2onnx_infer"
    # PaddleClas's, PaddleDetection's and PaddleSeg's bash take it (``tipc.suites``); PaddleOCR's runs no such mode.
    KLQUANT_WHOLE_INFER = "klquant_whole_infer"

    def __str__(self) -> str:
        return self.value


MODES: tuple[str, ...] = tuple(m.value for m in Mode)
# The modes a PaddleOCR config's ``mode=value`` item may name (the bash's benchmark script writes
# ``benchmark_train=`` items into configs; no train config is read in paddle2onnx_infer, and
# klquant_whole_infer is the other suites').
ITEM_MODES: tuple[str, ...] = tuple(
    m.value for m in Mode if m not in (Mode.PADDLE2ONNX_INFER, Mode.KLQUANT_WHOLE_INFER)
)
# Item modes that real configs write and no harness script runs (``whole_train_lite_infer=4`` on the
# train batch line of five PaddleOCR configs): the bash never matches them. Read, never used, noted.
UNREAD_ITEM_MODES: tuple[str, ...] = ("whole_train_lite_infer",)


def parse_mode(text: str, source: str) -> Mode:
    """``text`` as a Mode; ``ConfigError`` at ``source`` lists them."""
    try:
        return Mode(text)
    except ValueError:
        raise ConfigError(str(source), 0, f"unknown mode {text!r}: expected one of {', '.join(MODES)}") from None
