"""Fake ``tools/infer/predict_rec.py``: ``Predicts of`` lines and, with --benchmark, AutoLog's block (docs/spec.md §6.1)."""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _fake


def str2bool(v: str) -> bool:
    return v.lower() in ("true", "yes", "t", "y", "1")


parser = argparse.ArgumentParser()
parser.add_argument("--rec_model_dir", required=True)
parser.add_argument("--rec_batch_num", type=int, default=6)
parser.add_argument("--use_gpu", type=str2bool, default=True)
parser.add_argument("--enable_mkldnn", type=str2bool, default=None)
parser.add_argument("--cpu_threads", type=int, default=10)
parser.add_argument("--use_tensorrt", type=str2bool, default=False)
parser.add_argument("--precision", default="fp32")
parser.add_argument("--image_dir", required=True)
parser.add_argument("--benchmark", type=str2bool, default=False)
parser.add_argument("--rec_image_shape", default="3, 48, 320")
parser.add_argument("--use_onnx", type=str2bool, default=False)
args, _ = parser.parse_known_args()

todo = _fake.misbehave_before("infer")
if args.use_gpu and not ("gpu" in todo and os.environ.get("CUDA_VISIBLE_DEVICES")):
    sys.exit("fake: this is a CPU-only build; --use_gpu=True cannot run")
text = "fake"
if args.use_onnx:  # --rec_model_dir is the .onnx file; it holds the text to predict (tools/paddle2onnx_fake.py)
    if not os.path.isfile(args.rec_model_dir):
        sys.exit(f"fake: no ONNX file {args.rec_model_dir}")
    with open(args.rec_model_dir) as onnx:
        text = onnx.read().strip()
else:
    params = os.path.join(args.rec_model_dir, "inference.pdiparams")
    if not os.path.isfile(params) or not os.path.isfile(os.path.join(args.rec_model_dir, "inference.json")):
        sys.exit(f"fake: no inference model in {args.rec_model_dir}")
images = sorted(os.path.join(args.image_dir, n) for n in os.listdir(args.image_dir))
t0 = time.time()
for path in images:
    _fake.log(f"Predicts of {path}:('', 0.0)" if "empty" in todo else f"Predicts of {path}:('{text}', 0.5)")
total = time.time() - t0
batches = -(-len(images) // args.rec_batch_num)
slower = float(todo.get("slower") or 1)
if args.benchmark:
    block = [
        "",
        "---------------------- Env info ----------------------",
        " OS_version: Fake OS 1",
        " CUDA_version: None",
        " CUDNN_version: None.None.None",
        " drivier_version: None",
        "---------------------- Paddle info ----------------------",
        " paddle_version: 0.0.0-fake",
        " paddle_commit: 0000000",
        " log_api_version: 1.0",
        "----------------------- Conf info -----------------------",
        " runtime_device: cpu",
        " ir_optim: True",
        " enable_memory_optim: True",
        f" enable_tensorrt: {args.use_tensorrt}",
        f" enable_mkldnn: {args.enable_mkldnn}",
        f" cpu_math_library_num_threads: {args.cpu_threads}",
        "----------------------- Model info ----------------------",
        " model_name: rec",
        f" precision: {args.precision}",
        "----------------------- Data info -----------------------",
        f" batch_size: {args.rec_batch_num}",
        " input_shape: dynamic",
        f" data_num: {batches}",
        "----------------------- Perf info -----------------------",
        " cpu_rss(MB): 12.5, gpu_rss(MB): None, gpu_util: None%",
        f" total time spent(s): {total:.4f}",
        f" preprocess_time(ms): 0.1, inference_time(ms): {slower * (1.0 + args.rec_batch_num):.4f}, "
        "postprocess_time(ms): 0.2",
    ]
    for line in block:
        _fake.log(line)
_fake.finish(todo)
