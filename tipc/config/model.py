"""Typed view of a TIPC ``train_*_infer_python*.txt`` config.

Each field keeps the physical line it came from, so every later error (in the
plan, the runner or a report) can point back at the config text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NULL = "null"


@dataclass(frozen=True, slots=True)
class Field:
    """One ``key:value`` line. ``value`` is everything after the first colon, trimmed."""

    key: str
    value: str
    line: int  # 1-based physical line number in the file
    # What the bash saw after the first colon, spaces kept: only the legacy command text uses it
    # (a trailing space after ``-o `` shows up as a double space in results_python.log).
    raw: str = field(default="", compare=False)

    @property
    def is_null(self) -> bool:
        """True when the bash would emit nothing for this line (null key, null/empty value)."""
        return self.key == NULL or self.value in ("", NULL)

    def values(self) -> tuple[str, ...]:
        """The ``|`` list (a scalar is a list of one)."""
        return tuple(v.strip() for v in self.value.split("|"))


@dataclass(frozen=True, slots=True)
class ModeValue:
    """A ``lite_train_lite_infer=3|whole_train_whole_infer=50`` value, resolved for one mode."""

    value: str | None  # None: no value for this mode (the override is dropped)
    fallback_from: str | None = None  # the mode whose value was used instead, if any


@dataclass(frozen=True, slots=True)
class TrainBenchmark:
    """The five ``train_benchmark_params`` lines (read by benchmark_train.sh only)."""

    batch_size: Field
    fp_items: Field
    epoch: Field
    profiler_options: Field
    flags: Field


@dataclass(frozen=True, slots=True)
class TipcConfig:
    """All roles of the 51-line train config plus its trailing sections.

    Attribute names are roles, not keys: ``train_use_gpu.key`` is whatever the
    config wrote (``Global.use_gpu``), ``train_use_gpu.values()`` the list.
    """

    path: str
    # --- train_params ---
    model_name: Field
    python: Field
    gpu_list: Field
    train_use_gpu: Field
    autocast: Field
    epoch: Field
    save_model_dir: Field
    train_batch: Field
    pretrained_model: Field
    train_model_name: Field
    train_infer_img_dir: Field
    train_param1: Field
    trainer: Field
    norm_train: Field
    pact_train: Field
    fpgm_train: Field
    distill_train: Field
    to_static_slot: Field  # idx 19: parsed, unused since 2023-03 (the trailing section wins)
    custom_train: Field  # idx 20: key = trainer name, value = script
    # --- eval_params ---
    eval: Field
    eval_param1: Field
    # --- infer_params ---
    save_inference_dir: Field
    checkpoints: Field
    norm_export: Field
    quant_export: Field
    fpgm_export: Field
    distill_export: Field
    export1: Field
    export2: Field
    inference_dir: Field
    infer_model: Field
    infer_export: Field
    infer_quant: Field
    inference: Field
    infer_use_gpu: Field
    enable_mkldnn: Field
    cpu_threads: Field
    batch_size: Field
    use_tensorrt: Field
    precision: Field
    model_dir: Field
    image_dir: Field
    save_log: Field
    benchmark: Field
    infer_param1: Field
    # --- trailing sections (optional) ---
    infer_benchmark: tuple[Field, ...] = ()
    train_benchmark: TrainBenchmark | None = None
    to_static: Field | None = None  # key = trainer name, value = extra override
    # what the reader had to assume (a missing optional line read as null, an
    # ignored section) and ``warning: line N: …`` for keys of the wrong kind (see
    # ``roles``): shown to users so that no line is silently skipped or misread
    notes: tuple[str, ...] = ()
