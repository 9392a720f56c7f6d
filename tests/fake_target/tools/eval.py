"""Fake ``tools/eval.py``: checks the checkpoint, prints ppocr's metric block."""

import sys

import _fake

todo = _fake.misbehave_before("eval")
opts = _fake.overrides(sys.argv[1:])
_fake.require_checkpoint(opts["Global.pretrained_model"])
_fake.log("metric eval ***************")
for key, value in (("acc", 0.5), ("norm_edit_dis", 0.75), ("fps", 120.0)):
    _fake.log(f"{key}:{value}")
_fake.finish(todo)
