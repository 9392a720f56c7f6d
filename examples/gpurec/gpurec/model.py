"""A convolutional CTC recogniser: conv stack → per-column features → linear head.

Small enough to train in seconds on a GPU, large enough that a training step is real CUDA work
(convolutions, cuDNN, an NCCL all-reduce when launched on several GPUs).
"""

from __future__ import annotations

import torch
from torch import nn

# Width is pooled in the first two blocks only (100 px → 25 CTC steps; 8 characters need >= 17).
_POOLS = ((2, 2), (2, 2), (2, 1), (2, 1))


class RecModel(nn.Module):
    """(B, C, H, W) images → (B, T, classes) logits; softmax probabilities once ``softmax_output``."""

    def __init__(self, in_channels: int, num_classes: int, channels: list[int] | tuple[int, ...]):
        super().__init__()
        if len(channels) != len(_POOLS):
            raise ValueError(f"Architecture.Backbone.channels needs {len(_POOLS)} entries, got {list(channels)}")
        layers: list[nn.Module] = []
        for out_channels, pool in zip(channels, _POOLS, strict=True):
            layers += [
                nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False),
                nn.BatchNorm2d(out_channels),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(pool, pool),
            ]
            in_channels = out_channels
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(in_channels, num_classes)
        self.softmax_output = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = self.body(x).mean(dim=2).transpose(1, 2)  # B, W', C
        logits = self.head(features)
        return logits.softmax(dim=-1) if self.softmax_output else logits


def build_model(arch: dict, in_channels: int, num_classes: int) -> RecModel:
    backbone = arch.get("Backbone") or {}
    return RecModel(in_channels, num_classes, tuple(backbone.get("channels", (32, 64, 96, 96))))
