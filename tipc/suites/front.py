"""What the fronts call: a config's dialect (named, or detected from its checkout), then its reader and planner.

``load`` returns the dialect's config; ``modes``, ``check_mode`` and ``plan`` dispatch on it, so a front never
asks which suite a config is from. The dialect is, first found: the one ``--suite`` names; the one whose marker
folder the checkout has; for a checkout no dialect recognises, the generic dialect (``tipc.suites.generic``, whose
plan note says so); for a config that lies in no checkout (tipc's own ``test_configs/``), the dialect that reads
those (``Dialect.default``), with no suite note. A config file that a dialect claims by its text (``Dialect.claims``:
a format every suite shares) is read by that dialect, wherever it lies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tipc.config.modes import Mode, parse_mode
from tipc.errors import ConfigError, SettingsError
from tipc.plan.interpreter import PythonCheck, on_path
from tipc.plan.model import Plan, PlanOptions
from tipc.suites import generic, registry
from tipc.suites.dialect import CONFIG_DIR, Dialect, checkout_of, detect
from tipc.suites.sets import Sets, apply_sets
from tipc.suites.variants import apply_variant


def named(name: str) -> Dialect[Any]:
    """``--suite NAME`` (any case); a name no dialect has is the run's error, listing them."""
    found = {d.name.lower(): d for d in registry.dialects()}
    if name.lower() not in found:
        known = ", ".join(d.name for d in registry.dialects())
        raise SettingsError(f"--suite {name}: no such suite dialect; expected one of {known}")
    return found[name.lower()]


def dialect_for(path: Path, suite: str | None = None) -> tuple[Dialect[Any], str]:
    """The dialect a config (or a folder of configs) is read in, and the note saying how it was chosen."""
    if suite:
        dialect = named(suite)
        return dialect, f"suite {dialect.name}: named with --suite"
    dialects = registry.dialects()
    found = detect(path, dialects)
    if found is not None:
        return found
    if checkout_of(path) is not None or (path / CONFIG_DIR).is_dir():
        return generic.DIALECT, ""  # the generic reader's own note says so, naming what it could not place
    return _default(dialects), ""


def _default(dialects: tuple[Dialect[Any], ...]) -> Dialect[Any]:
    """The dialect of configs in no checkout: the one that says it reads them, else the generic one."""
    defaults = [d for d in dialects if d.default]
    if len(defaults) > 1:
        raise SettingsError(
            f"dialects {', '.join(d.name for d in defaults)} each read the configs that lie in no checkout: "
            "expected one (or --suite NAME)"
        )
    return defaults[0] if defaults else generic.DIALECT


def find_configs(directory: Path, suite: str | None = None) -> tuple[Path, ...]:
    return dialect_for(directory, suite)[0].configs(directory)


def tags(path: Path, suite: str | None = None) -> tuple[str, ...]:
    return dialect_for(path, suite)[0].tags(path.name)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A config read by its dialect, with the note saying how that dialect was chosen ("" for the default)."""

    config: Any
    dialect: Dialect[Any]
    note: str = ""
    changes: tuple[str, ...] = ()  # what --set changed, one note per line

    @property
    def path(self) -> str:
        return str(getattr(self.config, "path", ""))


def load(path: str | Path, suite: str | None = None, sets: Sets = (), device: str = "") -> Loaded:
    """The config read by its dialect, with the ``--set`` values (``sets``) in place of the config's, as the suite's
    script for ``device`` (npu, xpu) rewrites it."""
    dialect, note = dialect_for(Path(path), suite)
    # A format every suite shares is read by the dialect that claims it, whichever suite's checkout it lies in.
    claims = (d for d in registry.dialects() if d is not dialect and d.claims is not None and d.claims(Path(path)))
    dialect = next(claims, dialect)
    config, changes = apply_sets(dialect.load(str(path)), dialect.name, sets, dialect.parse)
    config, rewritten = apply_variant(config, dialect.name, dialect.devices, device, dialect.parse)
    return Loaded(config, dialect, note, (*changes, *rewritten))


def modes(loaded: Loaded) -> tuple[Mode, ...]:
    return loaded.dialect.modes(loaded.config)


def check_mode(loaded: Loaded, mode: str) -> Mode:
    """``mode`` as a Mode the config runs in, else a ConfigError saying which it runs in."""
    if loaded.dialect.check_mode is not None:
        return loaded.dialect.check_mode(loaded.config, mode)
    run_mode = parse_mode(mode, loaded.path)
    runs = modes(loaded)
    if run_mode not in runs:
        why = (
            f"tipc does not plan {loaded.dialect.name}'s benchmark_train.sh for this config (docs/suites.md, "
            "'benchmark_train')"
            if run_mode is Mode.BENCHMARK_TRAIN
            else f"{loaded.dialect.name}'s bash runs nothing for this config in it"
        )
        raise ConfigError(loaded.path, 0, f"mode '{run_mode}': {why}: expected one of {', '.join(runs)}")
    return run_mode


def plan(loaded: Loaded, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    """The dialect's plan (with the dialect's note), then each plugin's ``pytest_tipc_modify_plan``."""
    check_mode(loaded, options.mode)
    built = loaded.dialect.build(loaded.config, options, check)
    if loaded.note or loaded.changes:
        built = replace(built, notes=(*([loaded.note] if loaded.note else []), *loaded.changes, *built.notes))
    changed: Plan = registry.modify_plan(built, loaded.config)
    return changed


def plan_path(path: str | Path, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    """Read and plan one config, in the dialect ``options.suite`` names (else the detected one)."""
    return plan(load(path, options.suite or None, options.sets, options.device), options, check)
