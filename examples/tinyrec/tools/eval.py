"""tools/eval.py -c <yml> -o Global.pretrained_model=<prefix>: the ``metric eval`` block."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tinyrec import checkpoint, program, runtime  # noqa: E402
from tinyrec.config import ConfigError, config_from_argv  # noqa: E402
from tinyrec.logger import get_logger  # noqa: E402


def main() -> None:
    try:
        config = config_from_argv("evaluate a tinyrec checkpoint")
    except ConfigError as exc:
        sys.exit(f"tools/eval.py: {exc}")
    global_cfg = config["Global"]
    logger = get_logger()
    try:
        runtime.select_device(bool(global_cfg.get("use_gpu", False)))
        weights = global_cfg.get("checkpoints") or global_cfg.get("pretrained_model")
        if not weights:
            raise runtime.UsageError("no weights: set Global.pretrained_model or Global.checkpoints")
        chars = program.char_dict(config)
        dataset, loader = program.build_loader(config, "Eval", chars)
        model = program.build_model_for(config, chars)
        checkpoint.load_params(model, str(weights))
    except (runtime.UsageError, checkpoint.CheckpointError, FileNotFoundError) as exc:
        runtime.fail(logger, str(exc))
    logger.info(f"load pretrain successful from {weights}")
    program.log_metrics(logger, program.evaluate(model, loader, dataset, chars))


if __name__ == "__main__":
    main()
