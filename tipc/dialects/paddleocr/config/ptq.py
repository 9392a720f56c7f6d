"""The KL post-training quantization config (``train_ptq_infer_python.txt``, docs/spec.md §1.7) → ``PtqConfig``.

Only ``test_ptq_inference_python.sh`` reads this format: one section of positional lines, the model
to quantize, the quantizer (``infer_export``) and the inference sweep. It is read with the train
parser's scanner and section reader (the same bounds, the same ``path:line`` errors, fixed keys
found by key and free keys by position between them), over its own slot table:

* fixed keys: ``model_name``, ``python``, ``infer_export``, ``infer_quant``, ``inference``;
* free keys, by position: the quantizer's input and output overrides (``Global.pretrained_model``,
  ``Global.save_inference_dir``: keys only), the ``infer_model`` list, the eight predictor lines
  (``--use_gpu`` ... ``--image_dir``), then the four lines the script never reads (it reads 17 lines,
  B15): save_log, ``--benchmark``, an extra parameter and one more. They are required all the same, as
  every real config has them: the free-key lines run to the end of the section, and only their exact
  count tells that one is missing (an optional tail would absorb a missing flag line and shift the
  ones after it, bug B7).

The header is ``kl_quant_params``. Four real configs (the table and KIE models) carry the train
format's ``train_params`` header instead; the bash never reads it, so a lone ``train_params``
section holding an ``infer_export`` line (the train format keeps that line in ``infer_params``)
is read as this format, with a note.
"""

from __future__ import annotations

from dataclasses import dataclass

from tipc.config.bounds import excerpt
from tipc.config.model import Field

# The parser's reading machinery is package-internal; this format is one more slot table over it.
from tipc.dialects.paddleocr.config.parser import _Document, _fixed, _flag, _free, _override, _read
from tipc.dialects.paddleocr.config.roles import KeyRole, role_warnings
from tipc.errors import ConfigError

PTQ_SECTION = "kl_quant_params"
TRAIN_SECTION = "train_params"
# The one line of this format that the train format keeps in another section.
_MARK = "infer_export"
_SLOTS = (
    _fixed("model_name"), _fixed("python"),
    _override("weights", "Global.pretrained_model"), _override("save_inference_dir", "Global.save_inference_dir"),
    _free("infer_model", "infer_model"), _fixed("infer_export"), _fixed("infer_quant"), _fixed("inference"),
    _flag("infer_use_gpu", "--use_gpu"), _flag("enable_mkldnn", "--enable_mkldnn"),
    _flag("cpu_threads", "--cpu_threads"), _flag("batch_size", "--rec_batch_num"),
    _flag("use_tensorrt", "--use_tensorrt"), _flag("precision", "--precision"),
    _flag("model_dir", "--rec_model_dir"), _flag("image_dir", "--image_dir"),
    _free("save_log", "null"), _free("benchmark", "--benchmark"), _free("infer_param1", "null"), _free("extra", "null"),
)  # fmt: skip
_NON_EMPTY_ROLES = ("model_name", "python")
# Roles of the lines after the 17 the script reads.
UNREAD_ROLES = ("save_log", "benchmark", "infer_param1", "extra")


@dataclass(frozen=True, slots=True)
class PtqConfig:
    """The lines of a KL quantization config as written, by role (names as in ``TipcConfig``)."""

    path: str
    header_line: int  # the section header's line: errors about the config as a whole point here
    model_name: Field
    python: Field
    weights: Field  # key = the quantizer's input-model override; value unused
    save_inference_dir: Field  # key = the quantizer's output-dir override; value unused
    infer_model: Field  # '|' list of inference models to quantize
    infer_export: Field  # '|' list paired with infer_model: the quantizer script, or null
    infer_quant: Field  # parsed; the script treats every model as quantized (see tipc.dialects.paddleocr.plan.ptq)
    inference: Field
    infer_use_gpu: Field
    enable_mkldnn: Field
    cpu_threads: Field
    batch_size: Field
    use_tensorrt: Field
    precision: Field
    model_dir: Field  # key only: the predictor's model-dir flag
    image_dir: Field
    save_log: Field
    benchmark: Field
    infer_param1: Field
    extra: Field
    notes: tuple[str, ...] = ()


def is_ptq(doc: _Document) -> bool:
    """Is the scanned text this format rather than the train format?"""
    first = doc.sections[0]
    if first.name == PTQ_SECTION:
        return True
    lone = len(doc.sections) == 1
    return first.name == TRAIN_SECTION and lone and any(entry.key == _MARK for entry in first.entries)


def ptq_config(doc: _Document) -> PtqConfig:
    """Read a document ``is_ptq`` accepted; every problem is a ``ConfigError`` naming its line."""
    section, notes = doc.sections[0], []
    if len(doc.sections) > 1:
        after = doc.sections[1]
        message = f"expected only the '{PTQ_SECTION}' section, found section header '{excerpt(after.name)}'"
        raise ConfigError(doc.path, after.line, message)
    if section.name != PTQ_SECTION:
        notes.append(
            f"line {section.line}: header '{section.name}' read as '{PTQ_SECTION}' (a lone section with an "
            f"'{_MARK}' line is a KL quantization config; the bash never reads the header)"
        )
    fields = _read(doc, section, _SLOTS, notes)
    notes.extend(role_warnings((KeyRole(s.role, s.kind, s.hint) for s in _SLOTS if s.kind), fields))
    for role in _NON_EMPTY_ROLES:
        field = fields[role]
        if not field.value:
            message = f"expected a value for '{excerpt(field.key)}' (role {role}), found an empty value"
            raise ConfigError(doc.path, field.line, message)
    return PtqConfig(path=doc.path, header_line=section.line, **fields, notes=tuple(notes))
