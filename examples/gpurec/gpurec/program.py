"""The training loop and the evaluation pass, logging PaddleOCR's lines."""

from __future__ import annotations

import contextlib
import datetime
import time
from pathlib import Path

import numpy as np
import torch
from tinyrec.config import image_shape
from tinyrec.data import BLANK, CharDict, EmptyDataset, RecDataset
from tinyrec.metric import RecMetric
from torch.utils.data import DataLoader, DistributedSampler

from . import checkpoint, runtime
from .model import RecModel, build_model

MB = 1024 * 1024


def char_dict(config: dict) -> CharDict:
    return CharDict.load(config["Global"]["character_dict_path"])


def collate(batch):
    images, labels, lengths, indices = zip(*batch, strict=True)
    return (
        torch.from_numpy(np.stack(images)),
        torch.from_numpy(np.stack(labels)).long(),
        torch.tensor(lengths, dtype=torch.long),
        list(indices),
    )


def build_loader(config: dict, section: str, chars: CharDict, distributed: bool = False):
    shape = image_shape(config, section)
    dataset = RecDataset(config[section], chars, shape, int(config["Global"].get("max_text_length", 25)))
    loader_cfg = config[section].get("loader", {})
    shuffle = bool(loader_cfg.get("shuffle", False))
    # Each rank reads its share, as paddle's DistributedBatchSampler hands it out.
    sampler = DistributedSampler(dataset, runtime.world_size(), runtime.rank(), shuffle) if distributed else None
    loader = DataLoader(
        dataset,
        batch_size=int(loader_cfg.get("batch_size_per_card", 16)),
        shuffle=shuffle and sampler is None,
        sampler=sampler,
        drop_last=bool(loader_cfg.get("drop_last", False)),
        collate_fn=collate,
    )
    return dataset, loader


def build_model_for(config: dict, chars: CharDict) -> RecModel:
    channels = image_shape(config, "Train" if "Train" in config else "Eval")[0]
    return build_model(config["Architecture"], channels, chars.num_classes)


def load_trained_model(config: dict, chars: CharDict, logger) -> RecModel:
    """The yml's model with ``Global.checkpoints`` (else ``Global.pretrained_model``) loaded, for eval and export."""
    global_cfg = config["Global"]
    weights = global_cfg.get("checkpoints") or global_cfg.get("pretrained_model")
    if not weights:
        raise runtime.UsageError("no weights: set Global.checkpoints or Global.pretrained_model")
    model = build_model_for(config, chars)
    checkpoint.load_params(model, str(weights))
    logger.info(f"load pretrain successful from {weights}")
    return model


def ctc_loss(logits: torch.Tensor, labels: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    log_probs = logits.float().log_softmax(-1).transpose(0, 1)  # T, B, C
    steps = torch.full((log_probs.shape[1],), log_probs.shape[0], dtype=torch.long)
    return torch.nn.functional.ctc_loss(log_probs, labels, steps, lengths, blank=BLANK, zero_infinity=True)


def decode(chars: CharDict, logits: torch.Tensor) -> list[str]:
    return [text for text, _ in chars.ctc_decode(logits.float().softmax(-1).detach().cpu().numpy())]


def evaluate(model: torch.nn.Module, loader, dataset: RecDataset, chars: CharDict, device: torch.device) -> dict:
    """acc and norm_edit_dis over the whole loader, plus ``fps``."""
    model.eval()
    metric = RecMetric()
    seen, start = 0, time.time()
    with torch.no_grad():
        for images, _, _, indices in loader:
            texts = [dataset.texts[int(i)] for i in indices]
            metric.update(decode(chars, model(images.to(device))), texts)
            seen += len(texts)
    model.train()
    return {**metric.result(), "fps": seen / max(time.time() - start, 1e-9)}


def log_metrics(logger, metrics: dict[str, float]) -> None:
    logger.info("metric eval ***************")
    for key, value in metrics.items():
        logger.info(f"{key}:{value}")


def memory_text(device: torch.device) -> str:
    """PaddleOCR's GPU memory suffix of a step line; "" on the CPU."""
    if device.type != "cuda":
        return ""
    reserved, allocated = torch.cuda.max_memory_reserved(device), torch.cuda.max_memory_allocated(device)
    return f", max_mem_reserved: {reserved // MB} MB, max_mem_allocated: {allocated // MB} MB"


def step_line(epoch, epochs, step, lr, values: dict, reader_cost, batch_cost, samples, steps, eta_s) -> str:
    """PaddleOCR's training line, which tipc's train-log and speed parsers read."""
    numbers = ", ".join(f"{k}: {v:.6f}" for k, v in values.items())
    return (
        f"epoch: [{epoch}/{epochs}], global_step: {step}, lr: {lr:.6f}, {numbers}, "
        f"avg_reader_cost: {reader_cost / steps:.5f} s, avg_batch_cost: {batch_cost / steps:.5f} s, "
        f"avg_samples: {samples / steps}, ips: {samples / max(batch_cost, 1e-9):.5f} samples/s, "
        f"eta: {datetime.timedelta(seconds=int(eta_s))}"
    )


class Amp:
    """fp16 autocast with loss scaling on a CUDA device (``Global.use_amp``); nothing on the CPU."""

    def __init__(self, global_cfg: dict, device: torch.device, logger):
        requested = bool(global_cfg.get("use_amp", False))
        self.enabled = requested and device.type == "cuda"
        if requested and not self.enabled:
            logger.info("AMP is a no-op on CPU: training runs in fp32")
        init_scale = float(global_cfg.get("scale_loss", 1024.0))
        self.scaler = torch.amp.GradScaler("cuda", init_scale=init_scale, enabled=self.enabled)
        self.device = device

    def autocast(self):
        if not self.enabled:
            return contextlib.nullcontext()
        return torch.autocast("cuda", dtype=torch.float16)

    def step(self, loss: torch.Tensor, optimizer: torch.optim.Optimizer) -> None:
        optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        self.scaler.step(optimizer)
        self.scaler.update()


def train(config: dict, logger, device: torch.device) -> None:
    global_cfg = config["Global"]
    chars = char_dict(config)
    distributed = runtime.init_distributed(device)
    try:
        dataset, loader = build_loader(config, "Train", chars, distributed)
    except EmptyDataset:
        dataset = loader = None
    if loader is None or len(loader) == 0:
        # PaddleOCR's contract, kept on purpose (tipc catches it: no checkpoint is written).
        logger.error("No Images in train dataset, please ensure the images num in the train label_file_list "
                     "is larger than or equal with batch size.")  # fmt: skip
        return
    model = build_model_for(config, chars)
    lr = float(((config.get("Optimizer") or {}).get("lr") or {}).get("learning_rate", 1e-3))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    states: dict = {}
    if global_cfg.get("checkpoints"):
        states = checkpoint.load_resume(model, optimizer, str(global_cfg["checkpoints"]))
        logger.info(f"resume from {global_cfg['checkpoints']}")
    elif global_cfg.get("pretrained_model"):
        checkpoint.load_params(model, str(global_cfg["pretrained_model"]))
        logger.info(f"load pretrain successful from {global_cfg['pretrained_model']}")
    model.to(device)
    for state in optimizer.state.values():  # a resumed optimizer's moments, onto the model's device
        for key, value in state.items():
            if isinstance(value, torch.Tensor) and value.dim() > 0:
                state[key] = value.to(device)
    wrapped = torch.nn.parallel.DistributedDataParallel(model) if distributed else model
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    logger.info(f"gpurec: training on {device} ({name}), rank {runtime.rank()} of {runtime.world_size()}")
    _loop(config, logger, wrapped, model, optimizer, loader, dataset, chars, Amp(global_cfg, device, logger), states)
    if distributed:
        torch.distributed.destroy_process_group()


def _loop(config, logger, wrapped, model, optimizer, loader, dataset, chars, amp: Amp, states: dict) -> None:
    global_cfg = config["Global"]
    epochs = int(global_cfg["epoch_num"])
    print_step = max(1, int(global_cfg.get("print_batch_step", 10)))
    with_metric = bool(global_cfg.get("cal_metric_during_train", True))
    save_dir = Path(global_cfg.get("save_model_dir", "./output/rec_gpu"))
    global_step = int(states.get("global_step", 0))
    total_steps = epochs * len(loader)
    device = amp.device
    wrapped.train()
    for epoch in range(int(states.get("epoch", 0)) + 1, epochs + 1):
        if isinstance(loader.sampler, DistributedSampler):
            loader.sampler.set_epoch(epoch)
        reader_cost = batch_cost = 0.0
        samples = window = 0
        tick = time.time()
        for batch_index, (cpu_images, labels, lengths, indices) in enumerate(loader):
            reader_cost += time.time() - tick
            images = cpu_images.to(device, non_blocking=True)
            with amp.autocast():
                logits = wrapped(images)
            loss = ctc_loss(logits, labels.to(device), lengths.to(device))
            amp.step(loss, optimizer)
            global_step += 1
            if device.type == "cuda":
                torch.cuda.synchronize(device)  # a step's cost is its GPU time, not its launch time
            batch_cost += time.time() - tick
            samples += images.shape[0]
            window += 1
            if global_step % print_step == 0 or batch_index == len(loader) - 1:
                values: dict[str, float] = {}
                if with_metric:
                    metric = RecMetric()
                    metric.update(decode(chars, logits), [dataset.texts[int(i)] for i in indices])
                    values.update(metric.result())
                values["loss"] = loss.item()
                eta = max(0, total_steps - global_step) * batch_cost / window
                line = step_line(epoch, epochs, global_step, optimizer.param_groups[0]["lr"], values,
                                 reader_cost, batch_cost, samples, window, eta)  # fmt: skip
                logger.info(line + memory_text(device))
                reader_cost = batch_cost = 0.0
                samples = window = 0
            tick = time.time()
        if runtime.rank() == 0:
            checkpoint.save(save_dir / "latest", model, optimizer, {"epoch": epoch, "global_step": global_step})
            logger.info(f"save model in {save_dir / 'latest'}")
