"""A suite dialect: how one suite's TIPC configs are found, named, read and planned, and how to tell its checkout.

A dialect is plain data plus functions, so that a plugin can add one (``tipc.suites.hooks``): its ``name``
(``--suite NAME``), the folders that mark its checkout (``ppcls/`` …), the file names of its train configs,
their tags, the modes a config runs in, the reader and planner, and the reader of its predictor's output. The
planner's reference is the suite's own ``test_train_inference_python.sh``: for every train config in every mode,
it plans what that bash runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from tipc.config.modes import Mode
from tipc.plan.interpreter import PythonCheck
from tipc.plan.model import Plan, PlanOptions, Stage

if TYPE_CHECKING:
    from tipc.metrics.predictions import Prediction
    from tipc.prepare.sizes import Sizes
    from tipc.results.records import StageRecord
    from tipc.suites.downloads import Implied
    from tipc.suites.variants import Variant

CONFIG_DIR = "test_tipc/configs"
C = TypeVar("C")  # a dialect's own config type: what its ``load`` reads and its ``modes`` and ``build`` take


@dataclass(frozen=True, slots=True)
class Prepared:
    """What a dialect's ``prepare`` made (one line each) and what it cannot make offline (one line each, naming the
    config line: ``tipc prepare`` says them and exits 1)."""

    made: tuple[str, ...]
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Dialect(Generic[C]):
    """A suite's dialect (a plugin adds it through ``pytest_tipc_add_dialects``): ``name`` (``--suite NAME``);
    ``markers``, folders at a checkout's root that name the suite; ``load``, a config path to the dialect's own
    config object (raise ``ConfigError`` on bad input); ``modes``, the modes that config runs in; ``build``,
    the config's ``Plan``; ``patterns`` and ``excludes``, file names of its train configs; ``tags``, the
    ``--tags`` words of a file name; ``prepare``, ``tipc prepare``'s data maker; ``predictions``, what an
    infer stage predicted, from its record; ``figures``, the figures its suite's logs hold; ``manifests``, the
    outputs that name other files a stage must write; ``implied_weights``, weights a stage loads without naming
    them; ``check_mode``, the dialect's own words for a mode it does not run; ``parse``, its reader of config text
    (``--set`` and ``--device`` reread a changed text with it); ``claims``, config files it reads in any checkout
    (by their text); ``wants_gpu``, whether a config would use a GPU (the doctor's question); ``default``, the
    dialect of configs that lie in no checkout (at most one dialect)."""

    name: str
    markers: tuple[str, ...]  # folders at a checkout's root that name this suite
    load: Callable[[str], C]  # config path -> the dialect's config (a ConfigError on bad input)
    modes: Callable[[C], tuple[Mode, ...]]  # the modes that config runs in
    build: Callable[[C, PlanOptions, PythonCheck], Plan]
    patterns: tuple[str, ...] = ("*train*infer_python*.txt",)  # file names of its train configs
    excludes: tuple[str, ...] = ("*train_ptq*",)  # PTQ configs belong to another script of the suite
    tags: Callable[[str], tuple[str, ...]] = lambda name: ()
    description: str = ""
    # ``tipc prepare``: (plan, repo, sizes, seed, force) -> what it made, one line each, or a ``Prepared`` when
    # something cannot be made offline; None: not offered
    prepare: Callable[[Plan, Path, Sizes, int, bool], list[str] | Prepared] | None = None  # imports when called
    # What an infer stage predicted, from its record (its log, its argv's output folder), as goldens and the
    # report read it; None: the predictor lines in its log (tipc.metrics.predictions)
    predictions: Callable[[StageRecord], tuple[Prediction, ...]] | None = None
    # --device npu / xpu: how the suite's test_train_inference_python_<device>.sh rewrites a config
    devices: Mapping[str, Variant] = field(default_factory=dict)
    # The figures its suite's logs hold that tipc's own readers do not (an eval's top-1, mAP or mIoU, a
    # predictor's timings): (stage, log, since, until) -> {name: value}, from the stage's part of ``log`` (bytes
    # ``since`` .. ``until``); tipc's own figures and plugins' (``pytest_tipc_stage_figures``) win on a name
    figures: Callable[[Stage, Path, int, int | None], Mapping[str, Any]] | None = None
    # Outputs that name further files (an export's ``deploy.yaml`` names its model and params): an output's file
    # name -> the reader of the paths it names, relative to its folder (a ConfigError or OSError when it cannot
    # be read). A stage passes only when every file so named was written while it ran (``tipc.run.false_pass``)
    manifests: Mapping[str, Callable[[Path], tuple[str, ...]]] = field(default_factory=dict)
    # Weights a stage loads that its arguments do not name (PaddleDetection's yml pretrain_weights when the config
    # passes none): a URL among them is refused before a run, as one the config names (``tipc.suites.downloads``)
    implied_weights: Callable[[Plan], tuple[Implied, ...]] | None = None
    # (config, --mode) -> the Mode, or a ConfigError in the dialect's own words; None: one of ``modes``
    check_mode: Callable[[C, str], Mode] | None = None
    # (text, path) -> the config; None: a dialect whose configs are ``SuiteConfig`` lines, or none to reread
    parse: Callable[[str, str], C] | None = None
    # A config file this dialect reads wherever it lies (a format every suite shares); None: none
    claims: Callable[[Path], bool] | None = None
    wants_gpu: Callable[[C], bool] = lambda config: bool(getattr(config, "wants_gpu", False))
    default: bool = False  # reads the configs that lie in no checkout (tipc's own examples)

    def is_config(self, file_name: str) -> bool:
        return any(fnmatch(file_name, p) for p in self.patterns) and not any(
            fnmatch(file_name, p) for p in self.excludes
        )

    def configs(self, directory: Path) -> tuple[Path, ...]:
        """Every train config below ``directory`` (hidden and symlinked folders are not walked), sorted."""
        found: list[Path] = []
        for parent, subdirs, files in os.walk(directory):
            subdirs[:] = [name for name in subdirs if not name.startswith(".")]
            found.extend(Path(parent) / name for name in files if self.is_config(name))
        return tuple(sorted(found))


def checkout_of(path: Path) -> Path | None:
    """The checkout a config lives in: the folder above its ``test_tipc/`` (None outside one)."""
    resolved = Path(os.path.abspath(path))
    for parent in (resolved, *resolved.parents):
        if parent.name == "test_tipc":
            return parent.parent
    return None


def detect(path: Path, dialects: Sequence[Dialect[Any]]) -> tuple[Dialect[Any], str] | None:
    """The dialect whose marker folder the checkout (``path`` or the one holding it) has, and why."""
    for root in dict.fromkeys(p for p in (checkout_of(path), Path(path)) if p is not None):
        for dialect in dialects:
            marker = next((m for m in dialect.markers if (root / m).is_dir()), None)
            if marker is not None:
                return dialect, f"suite {dialect.name}: detected from the checkout's {marker}/ folder ({root})"
    return None
