"""The inference side of ``tools/infer/predict_rec.py``: PaddleOCR's flags over a TorchScript model."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
import yaml
from PIL import Image
from tinyrec.data import CharDict, resize_norm

from .runtime import UsageError

_TRUE = ("true", "yes", "t", "y", "1")


def str2bool(text: str) -> bool:
    """PaddleOCR's reading: true/yes/t/y/1 (any case) are True, anything else False."""
    return str(text).lower() in _TRUE


# PaddleOCR's recognition flags: (name, type, default). Accepted flags a stand-in cannot use say so.
FLAGS: tuple[tuple[str, object, object], ...] = (
    ("--rec_image_shape", str, "3, 32, 100"),
    ("--rec_batch_num", int, 6),
    ("--rec_char_dict_path", str, None),
    ("--use_gpu", str2bool, False),
    ("--gpu_id", int, 0),
    ("--gpu_mem", int, 500),  # accepted; torch takes what it needs
    ("--enable_mkldnn", str2bool, False),  # accepted; torch's CPU kernels use oneDNN as they see fit
    ("--cpu_threads", int, 10),
    ("--use_tensorrt", str2bool, False),
    ("--ir_optim", str2bool, True),  # accepted; TorchScript optimises on its own
    ("--benchmark", str2bool, False),
    ("--warmup", str2bool, False),
    ("--save_log_path", str, "./log_output/"),  # accepted and unused, as in PaddleOCR
)


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="recognise text lines with an exported gpurec model")
    parser.add_argument("--image_dir", required=True)
    parser.add_argument("--rec_model_dir", required=True)
    parser.add_argument("--precision", default="fp32", choices=("fp32", "fp16", "int8"))
    for name, kind, default in FLAGS:
        parser.add_argument(name, type=kind, default=default)  # type: ignore[arg-type]
    return parser


def image_shape(text: str) -> tuple[int, int, int]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise UsageError(f"--rec_image_shape {text!r}: expected C,H,W, e.g. 3,32,100")
    c, h, w = (int(p) for p in parts)
    return c, h, w


def char_dict(args) -> CharDict:
    if args.rec_char_dict_path:
        return CharDict.load(args.rec_char_dict_path)
    info_file = Path(args.rec_model_dir) / "inference.yml"
    if info_file.is_file():
        info = yaml.safe_load(info_file.read_text(encoding="utf-8")) or {}
        characters = (info.get("PostProcess") or {}).get("character_dict")
        if characters:
            return CharDict(tuple(str(c) for c in characters))
    raise UsageError(f"no --rec_char_dict_path and no inference.yml with a character_dict in {args.rec_model_dir}")


class InferenceConfig:
    """What the predictor runs with, answering as ``paddle.inference.Config`` does to AutoLog."""

    def __init__(self, args, device: torch.device, dtype: torch.dtype):
        self.args, self.device, self.dtype = args, device, dtype

    def use_gpu(self) -> bool:
        return self.device.type == "cuda"

    def ir_optim(self) -> bool:
        return bool(self.args.ir_optim)

    def tensorrt_engine_enabled(self) -> bool:
        return False

    def mkldnn_enabled(self) -> bool:
        return bool(self.args.enable_mkldnn) and not self.use_gpu()

    def cpu_math_library_num_threads(self) -> int:
        return torch.get_num_threads()


def choose(args) -> tuple[torch.device, torch.dtype]:
    """The device and the compute type the flags ask for; ``UsageError`` for what cannot run here."""
    if args.use_tensorrt:
        raise UsageError("--use_tensorrt=True: the stand-in has no TensorRT; pass --use_tensorrt=False")
    if args.precision == "int8":
        raise UsageError("--precision=int8 needs a quantised model and TensorRT; the stand-in runs fp32 or fp16")
    if not args.use_gpu:
        return torch.device("cpu"), torch.float32  # as PaddleOCR's CPU path: fp16 runs fp32 there
    if not torch.cuda.is_available():
        raise UsageError(f"--use_gpu=True but torch {torch.__version__} sees no CUDA device: pass --use_gpu=False")
    device = torch.device("cuda", args.gpu_id)
    return device, torch.float16 if args.precision == "fp16" else torch.float32


class TextRecognizer:
    def __init__(self, args):
        self.shape = image_shape(args.rec_image_shape)
        self.device, self.dtype = choose(args)  # first: a device error beats a model error
        if self.device.type == "cpu":
            torch.set_num_threads(max(1, args.cpu_threads))
        archive = Path(args.rec_model_dir) / "inference.pdiparams"
        if not archive.is_file():
            raise UsageError(f"--rec_model_dir {args.rec_model_dir}: no inference.pdiparams there")
        self.model = torch.jit.load(str(archive), map_location=self.device).to(self.dtype).eval()
        self.chars = char_dict(args)
        self.config = InferenceConfig(args, self.device, self.dtype)
        self.timer = None  # AutoLog's ``times`` when benchmarking

    def __call__(self, paths: list[Path]) -> list[tuple[str, float]]:
        if self.timer is not None:
            self.timer.start()
        batch = []
        for path in paths:
            with Image.open(path) as image:
                batch.append(resize_norm(image, self.shape))
        if self.timer is not None:
            self.timer.stamp()
        with torch.no_grad():
            probs = self.model(torch.from_numpy(np.stack(batch)).to(self.device, self.dtype)).float().cpu().numpy()
        if self.timer is not None:
            self.timer.stamp()
        results = self.chars.ctc_decode(probs)
        if self.timer is not None:
            self.timer.end(stamp=True)
        return results
