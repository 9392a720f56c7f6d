"""Which of the three config formats a file is in, and the modes each one runs in.

PaddleOCR picks the format by the script it runs a file with: ``test_train_inference_python.sh``
for the train format (``parser``), ``test_ptq_inference_python.sh`` for the KL quantization format
(``ptq``), ``test_paddle2onnx.sh`` for the paddle2onnx format (``paddle2onnx``, every suite has one).
tipc has one ``--config`` for all, so it tells them apart by their text (``ptq.is_ptq``, the
``paddle2onnx_params`` header), never by the file name.
"""

from __future__ import annotations

from pathlib import Path

from tipc.config.bounds import config_text
from tipc.config.model import TipcConfig
from tipc.config.modes import Mode, parse_mode
from tipc.dialects.paddleocr.config.paddle2onnx import Paddle2OnnxConfig, is_paddle2onnx, paddle2onnx_config
from tipc.dialects.paddleocr.config.parser import _scan, first_section, parse_config_text
from tipc.dialects.paddleocr.config.ptq import PtqConfig, is_ptq, ptq_config
from tipc.errors import ConfigError

AnyConfig = TipcConfig | PtqConfig | Paddle2OnnxConfig
# The formats with PaddleOCR's inference sweep (--use_gpu × --enable_mkldnn × ... lines).
SweepConfig = TipcConfig | PtqConfig
# test_ptq_inference_python.sh runs its chain in whole_infer and does nothing in any other mode.
PTQ_MODES = (Mode.WHOLE_INFER,)
# test_paddle2onnx.sh takes no mode; its docs and prepare.sh call it paddle2onnx_infer.
PADDLE2ONNX_MODES = (Mode.PADDLE2ONNX_INFER,)
_OWN_MODES = {PtqConfig: (PTQ_MODES, "a KL quantization config", "test_ptq_inference_python.sh"),
              Paddle2OnnxConfig: (PADDLE2ONNX_MODES, "a paddle2onnx config", "test_paddle2onnx.sh")}  # fmt: skip
# The modes PaddleOCR's train scripts take (klquant_whole_infer belongs to the other suites' bash,
# paddle2onnx_infer to the paddle2onnx configs).
PADDLEOCR_MODES = tuple(m for m in Mode if m not in (Mode.KLQUANT_WHOLE_INFER, *PADDLE2ONNX_MODES))


def load_any_config(path: str | Path) -> AnyConfig:
    """Read and parse one config file of either format; every problem is a ``ConfigError``."""
    return parse_any_config_text(config_text(path), str(path))


def parse_any_config_text(text: str, path: str) -> AnyConfig:
    doc = _scan(text, path)
    first = doc.sections[0]
    if is_paddle2onnx(first.name):
        return paddle2onnx_config(text, path, first.line)
    return ptq_config(doc) if is_ptq(doc) else parse_config_text(text, path)


def is_paddle2onnx_file(path: str | Path) -> bool:
    """Does this file hold a paddle2onnx config (whichever suite wrote it)? False when it cannot be read."""
    try:
        text = config_text(path)
        if not is_paddle2onnx(first_section(text)):  # a whole zoo's configs each ask: most are not
            return False
        doc = _scan(text, str(path))
    except ConfigError:
        return False
    return bool(doc.sections) and is_paddle2onnx(doc.sections[0].name)


def config_modes(config: AnyConfig) -> tuple[Mode, ...]:
    """The modes a config has a chain in."""
    if not isinstance(config, TipcConfig):
        return _OWN_MODES[type(config)][0]
    # benchmark_train.sh reads its runs from the train_benchmark_params section: no section, no runs.
    return tuple(m for m in PADDLEOCR_MODES if m is not Mode.BENCHMARK_TRAIN or config.train_benchmark is not None)


def check_mode(config: AnyConfig, mode: str) -> Mode:
    """``mode`` as a Mode the config runs in, else a ``ConfigError`` saying which modes it runs in."""
    run_mode = parse_mode(mode, config.path)
    if isinstance(config, TipcConfig):
        if run_mode in PADDLE2ONNX_MODES:
            raise ConfigError(
                config.path,
                0,
                f"mode '{run_mode}' runs paddle2onnx configs (a 'paddle2onnx_params' section), and this is a "
                "train config: expected a *_paddle2onnx_python_*.txt config, or another mode",
            )
        if run_mode not in PADDLEOCR_MODES:
            raise ConfigError(
                config.path,
                0,
                f"mode '{run_mode}': PaddleOCR's scripts run no such mode: "
                f"expected one of {', '.join(PADDLEOCR_MODES)}",
            )
        return run_mode
    modes, what, script = _OWN_MODES[type(config)]
    if run_mode not in modes:
        runs = ", ".join(modes)
        raise ConfigError(
            config.path,
            config.header_line,
            f"mode '{run_mode}': {what} runs only in {runs} ({script} runs nothing in other modes): "
            f"expected --mode {runs}",
        )
    return run_mode
