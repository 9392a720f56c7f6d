"""Device variants: what a suite's ``test_train_inference_python_npu.sh`` or ``_xpu.sh`` runs (``--device npu``).

Each suite ships, beside its main script, one script per accelerator that rewrites the config's text (``use_gpu`` →
``use_npu``, ``--device:gpu`` → ``--device:npu``, smaller lite runs for a few models …) and then calls the main script
with ``"gpu"`` read as ``"npu"``. A dialect declares those rewrites as data (``Dialect.devices``); tipc applies them
to the text it reads, never to the suite's files, and reads the config again, so every check of the reader holds
for the rewritten text. The main script's ``"gpu"`` is the device word the plan takes for an accelerator
(``tipc.plan.devices``).

What the scripts do beyond the config (edit the trainer's yml in the checkout, download a smaller annotation file)
tipc does not do: each such step is a plan note naming it (``Variant.notes``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tipc.errors import ConfigError
from tipc.plan.devices import VARIANT_DEVICES
from tipc.suites.reread import Parse, reread


@dataclass(frozen=True, slots=True)
class Rewrite:
    """Every ``old`` in the config's text becomes ``new`` (a script's ``sed -i "s/old/new/g"``); with ``models``,
    only in the configs of those models; with ``line``, ``new`` is appended to that line (``sed "18s/$/ new/"``)."""

    old: str
    new: str
    models: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True, slots=True)
class Variant:
    rewrites: tuple[Rewrite, ...]
    # The model a rewrite's ``models`` names: the config's model_name line by default; PaddleClas's script takes
    # the folder the config sits in.
    model_of: Callable[[str, tuple[str, ...]], str] | None = None
    notes: tuple[str, ...] = ()  # what the script does that tipc does not, one note each
    # The launch's device option as the script's edit of the main script renames it (PaddleGAN: ``--gpus`` →
    # ``--npus``); "" where it leaves the launch alone. The dialect's planner reads it for ``--device <device>``.
    launch_devices: str = ""


MKLDNN_OFF = (  # the scripts' `uname -i` != x86_64 branch: `uname -i` prints "unknown" on Debian and Ubuntu
    Rewrite("--enable_mkldnn:True|False", "--enable_mkldnn:False"),
    Rewrite("--enable_mkldnn:True", "--enable_mkldnn:False"),
)


def yml_note(device: str, what: str) -> str:
    return f"the {device} script also edits {what} in the checkout; tipc never edits the checkout: set it there"


def model_line(path: str, texts: tuple[str, ...]) -> str:
    """The value of the config's second line (``model_name:…``), as the scripts cut it."""
    del path
    return texts[1].split(":", 1)[1].strip() if len(texts) > 1 and ":" in texts[1] else ""


def rewrite(model: str, texts: list[str], numbers: list[int], variant: Variant) -> None:
    """``variant``'s rewrites of ``texts`` (``numbers``: their physical line numbers), in place."""
    for r in variant.rewrites:
        if r.models and model not in r.models:
            continue
        if r.line:
            texts[:] = [t + r.new if n == r.line else t for t, n in zip(texts, numbers, strict=True)]
        else:
            texts[:] = [t.replace(r.old, r.new) for t in texts]


def apply_variant(
    config: Any, dialect: str, devices: Mapping[str, Variant], device: str, parse: Parse | None = None
) -> tuple[Any, tuple[str, ...]]:
    """The config read again (through the dialect's ``parse``) as the dialect's ``device`` script rewrites it, with
    the plan notes; unchanged for a device that has no script of its own (cpu, gpu)."""
    if device not in VARIANT_DEVICES:
        return config, ()
    variant = devices.get(device)
    if variant is None:
        offered = ", ".join(sorted(devices)) or "none"
        path = str(getattr(config, "path", dialect))
        raise ConfigError(path, 0, f"--device {device}: {dialect} ships no {device} script (device scripts: {offered})")
    said = f"--device {device}: read as the suite's test_train_inference_python_{device}.sh rewrites it"

    def change(path: str, texts: list[str], numbers: list[int]) -> tuple[str, ...]:
        rewrite((variant.model_of or model_line)(path, tuple(texts)), texts, numbers, variant)
        return (said, *variant.notes)

    return reread(config, dialect, change, f"--device {device}", parse)
