"""tools/train.py -c <yml> -o Key.path=value …: train on the visible GPU, log, save ``latest.*`` per epoch."""

from __future__ import annotations

import sys
from pathlib import Path

# gpurec, and tinyrec beside it for its paddle-free readers (config, data, metric, logger).
sys.path.insert(0, str(Path(__file__).resolve().parents[1].parent / "tinyrec"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpurec import checkpoint, program, runtime
from tinyrec.config import config_from_argv, dump_config, log_config
from tinyrec.logger import get_logger


def main() -> None:
    config = config_from_argv("tools/train.py", "train a gpurec model")
    global_cfg = config["Global"]
    save_dir = Path(global_cfg.get("save_model_dir", "./output/rec_gpu"))
    logger = get_logger(save_dir / "train.log", runtime.rank())
    try:
        device = runtime.select_device(bool(global_cfg.get("use_gpu", False)))
    except runtime.UsageError as exc:
        runtime.fail(logger, str(exc))
    dump_config(config, save_dir / "config.yml")  # every rank, as PaddleOCR
    log_config(config, logger)
    runtime.seed_everything(global_cfg.get("seed"))
    try:
        program.train(config, logger, device)
    except (checkpoint.CheckpointError, FileNotFoundError) as exc:
        runtime.fail(logger, str(exc))


if __name__ == "__main__":
    main()
