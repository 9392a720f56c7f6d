"""The ``ppocr`` logger: PaddleOCR's line prefix, rank-0-only file output."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

LOGGER_NAME = "ppocr"
_FORMAT = "[%(asctime)s] %(name)s %(levelname)s: %(message)s"
_DATE_FORMAT = "%Y/%m/%d %H:%M:%S"


def get_logger(log_file: str | Path | None = None, rank: int = 0) -> logging.Logger:
    """The shared logger; ``log_file`` is opened in append mode on rank 0 only.

    Other ranks log errors only, as PaddleOCR does, so that N processes do not
    print N copies of every training line.
    """
    logger = logging.getLogger(LOGGER_NAME)
    if not getattr(logger, "_tinyrec_ready", False):
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter(_FORMAT, _DATE_FORMAT))
        logger.addHandler(handler)
        logger.propagate = False
        logger._tinyrec_ready = True  # type: ignore[attr-defined]
    logger.setLevel(logging.INFO if rank == 0 else logging.ERROR)
    if log_file is not None and rank == 0:
        path = Path(log_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        file_handler = logging.FileHandler(path, mode="a", encoding="utf-8")
        file_handler.setFormatter(logging.Formatter(_FORMAT, _DATE_FORMAT))
        logger.addHandler(file_handler)
    return logger
