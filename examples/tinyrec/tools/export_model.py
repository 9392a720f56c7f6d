"""tools/export_model.py -c <yml> -o Global.checkpoints=<prefix> Global.save_inference_dir=<dir>.

Writes ``<dir>/inference.{json,pdiparams}`` (or ``<dir>/<Teacher|Student>/…`` for a
distillation yml) through ``paddle.jit.save``, and ``<dir>/inference.yml`` with
what the predictor needs: the image shape and the character list.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paddle
import yaml
from paddle.static import InputSpec
from tinyrec import checkpoint, program, runtime
from tinyrec.config import config_from_argv, image_shape
from tinyrec.logger import get_logger
from tinyrec.model import sub_models


def write_inference_yml(path: Path, shape: tuple[int, int, int], chars) -> None:
    info = {
        "Global": {"model_name": "tinyrec", "image_shape": list(shape)},
        "PostProcess": {"name": "CTCLabelDecode", "character_dict": list(chars.characters)},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(info, allow_unicode=True, sort_keys=False), encoding="utf-8")


def main() -> None:
    config = config_from_argv("tools/export_model.py", "export a tinyrec inference model")
    if runtime.rank() != 0:
        return  # as PaddleOCR: only global rank 0 exports
    global_cfg = config["Global"]
    logger = get_logger()
    out_dir = Path(global_cfg.get("save_inference_dir", "./inference/rec_tiny"))
    try:
        runtime.select_device(False)  # export traces the graph; it never needs a GPU
        chars = program.char_dict(config)
        model = program.load_trained_model(config, chars, logger)
    except (runtime.UsageError, checkpoint.CheckpointError, FileNotFoundError) as exc:
        runtime.fail(logger, str(exc))
    shape = image_shape(config, "Eval" if "Eval" in config else "Train")
    write_inference_yml(out_dir / "inference.yml", shape, chars)
    logger.info(f"Export inference config file to {out_dir / 'inference.yml'}")
    channels, height, _ = shape
    spec = [InputSpec([None, channels, height, -1], "float32", name="x")]
    model.eval()
    for name, sub in sub_models(model).items():
        sub.softmax_output = True
        prefix = (out_dir / name / "inference") if name else (out_dir / "inference")
        paddle.jit.save(paddle.jit.to_static(sub, input_spec=spec, full_graph=True), str(prefix))
        logger.info(f"inference model is saved to {prefix}")


if __name__ == "__main__":
    main()
