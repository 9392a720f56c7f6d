"""The guards every dialect gets, run over every registered dialect (``registry.dialects()``: one added later is
covered without a change here): malformed and long ``gpu_list`` entries, the stage limit, a ``|`` storm on every
line, traversal and absolute names in every field that becomes a path, and a deeply nested yml for ``tipc prepare``.

Each dialect's config is a real one of its suite (the snapshots beside the repository, else the repository's own
``test_configs``), copied into a scratch checkout and changed there; a dialect with neither is skipped, naming why.
A guard holds when the plan is made with every path inside the output root, or the config is refused with a
``ConfigError`` that names the file and the line at fault, in bounded time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.support.suite_bash import suites_root
from tipc.config.bounds import MAX_STAGES, excerpt
from tipc.config.modes import Mode
from tipc.errors import ConfigError
from tipc.plan.model import Plan, PlanOptions, StageKind
from tipc.suites.dialect import Dialect
from tipc.suites.layout import Role
from tipc.suites.registry import dialects

REPO = Path(__file__).resolve().parents[2]
SNAPSHOTS = suites_root(REPO)
TRAIN_MODES = (Mode.LITE_TRAIN_LITE_INFER, Mode.LITE_TRAIN_WHOLE_INFER, Mode.WHOLE_TRAIN_WHOLE_INFER)
STORM = "|x" * 20_000
SECONDS = 10.0  # a guard answers in bounded time: planning a real config takes milliseconds
YML_OPTION = ("-c", "--config")
DEEP = 5_000
NAME_MAX = 255  # bytes of one file name


@dataclass(frozen=True, slots=True)
class Sample:
    """A dialect's real config (``text``, from ``source``) and the train mode it plans in."""

    source: Path
    text: str
    mode: Mode


def _sources(dialect: Dialect) -> tuple[Path, ...]:
    snapshot = dialect.configs(SNAPSHOTS / dialect.name) if SNAPSHOTS is not None else ()
    return (*snapshot, *dialect.configs(REPO / "test_configs"))


@cache
def sample(name: str, modes: tuple[Mode, ...] = TRAIN_MODES) -> Sample | None:
    """The first config of the dialect that plans a train stage reading a yml (``-c``) in one of ``modes``."""
    dialect = next(d for d in dialects() if d.name == name)
    for source in _sources(dialect):
        try:
            config = dialect.load(str(source))
            mode = next((m for m in dialect.modes(config) if m in modes), None)
            plan = None if mode is None else dialect.build(config, PlanOptions(mode, python="py"), _no_check)
        except ConfigError:
            continue
        if mode is not None and plan is not None and any(_train_yml(s.argv) for s in plan.stages()):
            return Sample(source, source.read_text(encoding="utf-8"), mode)
    return None


def _no_check(name: str) -> str:
    return ""


def _train_yml(argv: tuple[str, ...]) -> str | None:
    return next((argv[i + 1] for i in range(len(argv) - 1) if argv[i] in YML_OPTION), None)


@dataclass(frozen=True, slots=True)
class Checkout:
    """A scratch checkout of the dialect holding one config."""

    dialect: Dialect
    root: Path
    config: Path
    mode: Mode

    @property
    def out(self) -> Path:
        return self.root / "out"

    def write(self, text: str) -> None:
        self.config.write_text(text, encoding="utf-8")

    def plan(self, device: str = "gpu") -> Plan:
        options = PlanOptions(
            self.mode,
            repo=str(self.root),
            python="py",
            output_root=str(self.out),
            device=device,  # type: ignore[arg-type]
        )
        return self.dialect.build(self.dialect.load(str(self.config)), options, _no_check)


@pytest.fixture(params=dialects(), ids=lambda d: d.name)
def checkout(request: pytest.FixtureRequest, tmp_path: Path) -> Checkout:
    return scratch(request.param, tmp_path, TRAIN_MODES)


@pytest.fixture(params=dialects(), ids=lambda d: d.name)
def bench_checkout(request: pytest.FixtureRequest, tmp_path: Path) -> Checkout:
    return scratch(request.param, tmp_path, (Mode.BENCHMARK_TRAIN,))


def scratch(dialect: Dialect, tmp_path: Path, modes: tuple[Mode, ...]) -> Checkout:
    found = sample(dialect.name, modes)
    if found is None:
        pytest.skip(
            f"no {dialect.name} config that plans a train stage in {', '.join(modes)}: no snapshot of the suite "
            "beside the repository, or none of its configs runs in that mode"
        )
    root = tmp_path / "checkout"  # a marker may lie beside the checkout (PaddleSpeech's ../paddlespeech): in tmp_path
    for marker in dialect.markers:
        (root / marker).mkdir(parents=True, exist_ok=True)
    config = root / "test_tipc" / "configs" / found.source.name
    config.parent.mkdir(parents=True)
    config.write_text(found.text, encoding="utf-8")
    return Checkout(dialect, root, config, found.mode)


def with_entry(text: str, role: int, value: str) -> str:
    """The config with entry ``role`` (the bash's numbering: non-empty lines) given ``value``, its key kept."""
    lines = text.split("\n")
    kept = [i for i, line in enumerate(lines) if line]
    index = kept[role]
    key = lines[index].split(":", 1)[0].rstrip("\r")
    lines[index] = f"{key}:{value}"
    return "\n".join(lines)


def line_of(text: str, role: int) -> int:
    return [n for n, line in enumerate(text.split("\n"), start=1) if line][role]


def outcome(checkout: Checkout, device: str = "gpu") -> Plan | ConfigError:
    started = time.monotonic()
    try:
        return checkout.plan(device)
    except ConfigError as exc:
        return exc
    finally:
        assert time.monotonic() - started < SECONDS, f"{checkout.dialect.name}: planning took too long"


def refused_at(found: Plan | ConfigError, checkout: Checkout, line: int) -> bool:
    return isinstance(found, ConfigError) and found.path == str(checkout.config) and found.line == line


def contained(plan: Plan, out: Path) -> None:
    """Every path of the plan under the output root stays there: the output folder, save folders, logs, the
    outputs tipc expects, and each argument that names a folder there."""
    root = os.path.normpath(out)
    paths = [plan.output_dir, *(c.save_dir for c in plan.chains if c.save_dir)]
    for stage in plan.stages():
        paths += [stage.log, *stage.outputs, *(t.split("=", 1)[-1] for t in stage.argv if root in t)]
    for path in paths:
        shown = excerpt(path, 300)
        assert os.path.normpath(path).startswith(root + os.sep), shown
        assert ".." not in Path(path).relative_to(root).parts, shown
        assert all(len(part.encode()) <= NAME_MAX for part in Path(path).parts), shown


# --- gpu_list ---------------------------------------------------------------------------------------------------

MALFORMED_ENTRIES = ("0,1,2,3,4,5,6,7,8", "192.168.0.1,192.168.0.2", ";0,1", "a;b;c", "x", "10.0.0.1,10.0.0.2;0,x")


@pytest.mark.parametrize("entry", MALFORMED_ENTRIES)
def test_a_malformed_gpu_entry_is_refused_at_its_line(checkout: Checkout, entry: str) -> None:
    text = with_entry(checkout.config.read_text(), Role.GPU_LIST, entry)
    checkout.write(text)
    found = outcome(checkout)
    if isinstance(found, Plan):  # a reader by structure (PaddleOCR's) plans any number of ids
        assert entry == MALFORMED_ENTRIES[0] and found.chains
        return
    assert refused_at(found, checkout, line_of(text, Role.GPU_LIST)), found
    assert "expected" in found.message


def test_a_multi_node_gpu_entry_plans_a_launch_over_both_nodes(checkout: Checkout) -> None:
    text = with_entry(checkout.config.read_text(), Role.GPU_LIST, "10.0.0.1,10.0.0.2;0,1")
    checkout.write(text)
    plan = checkout.plan()
    trains = [s for s in plan.stages() if s.kind is StageKind.TRAIN]
    assert trains and all(any("10.0.0.1,10.0.0.2" in t for t in s.argv) for s in trains)


# --- the stage limit and the '|' storm ---------------------------------------------------------------------------


def test_lists_that_multiply_past_the_stage_limit_are_refused_before_planning(checkout: Checkout) -> None:
    entries = "|".join(str(n) for n in range(MAX_STAGES // 3))
    text = with_entry(checkout.config.read_text(), Role.GPU_LIST, entries)
    checkout.write(text)
    found = outcome(checkout)
    assert refused_at(found, checkout, line_of(text, Role.GPU_LIST)), found
    assert str(MAX_STAGES) in found.message


def test_a_storm_of_bars_on_any_line_is_planned_or_refused_quickly(checkout: Checkout) -> None:
    original = checkout.config.read_text()
    entries = sum(1 for line in original.split("\n") if line)
    for role in range(1, entries):
        text = with_entry(original, role, original.split("\n")[_physical(original, role)].split(":", 1)[-1] + STORM)
        checkout.write(text)
        found = outcome(checkout, device="cpu")
        if isinstance(found, ConfigError):
            assert found.path == str(checkout.config) and found.line > 0, (role, excerpt(str(found), 300))
        else:
            assert len(list(found.stages())) <= MAX_STAGES, role
            contained(found, checkout.out)


def test_a_storm_of_bars_in_the_benchmark_section_is_planned_or_refused_quickly(bench_checkout: Checkout) -> None:
    original = bench_checkout.config.read_text()
    physical = original.split("\n")
    header = next(i for i, line in enumerate(physical) if "train_benchmark_params" in line)
    for index in range(header + 1, len(physical)):
        if ":" not in physical[index] or physical[index].startswith("="):
            continue
        stormed = [*physical[:index], physical[index] + STORM, *physical[index + 1 :]]
        bench_checkout.write("\n".join(stormed))
        found = outcome(bench_checkout, device="cpu")
        if isinstance(found, ConfigError):
            assert found.path == str(bench_checkout.config) and found.line > 0, excerpt(str(found), 300)
        else:
            assert len(list(found.stages())) <= MAX_STAGES, index


def test_a_benchmark_batch_size_that_is_no_number_is_refused_at_its_line(bench_checkout: Checkout) -> None:
    physical = bench_checkout.config.read_text().split("\n")
    header = next(i for i, line in enumerate(physical) if "train_benchmark_params" in line)
    index = next(i for i in range(header, len(physical)) if physical[i].startswith("batch_size:"))
    physical[index] = "batch_size:8|x"
    bench_checkout.write("\n".join(physical))
    found = outcome(bench_checkout, device="cpu")
    assert isinstance(found, ConfigError) and (found.path, found.line) == (str(bench_checkout.config), index + 1)
    assert "'x'" in found.message


def _physical(text: str, role: int) -> int:
    return line_of(text, role) - 1


def test_a_line_over_the_size_limit_is_refused_at_its_line(checkout: Checkout) -> None:
    text = with_entry(checkout.config.read_text(), Role.TRAIN_PARAM1, "x" * 70_000)
    checkout.write(text)
    found = outcome(checkout)
    assert refused_at(found, checkout, line_of(text, Role.TRAIN_PARAM1)), found
    assert "over the limit" in found.message


# --- names that would leave the output root ---------------------------------------------------------------------

HOSTILE = ("../../escape", "/tmp/escape", "..", "a/../../../escape")
PATH_ROLES = (
    Role.MODEL_NAME,
    Role.GPU_LIST,
    Role.AUTOCAST,
    Role.TRAIN_MODEL_NAME,
    Role.TRAINER,
    Role.INFERENCE_DIR,
    Role.ENABLE_MKLDNN,
    Role.CPU_THREADS,
    Role.BATCH_SIZE,
    Role.USE_TENSORRT,
    Role.PRECISION,
)


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.parametrize("role", PATH_ROLES, ids=lambda r: r.name.lower())
def test_a_traversal_or_absolute_name_never_leads_out_of_the_output_root(
    checkout: Checkout, role: Role, name: str
) -> None:
    text = with_entry(checkout.config.read_text(), role, name)
    checkout.write(text)
    found = outcome(checkout)
    if isinstance(found, ConfigError):
        assert refused_at(found, checkout, line_of(text, role)), found
        return
    contained(found, checkout.out)
    if role is Role.MODEL_NAME:  # the name reaches no command as a path (PaddleDetection's filename=)
        assert not [t for s in found.stages() for t in s.argv if t.endswith(f"={name}")]


# --- deep YAML --------------------------------------------------------------------------------------------------


def test_a_deeply_nested_training_yml_is_a_config_error_from_prepare(checkout: Checkout) -> None:
    if checkout.dialect.prepare is None:
        pytest.skip(f"{checkout.dialect.name} offers no tipc prepare: it reads no training yml")
    plan = checkout.plan()
    yml = next(y for s in plan.stages() if s.kind is StageKind.TRAIN and (y := _train_yml(s.argv)))
    deep = checkout.root / yml
    deep.parent.mkdir(parents=True, exist_ok=True)
    deep.write_text("Global: " + "[" * DEEP + "]" * DEEP + "\n", encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-m", "tipc", "prepare", "--config", str(checkout.config), "--mode", checkout.mode,
         "--suite", checkout.dialect.name, "--repo", str(checkout.root)],
        capture_output=True, text=True, timeout=120, cwd=checkout.root,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))},
    )  # fmt: skip
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert f"{yml}:1: not valid YAML: nested deeper than" in ran.stderr
