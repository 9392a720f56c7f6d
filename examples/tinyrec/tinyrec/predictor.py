"""The inference side of ``tools/infer/predict_rec.py``: ``paddle.inference``, or ONNX Runtime with
``--use_onnx=True`` (``--rec_model_dir`` then names the ``.onnx`` file, as PaddleOCR's predictors take it)."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import paddle
import yaml
from paddle import inference
from PIL import Image

from .data import CharDict, resize_norm
from .runtime import UsageError

_TRUE = ("true", "yes", "t", "y", "1")


def str2bool(text: str) -> bool:
    """PaddleOCR's reading: true/yes/t/y/1 (any case) are True, anything else False."""
    return str(text).lower() in _TRUE


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="recognise text lines with an exported tinyrec model")
    parser.add_argument("--image_dir", required=True)
    parser.add_argument("--rec_model_dir", required=True)
    parser.add_argument("--rec_image_shape", default="3, 32, 100")
    parser.add_argument("--rec_batch_num", type=int, default=6)
    parser.add_argument(
        "--rec_char_dict_path", default=None, help="default: the dict recorded in the export's inference.yml"
    )
    parser.add_argument("--use_gpu", type=str2bool, default=False)
    parser.add_argument("--gpu_id", type=int, default=0)
    parser.add_argument("--gpu_mem", type=int, default=500)
    parser.add_argument("--enable_mkldnn", type=str2bool, default=False)
    parser.add_argument("--cpu_threads", type=int, default=10)
    parser.add_argument("--use_tensorrt", type=str2bool, default=False)
    parser.add_argument("--precision", default="fp32", choices=("fp32", "fp16", "int8"))
    parser.add_argument("--ir_optim", type=str2bool, default=True)
    parser.add_argument("--use_onnx", type=str2bool, default=False)
    parser.add_argument("--benchmark", type=str2bool, default=False)
    parser.add_argument("--warmup", type=str2bool, default=False)
    parser.add_argument("--save_log_path", default="./log_output/", help="accepted for compatibility; unused")
    return parser


def image_shape(text: str) -> tuple[int, int, int]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise UsageError(f"--rec_image_shape {text!r}: expected C,H,W, e.g. 3,32,100")
    c, h, w = (int(p) for p in parts)
    return c, h, w


def model_files(model_dir: str) -> tuple[Path, Path]:
    """(graph, params): ``inference.json`` preferred over ``.pdmodel``, as PaddleOCR's loader does."""
    base = Path(model_dir)
    for prefix in ("model", "inference"):
        params = base / f"{prefix}.pdiparams"
        for suffix in (".json", ".pdmodel"):
            graph = base / f"{prefix}{suffix}"
            if graph.is_file() and params.is_file():
                return graph, params
    raise UsageError(f"--rec_model_dir {model_dir}: no inference.json/.pdmodel + inference.pdiparams there")


def char_dict(args) -> CharDict:
    if args.rec_char_dict_path:
        return CharDict.load(args.rec_char_dict_path)
    # An .onnx file beside (or in a folder of) the export finds the export's inference.yml the same way.
    model_dir = Path(args.rec_model_dir).parent if args.use_onnx else Path(args.rec_model_dir)
    for candidate in (model_dir / "inference.yml", model_dir.parent / "inference.yml"):
        if candidate.is_file():
            info = yaml.safe_load(candidate.read_text(encoding="utf-8")) or {}
            characters = (info.get("PostProcess") or {}).get("character_dict")
            if characters:
                return CharDict(tuple(str(c) for c in characters))
    raise UsageError(f"no --rec_char_dict_path and no inference.yml with a character_dict beside {args.rec_model_dir}")


class OnnxPredictor:
    """An ONNX Runtime session behind the two calls ``TextRecognizer`` makes (run, then read the output)."""

    def __init__(self, args):
        try:
            import onnxruntime
        except ImportError as exc:
            raise UsageError(f"--use_onnx=True needs onnxruntime (pip install onnxruntime): {exc}") from None
        path = Path(args.rec_model_dir)
        if not path.is_file():
            raise UsageError(f"--use_onnx=True: --rec_model_dir {path} is no .onnx file")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = args.cpu_threads
        providers = ["CUDAExecutionProvider"] if args.use_gpu else ["CPUExecutionProvider"]
        self.session = onnxruntime.InferenceSession(str(path), options, providers=providers)
        self.input_name = self.session.get_inputs()[0].name

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input_name: batch})[0]


def create_predictor(args):
    if args.use_gpu and not paddle.is_compiled_with_cuda():
        raise UsageError(
            f"--use_gpu=True but this paddle build has no CUDA (paddle {paddle.__version__}): pass --use_gpu=False"
        )
    graph, params = model_files(args.rec_model_dir)
    config = inference.Config(str(graph), str(params))
    if graph.suffix == ".json":
        # A PIR program: without the new IR the memory-optimize pass is looked up and missing.
        config.enable_new_ir(True)
        config.enable_new_executor(True)
    if args.use_gpu:
        config.enable_use_gpu(args.gpu_mem, args.gpu_id)
        if args.use_tensorrt:
            precision = {"fp16": inference.PrecisionType.Half, "int8": inference.PrecisionType.Int8}.get(
                args.precision, inference.PrecisionType.Float32
            )
            config.enable_tensorrt_engine(
                workspace_size=1 << 30,
                max_batch_size=args.rec_batch_num,
                min_subgraph_size=15,
                precision_mode=precision,
            )
    else:
        config.disable_gpu()
        config.set_cpu_math_library_num_threads(args.cpu_threads)
        # The CPU build turns oneDNN on by default: honour --enable_mkldnn=False explicitly.
        if args.enable_mkldnn:
            config.enable_mkldnn()
            if args.precision == "fp16":
                # As PaddleOCR: on CPU, half precision means oneDNN's bfloat16 kernels.
                config.enable_mkldnn_bfloat16()
        else:
            config.disable_mkldnn()
    config.switch_ir_optim(args.ir_optim)
    config.enable_memory_optim()
    config.disable_glog_info()
    return inference.create_predictor(config), config


class TextRecognizer:
    def __init__(self, args):
        self.shape = image_shape(args.rec_image_shape)
        self.onnx = OnnxPredictor(args) if args.use_onnx else None
        if self.onnx is None:
            self.predictor, self.config = create_predictor(args)  # first: a device error beats a dict error
            self.input = self.predictor.get_input_handle(self.predictor.get_input_names()[0])
            self.output = self.predictor.get_output_handle(self.predictor.get_output_names()[0])
        else:
            self.config = None  # AutoLog reads no paddle config of an ONNX run
        self.chars = char_dict(args)
        self.timer = None  # AutoLog's ``times`` when benchmarking

    def _stamp(self, what: str) -> None:
        if self.timer is not None:
            if what == "end":
                self.timer.end(stamp=True)
            else:
                getattr(self.timer, what)()

    def __call__(self, paths: list[Path]) -> list[tuple[str, float]]:
        self._stamp("start")
        batch = []
        for path in paths:
            with Image.open(path) as image:
                batch.append(resize_norm(image, self.shape))
        self._stamp("stamp")
        if self.onnx is not None:
            probs = self.onnx(np.stack(batch))
        else:
            self.input.copy_from_cpu(np.stack(batch))
            self.predictor.run()
            probs = self.output.copy_to_cpu()
        self._stamp("stamp")
        results = self.chars.ctc_decode(probs)
        self._stamp("end")
        return results
