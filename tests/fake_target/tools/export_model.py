"""Fake ``tools/export_model.py`` for a distillation yml: D/{Student,Teacher}/inference.{json,pdiparams}."""

import os
import sys

import _fake

todo = _fake.misbehave_before("export")
opts = _fake.overrides(sys.argv[1:])
_fake.require_checkpoint(opts["Global.checkpoints"])
out = opts["Global.save_inference_dir"]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "inference.yml"), "w") as f:
    f.write("PreProcess: fake\n")
for sub in ("Student", "Teacher"):
    os.makedirs(os.path.join(out, sub), exist_ok=True)
    for name, data in (("inference.json", b"{}"), ("inference.pdiparams", b"fake params")):
        with open(os.path.join(out, sub, name), "wb") as f:
            f.write(data)
    _fake.log(f"inference model is saved to {os.path.join(out, sub, 'inference')}")
_fake.finish(todo)
