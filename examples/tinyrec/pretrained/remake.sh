#!/bin/sh
# Remakes rec_tiny_distillation.pdparams, the weights the lite modes of tinyrec's configs start
# from: tinyrec's whole-train data (`tipc prepare`, seed 0: 3000 train and 300 eval lines) and its
# whole-train training (5 epochs at batch 32), from scratch, with the trainer alone (no eval,
# export or inference). About 2.5 min on 2 CPU cores. Run from anywhere; PYTHON picks the
# interpreter (one with tipc and paddle installed; default: python).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
target=$(dirname "$here")
python=${PYTHON:-python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$target/../.." && "$python" -m tipc prepare --mode whole_train_whole_infer \
    --config tinyrec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt)
cd "$target"
"$python" tools/train.py -c configs/rec_tiny_distillation.yml -o Global.print_batch_step=10 \
    Train.loader.shuffle=false Global.use_gpu=False Global.pretrained_model=null \
    Global.save_model_dir="$out" Global.epoch_num=5 Train.loader.batch_size_per_card=32
cp "$out/latest.pdparams" "$here/rec_tiny_distillation.pdparams"
echo "wrote $here/rec_tiny_distillation.pdparams"
