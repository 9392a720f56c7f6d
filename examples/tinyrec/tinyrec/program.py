"""Build the pieces a yml describes, the training loop and the evaluation pass."""

from __future__ import annotations

import datetime
import time
from pathlib import Path

import paddle
from paddle.io import DataLoader, DistributedBatchSampler

from . import checkpoint, runtime
from .config import image_shape
from .data import CharDict, EmptyDataset, RecDataset
from .losses import total_loss
from .metric import RecMetric, prefixed
from .model import as_outputs, build_model, primary_name
from .profiler import StepProfiler


def char_dict(config: dict) -> CharDict:
    return CharDict.load(config["Global"]["character_dict_path"])


def build_loader(config: dict, section: str, chars: CharDict):
    shape = image_shape(config, section)
    dataset = RecDataset(config[section], chars, shape, int(config["Global"].get("max_text_length", 25)))
    loader_cfg = config[section].get("loader", {})
    sampler = DistributedBatchSampler(
        dataset,
        batch_size=int(loader_cfg.get("batch_size_per_card", 16)),
        shuffle=bool(loader_cfg.get("shuffle", False)),
        drop_last=bool(loader_cfg.get("drop_last", False)),
    )
    return dataset, DataLoader(dataset, batch_sampler=sampler, num_workers=0, return_list=True)


def build_model_for(config: dict, chars: CharDict):
    channels = image_shape(config, "Train" if "Train" in config else "Eval")[0]
    return build_model(config["Architecture"], channels, chars.num_classes)


def load_trained_model(config: dict, chars: CharDict, logger):
    """The yml's model with ``Global.checkpoints`` (else ``Global.pretrained_model``) loaded, for eval and export."""
    global_cfg = config["Global"]
    weights = global_cfg.get("checkpoints") or global_cfg.get("pretrained_model")
    if not weights:
        raise runtime.UsageError("no weights: set Global.checkpoints or Global.pretrained_model")
    model = build_model_for(config, chars)
    checkpoint.load_params(model, str(weights))
    logger.info(f"load pretrain successful from {weights}")
    return model


def build_optimizer(config: dict, parameters, steps_per_epoch: int):
    opt_cfg = config.get("Optimizer", {})
    lr_cfg = opt_cfg.get("lr", {})
    base_lr = float(lr_cfg.get("learning_rate", 1e-3))
    epochs = int(config["Global"]["epoch_num"])
    warmup_steps = int(float(lr_cfg.get("warmup_epoch", 0)) * steps_per_epoch)
    decay_steps = max(1, epochs * steps_per_epoch - warmup_steps)
    schedule = lr_cfg.get("name", "Const")
    if schedule == "Cosine":
        lr = paddle.optimizer.lr.CosineAnnealingDecay(base_lr, T_max=decay_steps)
    elif schedule == "Const":
        lr = base_lr
    else:
        raise ValueError(f"Optimizer.lr.name: expected Const or Cosine, got {schedule!r}")
    if warmup_steps > 0:
        lr = paddle.optimizer.lr.LinearWarmup(lr, warmup_steps, 0.0, base_lr)
    factor = float((opt_cfg.get("regularizer") or {}).get("factor", 0.0))
    clip = opt_cfg.get("clip_norm")
    optimizer = paddle.optimizer.Adam(
        learning_rate=lr,
        beta1=float(opt_cfg.get("beta1", 0.9)),
        beta2=float(opt_cfg.get("beta2", 0.999)),
        parameters=parameters,
        weight_decay=paddle.regularizer.L2Decay(factor) if factor else None,
        grad_clip=paddle.nn.ClipGradByGlobalNorm(float(clip)) if clip else None,
    )
    return optimizer, lr


def decode(chars: CharDict, outputs: dict) -> dict[str, list[str]]:
    return {
        name: [text for text, _ in chars.ctc_decode(paddle.nn.functional.softmax(logits, axis=-1).numpy())]
        for name, logits in outputs.items()
    }


def _update(metrics: dict[str, RecMetric], chars: CharDict, outputs: dict, texts: list[str]) -> dict[str, RecMetric]:
    for name, predictions in decode(chars, outputs).items():
        metrics.setdefault(name, RecMetric()).update(predictions, texts)
    return metrics


def _results(model, metrics: dict[str, RecMetric]) -> dict[str, float]:
    primary = primary_name(model)
    result: dict[str, float] = {}
    for name, metric in metrics.items():
        result.update(prefixed(name, primary, metric.result()))
    return result


def batch_metrics(model, chars: CharDict, outputs: dict, texts: list[str]) -> dict[str, float]:
    return _results(model, _update({}, chars, outputs, texts))


def evaluate(model, loader, dataset: RecDataset, chars: CharDict) -> dict[str, float]:
    """Metrics of every sub-model over the whole loader, plus ``fps``."""
    model.eval()
    metrics: dict[str, RecMetric] = {}
    seen, start = 0, time.time()
    with paddle.no_grad():
        for images, _, _, indices in loader:
            texts = [dataset.texts[int(i)] for i in indices.numpy()]
            _update(metrics, chars, as_outputs(model, model(images)), texts)
            seen += len(texts)
    model.train()
    result = _results(model, metrics)
    result["fps"] = seen / max(time.time() - start, 1e-9)
    return result


def log_metrics(logger, metrics: dict[str, float]) -> None:
    logger.info("metric eval ***************")
    for key, value in metrics.items():
        logger.info(f"{key}:{value}")


def _format_step(epoch, epochs, step, lr, values, reader_cost, batch_cost, samples, steps, eta_s) -> str:
    numbers = ", ".join(f"{k}: {v:.6f}" for k, v in values.items())
    return (
        f"epoch: [{epoch}/{epochs}], global_step: {step}, lr: {lr:.6f}, {numbers}, "
        f"avg_reader_cost: {reader_cost / steps:.5f} s, avg_batch_cost: {batch_cost / steps:.5f} s, "
        f"avg_samples: {samples / steps}, ips: {samples / max(batch_cost, 1e-9):.5f} samples/s, "
        f"eta: {datetime.timedelta(seconds=int(eta_s))}"
    )


class AmpContext:
    """fp16 autocast + loss scaling on GPU; on a CPU place paddle's autocast does nothing."""

    def __init__(self, global_cfg: dict, logger):
        requested = bool(global_cfg.get("use_amp", False))
        self.enabled = requested and paddle.is_compiled_with_cuda() and global_cfg.get("use_gpu", False)
        if requested and not self.enabled:
            logger.info("AMP is a no-op on CPU (paddle ignores auto_cast on a CPU place): training runs in fp32")
        self.level = str(global_cfg.get("amp_level", "O2"))
        self.scaler = None
        if self.enabled:
            self.scaler = paddle.amp.GradScaler(
                init_loss_scaling=float(global_cfg.get("scale_loss", 1024.0)),
                use_dynamic_loss_scaling=bool(global_cfg.get("use_dynamic_loss_scaling", True)),
            )

    def decorate(self, model, optimizer):
        if self.enabled and self.level == "O2":
            return paddle.amp.decorate(models=model, optimizers=optimizer, level="O2")
        return model, optimizer

    def autocast(self):
        return paddle.amp.auto_cast(enable=self.enabled, level=self.level)

    def step(self, loss, optimizer) -> None:
        if self.scaler is None:
            loss.backward()
            optimizer.step()
        else:
            self.scaler.scale(loss).backward()
            self.scaler.minimize(optimizer, self.scaler.scale(loss))
        optimizer.clear_grad()


def train(config: dict, logger) -> None:
    global_cfg = config["Global"]
    chars = char_dict(config)
    try:
        dataset, loader = build_loader(config, "Train", chars)
    except EmptyDataset:
        dataset = loader = None
    if loader is None or len(loader) == 0:
        # PaddleOCR's contract, kept on purpose: it logs this, writes no checkpoint and exits 0.
        logger.error(
            "No Images in train dataset, please ensure\n"
            "\t1. The images num in the train label_file_list should be larger than or equal with "
            "batch size.\n\t2. The annotation file and path in the configuration file are provided "
            "normally."
        )
        return
    if dataset.dropped:
        logger.info(f"dropped {dataset.dropped} training samples (unknown characters or longer than max_text_length)")
    model = build_model_for(config, chars)
    optimizer, lr = build_optimizer(config, model.parameters(), len(loader))
    states = {}
    if global_cfg.get("checkpoints"):
        states = checkpoint.load_resume(model, optimizer, str(global_cfg["checkpoints"]))
        logger.info(f"resume from {global_cfg['checkpoints']}")
    elif global_cfg.get("pretrained_model"):
        checkpoint.load_params(model, str(global_cfg["pretrained_model"]))
        logger.info(f"load pretrain successful from {global_cfg['pretrained_model']}")
    amp = AmpContext(global_cfg, logger)
    model, optimizer = amp.decorate(model, optimizer)
    inner = model  # what is saved: never the DataParallel / to_static wrapper
    if global_cfg.get("to_static"):
        model = paddle.jit.to_static(model)
        logger.info("Global.to_static=True: training the model through paddle.jit.to_static")
    if runtime.init_distributed():
        model = paddle.DataParallel(model)
    _train_loop(config, logger, model, inner, optimizer, lr, loader, dataset, chars, amp, states)


def _train_loop(config, logger, model, inner, optimizer, lr, loader, dataset, chars, amp, states) -> None:
    global_cfg = config["Global"]
    epochs = int(global_cfg["epoch_num"])
    print_step = max(1, int(global_cfg.get("print_batch_step", 10)))
    distance_weight = float(config.get("Loss", {}).get("distance_weight", 0.0))
    with_metric = bool(global_cfg.get("cal_metric_during_train", True))
    save_dir = Path(global_cfg.get("save_model_dir", "./output/rec_tiny"))
    start_epoch = int(states.get("epoch", 0)) + 1
    global_step = int(states.get("global_step", 0))
    total_steps = epochs * len(loader)
    profile = StepProfiler(config.get("profiler_options"), logger)
    model.train()
    for epoch in range(start_epoch, epochs + 1):
        reader_cost = batch_cost = 0.0
        samples = window = 0
        tick = time.time()
        for batch_index, (images, labels, lengths, indices) in enumerate(loader):
            reader_cost += time.time() - tick
            with amp.autocast():
                outputs = as_outputs(inner, model(images))
                losses = total_loss(outputs, labels, lengths, distance_weight)
            amp.step(losses["loss"], optimizer)
            if isinstance(lr, paddle.optimizer.lr.LRScheduler):
                lr.step()
            global_step += 1
            batch_cost += time.time() - tick
            samples += images.shape[0]
            window += 1
            last = batch_index == len(loader) - 1
            if global_step % print_step == 0 or last:
                values = {}
                if with_metric:
                    texts = [dataset.texts[int(i)] for i in indices.numpy()]
                    values.update(batch_metrics(inner, chars, outputs, texts))
                values.update({k: float(v) for k, v in losses.items()})
                eta = max(0, total_steps - global_step) * batch_cost / window
                logger.info(
                    _format_step(
                        epoch,
                        epochs,
                        global_step,
                        optimizer.get_lr(),
                        values,
                        reader_cost,
                        batch_cost,
                        samples,
                        window,
                        eta,
                    )
                )
                reader_cost = batch_cost = 0.0
                samples = window = 0
            profile.step()
            tick = time.time()
        if runtime.rank() == 0:
            checkpoint.save(save_dir / "latest", inner, optimizer, {"epoch": epoch, "global_step": global_step})
            logger.info(f"save model in {save_dir / 'latest'}")
    profile.close()  # a batch range the training never reached
