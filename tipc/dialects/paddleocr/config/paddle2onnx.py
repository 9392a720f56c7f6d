"""The paddle2onnx config (``*_paddle2onnx_python_linux_cpu.txt``) → ``Paddle2OnnxConfig``.

Each suite's ``test_tipc/test_paddle2onnx.sh`` reads one ``paddle2onnx_params`` section purely by
position (``lines[i]`` of the file's non-blank lines, ``##`` lines included), and each suite lays
the lines out differently. tipc reads them the same way, as the bash sees them:

* the i-th non-blank line of the first N physical lines (N: 17 PaddleOCR, 16 PaddleClas, 13
  PaddleSeg; PaddleDetection reads the whole file), whatever its key;
* key = the text before the first ``:``; value, with its spaces, the text between the first and
  the second ``:`` (PaddleOCR's, PaddleClas's and PaddleSeg's ``func_parser_value`` split on every
  ``:``: a value with a colon of its own, a URL, is cut there, and the plan notes it where the bash
  passes it on), or all the text after the first ``:`` (PaddleDetection's ``${strs#*:}``).

The layout is told by the keys at the places the four scripts differ (``LAYOUTS``), never by the
file name; a section whose keys match none is a ``ConfigError`` naming what was expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from tipc.config.bounds import excerpt
from tipc.config.model import Field
from tipc.errors import ConfigError

SECTION = "paddle2onnx_params"
Layout = Literal["PaddleOCR", "PaddleClas", "PaddleDetection", "PaddleSeg"]

# Roles by the bash's line index (index 0 is the section header), per suite script.
_OCR = (
    "model_name", "python", "convert", "det_model_dir", "model_filename", "params_filename", "det_save_file",
    "rec_model_dir", "rec_save_file", "opset_version", "enable_onnx_checker", "inference", "use_gpu",
    "det_model_key", "rec_model_key", "image_dir",
)  # fmt: skip
_CLAS = (
    "model_name", "python", "convert", "model_dir", "model_filename", "params_filename", "save_file",
    "opset_version", "enable_onnx_checker", "model_url", "inference", "use_onnx", "inference_model_dir",
    "hardware", "inference_config",
)  # fmt: skip
_DET = (
    "model_name", "python", "filename", "placeholder1", "save_export", "export_weight", "norm_export",
    "quant_export", "fpgm_export", "distill_export", "export1", "export_param", "kl_quant_export",
    "placeholder2", "infer_mode", "infer_quant", "convert", "model_dir", "model_filename", "params_filename",
    "save_file", "opset_version", "enable_onnx_checker", "convert_param1", "inference", "infer_cfg",
    "onnx_file", "image_file", "infer_param1",
)  # fmt: skip
_SEG = (
    "model_name", "python", "convert", "model_dir", "model_filename", "params_filename", "save_file",
    "opset_version", "enable_onnx_checker", "inference", "model_key", "image_dir",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Shape:
    roles: tuple[str, ...]
    reads: int | None  # physical lines the script reads (awk NR==1,NR==N); None: the whole file
    marks: tuple[tuple[int, str], ...]  # (line index, key) that tell this layout from the others
    whole_value: bool = False  # the value is all after the first ':' (else up to the second)


LAYOUTS: Mapping[Layout, _Shape] = {
    "PaddleOCR": _Shape(_OCR, 17, ((4, "--det_model_dir"), (8, "--rec_model_dir"))),
    "PaddleClas": _Shape(_CLAS, 16, ((10, "inference_model_url"),)),
    "PaddleDetection": _Shape(_DET, None, ((7, "norm_export"), (15, "infer_mode")), whole_value=True),
    "PaddleSeg": _Shape(_SEG, 13, ((10, "inference"), (11, "--onnx_file"))),
}
# Lines no script passes on: a value cut at a colon there is no matter.
_UNREAD = ("model_url", "placeholder1", "placeholder2", "infer_quant")


@dataclass(frozen=True, slots=True)
class Paddle2OnnxConfig:
    """The lines of a paddle2onnx config as its suite's script reads them, by role.

    ``Field.value`` is the bash's value trimmed (for messages and null tests); ``Field.raw`` is
    the value with its spaces, as the bash splices it into its commands."""

    path: str
    header_line: int
    layout: Layout
    fields: Mapping[str, Field]
    notes: tuple[str, ...] = ()

    def __getitem__(self, role: str) -> Field:
        return self.fields[role]

    @property
    def model_name(self) -> Field:
        return self.fields["model_name"]

    @property
    def python(self) -> Field:
        return self.fields["python"]

    def gpu_values(self) -> tuple[str, ...]:
        """The device values its inference runs with: PaddleOCR's --use_gpu list, PaddleClas's use_gpu."""
        field = self.fields.get("use_gpu") or self.fields.get("hardware")
        return field.values() if field is not None else ()


def is_paddle2onnx(section_name: str) -> bool:
    return section_name == SECTION


def bash_lines(text: str, reads: int | None) -> list[tuple[int, str]]:
    """(physical line number, text) of the non-blank lines among the first ``reads`` physical
    lines, as ``lines=(${dataline})`` with ``IFS=$'\\n'`` keeps them."""
    physical = text.removeprefix("\ufeff").split("\n")
    if reads is not None:
        physical = physical[:reads]
    return [(n, line.rstrip("\r")) for n, line in enumerate(physical, start=1) if line.strip("\r")]


def bash_field(number: int, line: str, whole_value: bool) -> tuple[Field, bool]:
    """The line as ``func_parser_key``/``func_parser_value`` read it; True when its value was cut."""
    if whole_value:
        key, _, raw = line.partition(":")
        return Field(key.strip(), raw.strip(), number, raw), False
    parts = line.split(":")
    raw = parts[1] if len(parts) > 1 else ""
    return Field(parts[0].strip(), raw.strip(), number, raw), len(parts) > 2


def _layout(path: str, header_line: int, lines: list[tuple[int, str]]) -> Layout:
    for name, shape in LAYOUTS.items():
        if all(i < len(lines) and lines[i][1].split(":")[0].strip() == key for i, key in shape.marks):
            return name
    wanted = "; ".join(
        f"{name}: " + ", ".join(f"'{key}' on line {i + 1}" for i, key in shape.marks) for name, shape in LAYOUTS.items()
    )
    raise ConfigError(
        path,
        header_line,
        f"a '{SECTION}' section in none of the suites' layouts: expected (non-blank lines counted) {wanted}",
    )


def paddle2onnx_config(text: str, path: str, header_line: int) -> Paddle2OnnxConfig:
    """Read text whose first section is ``paddle2onnx_params``; a missing line is a ``ConfigError``."""
    layout = _layout(path, header_line, bash_lines(text, None))
    shape = LAYOUTS[layout]
    lines = bash_lines(text, shape.reads)
    if len(lines) <= len(shape.roles):
        last = lines[-1][0] if lines else header_line
        role = shape.roles[len(lines) - 1]
        read = f"the first {shape.reads} lines" if shape.reads else "the file"
        raise ConfigError(
            path,
            last,
            f"truncated {layout} paddle2onnx config: test_paddle2onnx.sh reads {len(shape.roles)} lines after the "
            f"header from {read}, found {len(lines) - 1}; expected a line for role {role} next",
        )
    fields, notes = {}, []
    for role, (number, line) in zip(shape.roles, lines[1:], strict=False):
        field, cut = bash_field(number, line, shape.whole_value)
        fields[role] = field
        if cut and role not in _UNREAD:
            notes.append(
                f"line {number} ('{excerpt(field.key)}', role {role}): the bash reads the value up to its second "
                f"':' only, '{excerpt(field.value)}'; tipc passes it as the bash does"
            )
    for role in ("model_name", "python"):
        if not fields[role].value:
            message = f"expected a value for '{excerpt(fields[role].key)}' (role {role}), found an empty value"
            raise ConfigError(path, fields[role].line, message)
    return Paddle2OnnxConfig(path, header_line, layout, fields, tuple(notes))
