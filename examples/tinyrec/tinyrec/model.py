"""A CRNN-shaped recogniser (conv stack → BiLSTM → CTC head) and its distillation pair.

The yml's ``Architecture`` section builds either one model or, with
``Models: {Teacher: …, Student: …}``, a ``DistillationModel`` holding one
sub-model per key; export writes one inference model per key.
"""

from __future__ import annotations

import paddle
from paddle import nn


class ConvBNReLU(nn.Layer):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2D(in_channels, out_channels, 3, padding=1, bias_attr=False)
        self.bn = nn.BatchNorm2D(out_channels)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class TinyConv(nn.Layer):
    """Halves the width twice (so 100 px → 25 CTC steps) and collapses the height."""

    # Width is pooled only in the first two blocks: a line of 8 characters needs >= 17 steps.
    _POOLS = ((2, 2), (2, 2), (2, 1), (2, 1))

    def __init__(self, in_channels: int = 3, channels: tuple[int, ...] = (32, 64, 128, 128)):
        super().__init__()
        if len(channels) != len(self._POOLS):
            raise ValueError(f"Backbone.channels needs {len(self._POOLS)} entries, got {list(channels)}")
        layers = []
        for out_channels, pool in zip(channels, self._POOLS, strict=False):
            layers += [ConvBNReLU(in_channels, out_channels), nn.MaxPool2D(pool, pool)]
            in_channels = out_channels
        self.body = nn.Sequential(*layers)
        self.out_channels = in_channels

    def forward(self, x):
        features = self.body(x)  # B, C, H', W'
        return features.mean(axis=2).transpose([0, 2, 1])  # B, W', C


class SequenceEncoder(nn.Layer):
    def __init__(self, in_channels: int, hidden_size: int):
        super().__init__()
        self.rnn = nn.LSTM(in_channels, hidden_size, direction="bidirect")
        self.out_channels = hidden_size * 2

    def forward(self, x):
        return self.rnn(x)[0]


class RecModel(nn.Layer):
    """Returns (B, T, classes) logits; ``softmax_output`` is set for export."""

    def __init__(self, arch: dict, in_channels: int, num_classes: int):
        super().__init__()
        backbone = dict(arch.get("Backbone") or {})
        self.backbone = TinyConv(in_channels, tuple(backbone.get("channels", (32, 64, 128, 128))))
        neck = arch.get("Neck") or {}
        width = self.backbone.out_channels
        self.neck = None
        if neck.get("encoder_type", "rnn") == "rnn":
            self.neck = SequenceEncoder(width, int(neck.get("hidden_size", 64)))
            width = self.neck.out_channels
        self.head = nn.Linear(width, num_classes)
        self.softmax_output = False

    def forward(self, x):
        x = self.backbone(x)
        if self.neck is not None:
            x = self.neck(x)
        logits = self.head(x)
        return nn.functional.softmax(logits, axis=-1) if self.softmax_output else logits


class DistillationModel(nn.Layer):
    """One sub-model per ``Architecture.Models`` key; forward returns {name: logits}."""

    def __init__(self, models: dict, in_channels: int, num_classes: int):
        super().__init__()
        self.names = tuple(models)
        self.models = nn.LayerDict({name: RecModel(arch, in_channels, num_classes) for name, arch in models.items()})

    def forward(self, x):
        return {name: self.models[name](x) for name in self.names}


def build_model(arch: dict, in_channels: int, num_classes: int) -> nn.Layer:
    if "Models" in arch:
        return DistillationModel(arch["Models"], in_channels, num_classes)
    return RecModel(arch, in_channels, num_classes)


def sub_models(model: nn.Layer) -> dict[str, RecModel]:
    """{"Teacher": …, "Student": …} for distillation, {"": model} otherwise (export dir names)."""
    if isinstance(model, DistillationModel):
        return {name: model.models[name] for name in model.names}
    return {"": model}


def primary_name(model: nn.Layer) -> str:
    """The sub-model whose metrics are reported unprefixed (PaddleOCR: the Student)."""
    names = tuple(sub_models(model))
    return "Student" if "Student" in names else names[0]


def as_outputs(model: nn.Layer, out) -> dict[str, paddle.Tensor]:
    return out if isinstance(out, dict) else {"": out}
