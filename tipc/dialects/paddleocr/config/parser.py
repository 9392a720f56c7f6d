"""Config text → ``TipcConfig``.

Real TIPC configs are positional: the bash reads line N as role N and never
looks at keys, so one missing line silently shifts every later role (bug B7).
tipc reads them by key where the key is fixed (``trainer``, ``norm_export``,
``inference`` ...) and by position between those anchors where the key is free
text (``Global.use_gpu``, ``--cpu_threads``, ``null`` ...).

Blank lines, ``##`` placeholders and section headers occupy no role; line
numbers stay physical. Rules for missing and extra lines:

* A fixed-key line that is *optional* (``pact_train``, ``fpgm_train``,
  ``distill_train``, ``quant_export`` ... ``export2``, ``inference_dir``) may be
  absent. It is absent when the line in its place carries a later fixed key,
  when the section ends there, or when the lines up to the next anchor are no
  more than the free-key lines that follow it. It reads as
  ``Field(key, "null", 0)`` and adds a note to ``TipcConfig.notes``.
* A few fixed slots also take the other keys real configs write there
  (``quant_train`` on the ``pact_train`` line ..., see ``variants``), with a note.
* A ``##`` in place of ``inference_dir`` means an empty value, as in the bash.
* The two free-key trainer slots at the end of ``train_params`` (to_static slot,
  custom trainer slot) are optional too: with one line left, it fills the
  to_static slot only when its key is ``to_static_train``, else the custom slot.
* Every other line is required. A required free-key run between two anchors
  must have exactly its number of lines; a fixed-key line must carry its key.
  Any mismatch, extra line or truncation is a ``ConfigError`` naming the line,
  what was expected and what was found.
* A free-key line that holds a key of the wrong kind for its role (a ``--flag``
  where a trainer override goes, or the reverse) or another role's usual key
  is read all the same, with a warning among the notes (see ``roles``).

Reading is bounded (see ``bounds``): only regular files up to a size limit,
no line over ``MAX_LINE_CHARS``, and messages quote excerpts, not whole lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tipc.config.bounds import binary_content, check_line, config_text, excerpt
from tipc.config.model import NULL, Field, TipcConfig, TrainBenchmark
from tipc.dialects.paddleocr.config.roles import KeyKind, KeyRole, role_warnings
from tipc.dialects.paddleocr.config.values import mode_items
from tipc.dialects.paddleocr.config.variants import unread_item_notes, variant_note, variants_of
from tipc.errors import ConfigError

_HEADER = re.compile(r"^=+\s*([^=\s]+)\s*=+$")
_PLACEHOLDER = "##"
_REQUIRED_SECTIONS = ("train_params", "eval_params", "infer_params")
_IGNORED_SECTION = "disable_to_static_train_benchmark"  # one real config; nothing reads it
_TRAILING_SECTIONS = (
    "infer_benchmark_params",
    "train_benchmark_params",
    "to_static_train_benchmark_params",
    _IGNORED_SECTION,
)
_NON_EMPTY_ROLES = ("model_name", "python", "gpu_list", "trainer")
_MODE_ROLES = ("epoch", "train_batch")


@dataclass(frozen=True, slots=True)
class _Slot:
    """One role of a section: found by ``key`` when it is fixed, else by position."""

    role: str
    key: str | None = None  # None: free key, the line is found by position
    required: bool = True
    hint: str = ""  # typical key of a free-key line, for messages
    prefer_key: str | None = None  # optional free slot: takes a lone leftover line only with this key
    placeholder_empty: bool = False  # a '##' in its place means an empty value
    kind: KeyKind | None = None  # free key that should be a trainer override or a predictor flag
    variants: tuple[str, ...] = ()  # other keys real configs write in this fixed slot (see ``variants``)


def _fixed(key: str, required: bool = True, placeholder_empty: bool = False) -> _Slot:
    return _Slot(key, key, required, placeholder_empty=placeholder_empty, variants=variants_of(key))


def _free(role: str, hint: str, required: bool = True, prefer_key: str | None = None) -> _Slot:
    return _Slot(role, None, required, hint, prefer_key)


def _override(role: str, hint: str) -> _Slot:
    return _Slot(role, None, hint=hint, kind=KeyKind.OVERRIDE)


def _flag(role: str, hint: str) -> _Slot:
    return _Slot(role, None, hint=hint, kind=KeyKind.FLAG)


_TRAIN = (
    _fixed("model_name"), _fixed("python"), _fixed("gpu_list"),
    _override("train_use_gpu", "Global.use_gpu"), _override("autocast", "Global.auto_cast"),
    _override("epoch", "Global.epoch_num"), _override("save_model_dir", "Global.save_model_dir"),
    _override("train_batch", "Train.loader.batch_size_per_card"),
    _override("pretrained_model", "Global.pretrained_model"),
    _fixed("train_model_name"), _fixed("train_infer_img_dir"),
    _free("train_param1", "null"),
    _fixed("trainer"), _fixed("norm_train"),
    _fixed("pact_train", False), _fixed("fpgm_train", False), _fixed("distill_train", False),
    _free("to_static_slot", "to_static_train", False, prefer_key="to_static_train"),
    _free("custom_train", "null", False),
)  # fmt: skip
_EVAL = (_fixed("eval"), _free("eval_param1", "null"))
_INFER = (
    _override("save_inference_dir", "Global.save_inference_dir"), _override("checkpoints", "Global.checkpoints"),
    _fixed("norm_export"), _fixed("quant_export", False), _fixed("fpgm_export", False),
    _fixed("distill_export", False), _fixed("export1", False), _fixed("export2", False),
    _fixed("inference_dir", False, placeholder_empty=True),
    _free("infer_model", "infer_model"), _fixed("infer_export"), _fixed("infer_quant"),
    _fixed("inference"),
    _flag("infer_use_gpu", "--use_gpu"), _flag("enable_mkldnn", "--enable_mkldnn"),
    _flag("cpu_threads", "--cpu_threads"), _flag("batch_size", "--rec_batch_num"),
    _flag("use_tensorrt", "--use_tensorrt"), _flag("precision", "--precision"),
    _flag("model_dir", "--rec_model_dir"), _flag("image_dir", "--image_dir"),
    _flag("save_log", "--save_log_path"), _flag("benchmark", "--benchmark"),
    _free("infer_param1", "null"),
)  # fmt: skip
_TRAIN_BENCHMARK = (
    _fixed("batch_size"), _fixed("fp_items"), _fixed("epoch"),
    _free("profiler_options", "--profiler_options"), _fixed("flags"),
)  # fmt: skip
_TO_STATIC = (_free("to_static", "to_static_train"),)


@dataclass(frozen=True, slots=True)
class _Entry:
    key: str
    value: str
    line: int
    raw: str
    placeholder_before: int  # line of a '##' between the previous entry and this one; 0 if none


@dataclass(frozen=True, slots=True)
class _Section:
    name: str
    line: int
    entries: tuple[_Entry, ...]


@dataclass(frozen=True, slots=True)
class _Document:
    path: str
    sections: tuple[_Section, ...]
    last_line: int  # last non-blank physical line
    last_text: str  # how to name it in a "truncated" message


def load_config(path: str | Path) -> TipcConfig:
    """Read and parse one config file; every problem is a ``ConfigError``."""
    shown = str(path)
    return parse_config_text(config_text(shown), shown)


def parse_config_text(text: str, path: str) -> TipcConfig:
    """Parse config text; ``path`` is only used in error messages and ``TipcConfig.path``."""
    doc = _scan(text, path)
    sections = _order_sections(doc)
    fields: dict[str, Field] = {}
    notes: list[str] = []
    for name, slots in zip(_REQUIRED_SECTIONS, (_TRAIN, _EVAL, _INFER), strict=False):
        if name not in sections:  # the order check guarantees the file ended before it
            raise _truncated(doc, f"section header '{name}'")
        fields.update(_read(doc, sections[name], slots, notes))
        notes.extend(role_warnings((KeyRole(s.role, s.kind, s.hint) for s in slots if s.kind), fields))
    bench = sections.get("train_benchmark_params")
    train_benchmark = TrainBenchmark(**_read(doc, bench, _TRAIN_BENCHMARK, notes)) if bench else None
    static = sections.get("to_static_train_benchmark_params")
    to_static = _read(doc, static, _TO_STATIC, notes)["to_static"] if static else None
    if _IGNORED_SECTION in sections:
        notes.append(f"section '{_IGNORED_SECTION}' (line {sections[_IGNORED_SECTION].line}) is not read")
    infer_benchmark = sections.get("infer_benchmark_params")
    _check_values(fields, path)
    notes.extend(note for role in _MODE_ROLES for note in unread_item_notes(fields[role], path))
    return TipcConfig(
        path=path,
        **fields,
        infer_benchmark=tuple(_field(e) for e in infer_benchmark.entries) if infer_benchmark else (),
        train_benchmark=train_benchmark,
        to_static=to_static,
        notes=tuple(notes),
    )


def first_section(text: str) -> str:
    """The name of the section header the text starts with, "" when its first line that is not blank is none:
    a format is told apart by its first header, without scanning every line of a file of another format."""
    for raw in text.removeprefix("\ufeff").split("\n"):
        if raw.strip():
            header = _HEADER.match(raw.strip())
            return header.group(1) if header else ""
    return ""


def _scan(text: str, path: str) -> _Document:
    """Split the text into sections of ``key:value`` entries, keeping physical line numbers."""
    nul = text.find("\x00")
    if nul >= 0:
        raise binary_content(path, text.count("\n", 0, nul) + 1)
    sections: list[_Section] = []
    entries: list[_Entry] = []
    name, header_line = "", 0
    placeholder, last_line, last_text = 0, 0, ""
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        check_line(path, number, raw)
        line = raw.strip()
        if not line:
            continue
        header = _HEADER.match(line)
        if header is None and not name:
            found = line if line == _PLACEHOLDER or ":" not in line else line.split(":", 1)[0].strip()
            raise ConfigError(path, number, f"expected section header 'train_params', found '{excerpt(found)}'")
        last_line = number
        if header is not None:
            if name:
                sections.append(_Section(name, header_line, tuple(entries)))
            name, header_line, entries, placeholder = header.group(1), number, [], 0
            last_text = f"section header '{excerpt(name)}'"
        elif line == _PLACEHOLDER:
            placeholder, last_text = number, "'##'"
        elif name != _IGNORED_SECTION:
            key, colon, value = line.partition(":")
            if not colon:
                raise ConfigError(path, number, f"expected 'key:value', found '{excerpt(line)}' (no colon)")
            if not key.strip():
                raise ConfigError(path, number, f"expected 'key:value', found '{excerpt(line)}' (empty key)")
            entries.append(_Entry(key.strip(), value.strip(), number, raw.rstrip("\r").partition(":")[2], placeholder))
            placeholder, last_text = 0, f"'{excerpt(key.strip())}'"
    if not name:
        raise ConfigError(path, 0, "empty file: expected a TIPC config starting with the 'train_params' header")
    sections.append(_Section(name, header_line, tuple(entries)))
    return _Document(path, tuple(sections), last_line, last_text)


def _order_sections(doc: _Document) -> dict[str, _Section]:
    """Check the required sections come first, in order, and every section is known and unique.

    Required sections after the end of the file are left to the caller, which
    reports the truncation only once the sections before them were read.
    """
    found: dict[str, _Section] = {}
    for index, section in enumerate(doc.sections):
        name = excerpt(section.name)
        if section.name in found:
            first = found[section.name].line
            raise ConfigError(doc.path, section.line, f"section '{name}' appears twice (first at line {first})")
        if index < len(_REQUIRED_SECTIONS) and section.name != _REQUIRED_SECTIONS[index]:
            expected = _REQUIRED_SECTIONS[index]
            raise ConfigError(doc.path, section.line, f"expected section header '{expected}', found '{name}'")
        if index >= len(_REQUIRED_SECTIONS) and section.name not in _TRAILING_SECTIONS:
            expected = ", ".join(_TRAILING_SECTIONS)
            raise ConfigError(doc.path, section.line, f"unknown section '{name}': expected one of {expected}")
        found[section.name] = section
    return found


def _read(doc: _Document, section: _Section, slots: tuple[_Slot, ...], notes: list[str]) -> dict[str, Field]:
    reader = _SectionReader(doc, section, slots)
    reader.read()
    notes.extend(reader.notes)
    return reader.fields


def _check_values(fields: dict[str, Field], path: str) -> None:
    for role in _NON_EMPTY_ROLES:
        field = fields[role]
        if not field.value:
            message = f"expected a value for '{excerpt(field.key)}' (role {role}), found an empty value"
            raise ConfigError(path, field.line, message)
    for role in _MODE_ROLES:
        mode_items(fields[role], path)


def _field(entry: _Entry) -> Field:
    return Field(entry.key, entry.value, entry.line, entry.raw)


def _describe(slot: _Slot) -> str:
    if slot.key is not None:
        return f"key '{slot.key}' (role {slot.role})"
    return f"a line for role {slot.role} (free key, e.g. '{slot.hint}')"


def _truncated(doc: _Document, expected: str) -> ConfigError:
    where = f"it ends at line {doc.last_line} ({doc.last_text})"
    return ConfigError(doc.path, doc.last_line, f"truncated config: {where}; expected {expected} next")


class _SectionReader:
    """Matches one section's entries against its slots (the module docstring has the rules)."""

    def __init__(self, doc: _Document, section: _Section, slots: tuple[_Slot, ...]) -> None:
        self.doc, self.section, self.slots = doc, section, slots
        self.entries = section.entries
        self.following = next((s for s in doc.sections if s.line > section.line), None)
        self.fields: dict[str, Field] = {}
        self.notes: list[str] = []
        self.index = 0  # next entry to read
        self.last_slot = -1  # slot that took the latest entry

    def read(self) -> None:
        position = 0
        while position < len(self.slots):
            if self.slots[position].key is None:
                position = self._read_free_run(position)
            else:
                self._read_fixed(position)
                position += 1
        extra = self._peek()
        if extra is not None:
            after = _describe(self.slots[-1])
            message = f"expected the end of section '{self.section.name}' after {after}, found '{excerpt(extra.key)}'"
            raise ConfigError(self.doc.path, extra.line, message)

    def _read_fixed(self, position: int) -> None:
        slot, entry = self.slots[position], self._peek()
        if entry is not None and entry.key == slot.key:
            self._take(position, entry)
        elif entry is not None and entry.key in slot.variants:
            self._take(position, entry)
            self.notes.append(variant_note(self.section.name, entry.line, entry.key, slot.role))
        elif slot.placeholder_empty and entry is not None and entry.placeholder_before:
            self.fields[slot.role] = Field(slot.key or "", "", entry.placeholder_before)
        elif not slot.required and self._absent(position):
            self._missing(slot)
        else:
            raise self._mismatch(slot, entry)

    def _read_free_run(self, start: int) -> int:
        end = self._run_end(start)
        run = self.slots[start:end]
        available = self.entries[self.index : self.index + self._count_until_anchor(end)]
        required = [slot for slot in run if slot.required]
        if len(available) < len(required):
            for offset, entry in enumerate(available):
                self._take(start + offset, entry)
            raise self._mismatch(run[len(available)], self._peek())
        lines = list(available[: len(run)])
        for offset, slot in enumerate(run):
            optional_left = sum(1 for later in run[offset:] if not later.required)
            fits = slot.required or len(lines) >= optional_left
            if lines and (fits or slot.prefer_key in (None, lines[0].key)):
                self._take(start + offset, lines.pop(0))
            else:
                self._missing(slot)
        return end

    def _absent(self, position: int) -> bool:
        """May the optional fixed slot at ``position`` be missing, given the current entry?"""
        entry = self._peek()
        if entry is None or entry.key in self._fixed_keys(position + 1):
            return True
        # The entry has an unknown key: it can only be a free-key line that follows
        # this chain of optional lines, and only if the count of such lines fits.
        free = position
        while free < len(self.slots) and self.slots[free].key is not None and not self.slots[free].required:
            free += 1
        if free == len(self.slots) or self.slots[free].key is not None:
            return False
        end = self._run_end(free)
        return self._count_until_anchor(end) <= end - free

    def _run_end(self, start: int) -> int:
        end = start
        while end < len(self.slots) and self.slots[end].key is None:
            end += 1
        return end

    def _fixed_keys(self, start: int) -> set[str]:
        return {key for slot in self.slots[start:] if slot.key is not None for key in (slot.key, *slot.variants)}

    def _count_until_anchor(self, anchor_position: int) -> int:
        anchors = self._fixed_keys(anchor_position)
        count = 0
        for entry in self.entries[self.index :]:
            if entry.key in anchors:
                break
            count += 1
        return count

    def _peek(self) -> _Entry | None:
        return self.entries[self.index] if self.index < len(self.entries) else None

    def _take(self, position: int, entry: _Entry) -> None:
        self.fields[self.slots[position].role] = _field(entry)
        self.index += 1
        self.last_slot = position

    def _missing(self, slot: _Slot) -> None:
        after = self.entries[self.index - 1].line if self.index else self.section.line
        self.fields[slot.role] = Field(slot.key or NULL, NULL, 0)
        self.notes.append(f"{self.section.name}: missing {_describe(slot)} after line {after}; read as null")

    def _mismatch(self, slot: _Slot, entry: _Entry | None) -> ConfigError:
        if entry is not None:
            return ConfigError(self.doc.path, entry.line, f"expected {_describe(slot)}, found '{excerpt(entry.key)}'")
        if self.following is None:
            return _truncated(self.doc, _describe(self.slots[self.last_slot + 1]))
        return ConfigError(
            self.doc.path,
            self.following.line,
            f"expected {_describe(slot)}, found section header '{excerpt(self.following.name)}'",
        )
