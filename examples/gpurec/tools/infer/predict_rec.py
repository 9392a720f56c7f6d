"""tools/infer/predict_rec.py: PaddleOCR's recognition predictor contract, on torch.

Unlike PaddleOCR's, a failure exits non-zero. ``--benchmark True`` prints the AutoLog block
through tipc's drop-in ``auto_log``, with the GPU's memory and utilisation on a GPU.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

# gpurec, and tinyrec beside it for its paddle-free readers (config, data, metric, logger).
sys.path.insert(0, str(Path(__file__).resolve().parents[2].parent / "tinyrec"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gpurec.predictor import TextRecognizer, argument_parser
from gpurec.runtime import UsageError
from tinyrec.data import list_images
from tinyrec.logger import get_logger


def auto_logger_class():
    try:
        from tipc.compat.auto_log import AutoLogger
    except ImportError:
        try:
            from auto_log import AutoLogger  # tipc's shim on PYTHONPATH, or AutoLog itself
        except ImportError as exc:
            raise UsageError(f"--benchmark=True needs tipc (or auto_log) importable: {exc}") from None
    return AutoLogger


def main() -> int:
    args = argument_parser().parse_args()
    logger = get_logger()
    try:
        images = list_images(args.image_dir)
        recognizer = TextRecognizer(args)
        if args.warmup:  # two untimed batches first, as PaddleOCR's --warmup
            for _ in range(2):
                recognizer(images[: args.rec_batch_num])
        autolog = None
        if args.benchmark:
            autolog = auto_logger_class()(
                model_name="rec",
                model_precision=args.precision,
                batch_size=args.rec_batch_num,
                data_shape="dynamic",
                save_path=None,
                inference_config=recognizer.config,
                pids=os.getpid(),
                process_name=None,
                gpu_ids=args.gpu_id if args.use_gpu else None,
                time_keys=["preprocess_time", "inference_time", "postprocess_time"],
                warmup=0,
                logger=logger,
            )
            recognizer.timer = autolog.times
        for start in range(0, len(images), args.rec_batch_num):
            chunk = images[start : start + args.rec_batch_num]
            for path, result in zip(chunk, recognizer(chunk), strict=False):
                logger.info(f"Predicts of {path}:{result}")
    except (UsageError, FileNotFoundError) as exc:
        logger.error(str(exc))
        return 1
    except Exception:  # noqa: BLE001 - a crash in recognition must not look like success (PaddleOCR exits 0)
        logger.error(traceback.format_exc())
        return 1
    if autolog is not None:
        autolog.report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
