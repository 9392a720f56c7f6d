"""Tags of the other suites' config names: ``<Model>_train_…`` with PaddleOCR's words after the model.

PaddleClas and PaddleDetection put the model before PaddleOCR's pattern (``ResNet50_vd_train_infer_python.txt``,
``ResNet50_vd_train_linux_gpu_fleet_amp_infer_python_linux_gpu_cpu.txt``); PaddleSeg names the folder instead
(``pp_liteseg_stdc1/train_infer_python.txt``). PaddleClas also writes ``_train_amp_infer_python.txt`` for the
AMP config, which reads as ``linux_gpu, amp`` (the long name's ``normal_amp``).
"""

from __future__ import annotations

import re

from tipc.config.tags import SHORT_HARDWARE, ConfigTags, config_tags

_TRAIN = re.compile(r"(?:^|_)(train_.+\.txt)$")
_SHORT_AMP = "train_amp_infer_python.txt"


def model_tags(file_name: str) -> tuple[str, ...]:
    found = _TRAIN.search(file_name)
    if found is None:
        return ()
    rest = found.group(1)
    if rest == _SHORT_AMP:
        return ConfigTags(SHORT_HARDWARE, precision="amp").words
    tags = config_tags(rest)
    return () if tags is None else tags.words
