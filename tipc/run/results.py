"""The results directory: ``results_python.log``, ``results.jsonl`` and ``run.json``.

Several processes may write one directory at once (pytest-xdist workers run
different chains of the same plan), so every append is one ``write`` on an
``O_APPEND`` descriptor: lines never interleave, and each is on disk as soon
as its stage ends, whatever happens to the run afterwards.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from tipc.plan.model import Stage
from tipc.run.record import RunInfo, StageRecord, read_records

LEGACY_LOG = "results_python.log"
RECORDS = "results.jsonl"
RUN_INFO = "run.json"
PASSED_STAMPS = ".tipc_passed"  # one file per stage that passed, holding what it ran


def stage_digest(stage: Stage) -> str:
    """What a stage runs, as one hash: equal digests mean its outputs came from the same plan."""
    what = {"argv": list(stage.argv), "env": dict(sorted(stage.env.items())), "cwd": stage.cwd}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


def _append(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


class ResultsDir:
    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def legacy_log(self) -> Path:
        return self.path / LEGACY_LOG

    @property
    def records_file(self) -> Path:
        return self.path / RECORDS

    @property
    def run_info_file(self) -> Path:
        return self.path / RUN_INFO

    def begin(self, info: RunInfo) -> None:
        """Start a run: ``run.json`` written, ``results.jsonl`` emptied.

        ``results_python.log`` is left to grow, as the bash's does: old CI jobs
        read it that way. ``results.jsonl`` describes this run only.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        self.records_file.write_text("")
        # Present even when no stage runs (a failed preflight): merge and old CI expect it.
        self.legacy_log.touch()
        self.write_run_info(info)

    def write_run_info(self, info: RunInfo) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.run_info_file.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(info.to_json() + "\n")
        tmp.replace(self.run_info_file)

    def read_run_info(self) -> RunInfo | None:
        try:
            return RunInfo.from_dict(json.loads(self.run_info_file.read_text()))
        except FileNotFoundError:
            return None

    def append_record(self, record: StageRecord) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        _append(self.records_file, record.to_json() + "\n")

    def append_legacy(self, line: str) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        _append(self.legacy_log, line)

    def _stamp(self, stage: Stage) -> Path:
        return self.path / PASSED_STAMPS / hashlib.sha1(stage.id.encode()).hexdigest()

    def stamp_passed(self, stage: Stage) -> None:
        """Remember that ``stage`` passed with these argv: a later run that deselects it may then
        use its outputs (one file per stage, so xdist workers never write the same file)."""
        path = self._stamp(stage)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(stage_digest(stage))

    def passed_before(self, stage: Stage) -> bool:
        """True when an earlier run passed ``stage`` exactly as this plan would run it."""
        try:
            return self._stamp(stage).read_text() == stage_digest(stage)
        except FileNotFoundError:
            return False

    def records(self) -> list[StageRecord]:
        try:
            with open(self.records_file) as f:
                return list(read_records(f))
        except FileNotFoundError:
            return []
