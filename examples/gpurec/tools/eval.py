"""tools/eval.py -c <yml> -o Global.pretrained_model=<prefix>: the ``metric eval`` block."""

from __future__ import annotations

import sys
from pathlib import Path

# gpurec, and tinyrec beside it for its paddle-free readers (config, data, metric, logger).
sys.path.insert(0, str(Path(__file__).resolve().parents[1].parent / "tinyrec"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpurec import checkpoint, program, runtime
from tinyrec.config import config_from_argv
from tinyrec.logger import get_logger


def main() -> None:
    config = config_from_argv("tools/eval.py", "evaluate a gpurec checkpoint")
    logger = get_logger()
    try:
        device = runtime.select_device(bool(config["Global"].get("use_gpu", False)))
        chars = program.char_dict(config)
        model = program.load_trained_model(config, chars, logger).to(device)
        dataset, loader = program.build_loader(config, "Eval", chars)
    except (runtime.UsageError, checkpoint.CheckpointError, FileNotFoundError) as exc:
        runtime.fail(logger, str(exc))
    program.log_metrics(logger, program.evaluate(model, loader, dataset, chars, device))


if __name__ == "__main__":
    main()
