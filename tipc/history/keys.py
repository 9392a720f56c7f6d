"""What identifies a config across runs: not where it was checked out.

A config is ``test_tipc/configs/<model>/<file>`` in its suite; the same config in another checkout
(another CI runner's build directory, a Slurm node's scratch, tipc's own copy under
``test_configs/``) is the same config. Its last two path parts name it, as they do in the suite.
"""

from __future__ import annotations

from pathlib import PurePath


def config_key(config: str) -> str:
    """``/builds/r1/PaddleOCR/test_tipc/configs/PP-OCRv3_mobile_rec/train_infer_python.txt`` →
    ``PP-OCRv3_mobile_rec/train_infer_python.txt``."""
    return "/".join(PurePath(config).parts[-2:])
