"""The status matrix: one row per chain (× node on multi-node runs), one column per stage name.

A cell whose record an earlier run made (carried over by a ``-k``/``--lf`` run) says so in
the cell itself: its status is not this run's news.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tipc.history.store import StageKey
from tipc.report.load import RunIds, carried_note
from tipc.report.model import Cell, Column, Matrix, MatrixRow
from tipc.report.naming import KIND_ORDER, RowKey, infer_label, node_label, row_key, stage_key, stage_name
from tipc.report.spill import Lazy, Scratch, Spill, flat
from tipc.report.states import state_text
from tipc.results.records import StageRecord, Status

_SHORT = {
    Status.PASSED: "passed",
    Status.FAILED: "FAILED",
    Status.TIMEOUT: "TIMEOUT",
    Status.HUNG: "HUNG",
    Status.BLOCKED: "blocked",
    Status.SKIPPED: "skipped",
    Status.NO_GOLDEN: "no golden",
    Status.DIFFERS: "differs",
    Status.INFRA: "INFRA",
}
# Cells that were not run, or not judged, say why right in the cell, not only on hover.
_EXPLAINED = (Status.BLOCKED, Status.SKIPPED, Status.NO_GOLDEN, Status.DIFFERS)
NOTE_CHARS = 48
# A record is missing both when the plan has no such stage and when a -k/-m selection left it out.
ABSENT_WHY = "not run: this chain has no such stage, or the run's selection left it out"


def columns(records: Iterable[StageRecord]) -> tuple[Column, ...]:
    return _columns(dict.fromkeys(stage_name(r) for r in records))


def _columns(names: Iterable[str]) -> tuple[Column, ...]:
    names = list(names)
    fixed = [n for n in KIND_ORDER if n in names]
    rest = [n for n in names if n not in KIND_ORDER]
    out = []
    for name in fixed + rest:
        label = infer_label(name)
        parts = tuple(label.split("-")) if label else (name,)
        out.append(Column(key=name, parts=parts, title=label or name))
    return tuple(out)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1] + "…"


def cell(record: StageRecord | None, anchor: str, carried: str = "") -> Cell:
    """``carried``: what says the record is an earlier run's, "" for this run's."""
    if record is None:
        return Cell(status="none", text="—", note="", title=ABSENT_WHY, anchor="")
    status = record.status
    title = f"{record.id}: {status.value}"
    if record.reason:
        title += f" — {record.reason}"
    elif record.returncode not in (None, 0):
        title += f" — exit code {record.returncode}"
    note = _short(record.reason) if status in _EXPLAINED else ""
    text = _SHORT[status]
    if status not in _EXPLAINED and record.duration:
        note = f"{record.duration:.1f} s"
    if record.flaky:  # passed when a rerun plugin ran it again: said in the cell, not hidden in a pass
        note, title = record.flaky_note, f"{title} — {record.flaky_note}"
    if carried:
        note, title = carried, f"{title} ({carried})"
    elif record.state:
        title = f"{title} · {state_text(record)}"
    state = "" if carried else record.state  # a carried record's state was an earlier night's
    return Cell(status=status.value, text=text, note=note, title=title, anchor=anchor, carried=carried, state=state)


def _cell(record: StageRecord, stage_anchors: Mapping[StageKey, str], run_ids: RunIds) -> Cell:
    return cell(record, stage_anchors.get(stage_key(record), ""), carried_note(record, run_ids))


def ordered_row_keys(records: Iterable[StageRecord]) -> tuple[RowKey, ...]:
    """Chains in run order, a chain's nodes next to each other."""
    chains: dict[str, int] = {}
    keys: dict[RowKey, None] = {}
    for r in records:
        chains.setdefault(r.chain, len(chains))
        keys[row_key(r)] = None
    return _in_run_order(keys, chains)


def _in_run_order(keys: Iterable[RowKey], chains: Mapping[str, int]) -> tuple[RowKey, ...]:
    return tuple(sorted(keys, key=lambda k: (chains[k[0]], k[1])))


def build_matrix(
    records: Iterable[StageRecord],
    stage_anchors: Mapping[StageKey, str],
    row_anchors: Mapping[RowKey, str],
    multi: bool,
    run_ids: RunIds | None = None,
    sizes: Mapping[RowKey, int] | None = None,
    scratch: Scratch | None = None,
) -> Matrix:
    """One reading of ``records``: each becomes its cell as it is read, none is kept. With ``scratch``,
    a row is put there as soon as its last cell (of ``sizes[key]``) is read, and the matrix reads it
    back when shown: only the rows still being read are held."""
    names: dict[str, None] = {}
    chains: dict[str, int] = {}
    reading: dict[RowKey, _Row] = {}
    counts: dict[RowKey, int] = {}
    done = Spill[_Row](scratch, _pack, _unpack)
    at: dict[RowKey, int] = {}  # each row's place in ``done``
    for r in records:
        key, name = row_key(r), stage_name(r)
        names[name] = None
        chains.setdefault(r.chain, len(chains))
        reading.setdefault(key, (key, r.host, {}))[2][name] = _cell(r, stage_anchors, run_ids or {})
        counts[key] = counts.get(key, 0) + 1
        if sizes is not None and counts[key] == sizes.get(key):
            at[key] = len(done)
            done.append(reading.pop(key))
    for key, row in reading.items():
        at[key] = len(done)
        done.append(row)
    order = tuple(at[key] for key in _in_run_order(at, chains))
    rows = _Rows(done.held(), order, _columns(names), multi, row_anchors)
    return Matrix(columns=rows.columns, rows=rows if scratch is not None else tuple(rows), show_node=multi)


# A row as it is read: its key, its host, and its cells by stage name.
_Row = tuple[RowKey, str, dict[str, Cell]]
_ABSENT = cell(None, "")
_PACK_CELL, _UNPACK_CELL = flat(Cell)


def _pack(row: _Row) -> object:
    key, host, by_name = row
    return key, host, tuple((name, _PACK_CELL(c)) for name, c in by_name.items())


def _unpack(packed: tuple[RowKey, str, tuple[tuple[str, tuple[str, ...]], ...]]) -> _Row:
    key, host, cells = packed
    return key, host, {name: _UNPACK_CELL(c) for name, c in cells}


class _Rows(Lazy[MatrixRow]):
    """The matrix's rows in run order, each made from its cells when asked for."""

    def __init__(
        self, done: Sequence[_Row], order: tuple[int, ...], cols: tuple[Column, ...], multi: bool,
        anchors: Mapping[RowKey, str],
    ) -> None:  # fmt: skip
        self.done, self.order, self.columns, self.multi, self.anchors = done, order, cols, multi, anchors

    def __len__(self) -> int:
        return len(self.order)

    def item(self, k: int) -> MatrixRow:
        key, host, by_name = self.done[self.order[k]]
        return MatrixRow(
            label=key[0],
            node=node_label(key[1], host) if self.multi else "",
            anchor=self.anchors[key],
            cells=tuple(by_name.get(c.key, _ABSENT) for c in self.columns),
        )
