"""tools/export_model.py -c <yml> -o Global.checkpoints=<prefix> Global.save_inference_dir=<dir>.

Writes ``<dir>/inference.pdiparams`` (a TorchScript archive under the name a PaddleOCR export
gives its weights, which tipc checks), ``<dir>/inference.json`` (what the archive is) and
``<dir>/inference.yml`` (the image shape and the character list, as tinyrec's).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# gpurec, and tinyrec beside it for its paddle-free readers (config, data, metric, logger).
sys.path.insert(0, str(Path(__file__).resolve().parents[1].parent / "tinyrec"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import yaml
from gpurec import checkpoint, program, runtime
from tinyrec.config import config_from_argv, image_shape
from tinyrec.logger import get_logger


def main() -> None:
    config = config_from_argv("tools/export_model.py", "export a gpurec inference model")
    if runtime.rank() != 0:
        return  # as PaddleOCR: only global rank 0 exports
    logger = get_logger()
    out_dir = Path(config["Global"].get("save_inference_dir", "./inference/rec_gpu"))
    try:
        chars = program.char_dict(config)
        model = program.load_trained_model(config, chars, logger)
    except (runtime.UsageError, checkpoint.CheckpointError, FileNotFoundError) as exc:
        runtime.fail(logger, str(exc))
    shape = image_shape(config, "Eval" if "Eval" in config else "Train")
    out_dir.mkdir(parents=True, exist_ok=True)
    info = {
        "Global": {"model_name": "gpurec", "image_shape": list(shape)},
        "PostProcess": {"name": "CTCLabelDecode", "character_dict": list(chars.characters)},
    }
    (out_dir / "inference.yml").write_text(yaml.safe_dump(info, sort_keys=False), encoding="utf-8")
    logger.info(f"Export inference config file to {out_dir / 'inference.yml'}")
    model.eval()
    model.softmax_output = True
    # Traced on the CPU: an export needs no GPU, and the archive loads onto any device.
    traced = torch.jit.trace(model, torch.zeros(1, *shape))
    traced.save(str(out_dir / "inference.pdiparams"))
    graph = {"format": "torchscript", "torch": torch.__version__, "input": ["x", [-1, *shape]]}
    (out_dir / "inference.json").write_text(json.dumps(graph), encoding="utf-8")
    logger.info(f"inference model is saved to {out_dir / 'inference'}")


if __name__ == "__main__":
    main()
