"""Which of the two config formats a file is in, and the modes each one runs in.

PaddleOCR picks the format by the script it runs a file with: ``test_train_inference_python.sh``
for the train format (``parser``), ``test_ptq_inference_python.sh`` for the KL quantization format
(``ptq``). tipc has one ``--config`` for both, so it tells them apart by their text (``ptq.is_ptq``),
never by the file name.
"""

from __future__ import annotations

from pathlib import Path

from tipc.config.bounds import read_bounded
from tipc.config.model import TipcConfig
from tipc.config.modes import Mode, parse_mode
from tipc.config.parser import _decode, _scan, parse_config_text
from tipc.config.ptq import PtqConfig, is_ptq, ptq_config
from tipc.errors import ConfigError

AnyConfig = TipcConfig | PtqConfig
# test_ptq_inference_python.sh runs its chain in whole_infer and does nothing in any other mode.
PTQ_MODES = (Mode.WHOLE_INFER,)
# The modes PaddleOCR's scripts take (klquant_whole_infer belongs to the other suites' bash).
PADDLEOCR_MODES = tuple(m for m in Mode if m is not Mode.KLQUANT_WHOLE_INFER)


def load_any_config(path: str | Path) -> AnyConfig:
    """Read and parse one config file of either format; every problem is a ``ConfigError``."""
    shown = str(path)
    return parse_any_config_text(_decode(read_bounded(path), shown), shown)


def parse_any_config_text(text: str, path: str) -> AnyConfig:
    doc = _scan(text, path)
    return ptq_config(doc) if is_ptq(doc) else parse_config_text(text, path)


def config_modes(config: AnyConfig) -> tuple[Mode, ...]:
    """The modes a config has a chain in."""
    if isinstance(config, PtqConfig):
        return PTQ_MODES
    # benchmark_train.sh reads its runs from the train_benchmark_params section: no section, no runs.
    return tuple(m for m in PADDLEOCR_MODES if m is not Mode.BENCHMARK_TRAIN or config.train_benchmark is not None)


def check_mode(config: AnyConfig, mode: str) -> Mode:
    """``mode`` as a Mode the config runs in, else a ``ConfigError`` saying which modes it runs in."""
    run_mode = parse_mode(mode, config.path)
    if isinstance(config, PtqConfig) and run_mode not in PTQ_MODES:
        runs = ", ".join(PTQ_MODES)
        raise ConfigError(
            config.path,
            config.header_line,
            f"mode '{run_mode}': a KL quantization config runs only in {runs} (test_ptq_inference_python.sh "
            f"runs nothing in other modes): expected --mode {runs}",
        )
    if run_mode not in PADDLEOCR_MODES:
        raise ConfigError(
            config.path,
            0,
            f"mode '{run_mode}': PaddleOCR's scripts run no such mode: expected one of {', '.join(PADDLEOCR_MODES)}",
        )
    return run_mode
