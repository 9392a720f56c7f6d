"""Fake ``tools/train.py``: writes S/latest.pdparams and S/train.log (ips lines), like ppocr."""

import os
import sys

import _fake

todo = _fake.misbehave_before("train")
opts = _fake.overrides(sys.argv[1:])
save = opts["Global.save_model_dir"]
epochs = int(opts.get("Global.epoch_num", "1"))
batch = float(opts.get("Train.loader.batch_size_per_card", "4"))
os.makedirs(save, exist_ok=True)
with open(os.path.join(save, "config.yml"), "w") as f:
    f.write("".join(f"{k}: {v}\n" for k, v in sorted(opts.items())))
# ppocr's train.log handler appends: a rerun keeps the earlier runs' lines.
with open(os.path.join(save, "train.log"), "a") as train_log:
    step = 0
    for epoch in range(1, epochs + 1):
        for _ in range(2):
            step += 1
            line = _fake.log(
                f"epoch: [{epoch}/{epochs}], global_step: {step}, lr: 0.001000, acc: 0.000000, "
                f"loss: {10.0 / step:.6f}, avg_reader_cost: 0.00100 s, avg_batch_cost: 0.01000 s, "
                f"avg_samples: {batch}, ips: {batch * 100 + step:.5f} samples/s, eta: 0:00:01"
            )
            train_log.write(line + "\n")
with open(os.path.join(save, "latest.pdparams"), "wb") as f:
    f.write(b"fake weights")
_fake.finish(todo, save)
