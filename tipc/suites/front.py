"""What the fronts call: a config's dialect (named, or detected from its checkout), then its reader and planner.

``load`` returns the dialect's config; ``modes``, ``check_mode`` and ``plan`` dispatch on it, so a front never
asks which suite a config is from. A config outside any recognised checkout (tipc's own ``test_configs/``)
reads as PaddleOCR's, as tipc always read it, and its plan gets no suite note.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from tipc.config.modes import Mode, parse_mode
from tipc.errors import ConfigError, SettingsError
from tipc.plan.interpreter import PythonCheck, on_path
from tipc.plan.model import Plan, PlanOptions
from tipc.suites import builtin, registry
from tipc.suites.dialect import Dialect, detect
from tipc.suites.plans import SuiteConfig


def named(name: str) -> Dialect:
    """``--suite NAME`` (any case); a name no dialect has is the run's error, listing them."""
    found = {d.name.lower(): d for d in registry.dialects()}
    if name.lower() not in found:
        known = ", ".join(d.name for d in registry.dialects())
        raise SettingsError(f"--suite {name}: no such suite dialect; expected one of {known}")
    return found[name.lower()]


def dialect_for(path: Path, suite: str | None = None) -> tuple[Dialect, str]:
    """The dialect a config (or a folder of configs) is read in, and the note saying how it was chosen."""
    if suite:
        dialect = named(suite)
        return dialect, f"suite {dialect.name}: named with --suite"
    found = detect(path, registry.dialects())
    return found if found is not None else (builtin.DEFAULT, "")


def find_configs(directory: Path, suite: str | None = None) -> tuple[Path, ...]:
    return dialect_for(directory, suite)[0].configs(directory)


def tags(path: Path, suite: str | None = None) -> tuple[str, ...]:
    return dialect_for(path, suite)[0].tags(path.name)


def load(path: str | Path, suite: str | None = None) -> Any:
    """The config as its dialect reads it; a SuiteConfig carries its dialect's note."""
    dialect, note = dialect_for(Path(path), suite)
    config = dialect.load(str(path))
    if isinstance(config, SuiteConfig) or note:
        config = _with_note(config, note, dialect)
    return config


def _with_note(config: Any, note: str, dialect: Dialect) -> Any:
    if isinstance(config, SuiteConfig):
        return replace(config, dialect=dialect.name, notes=(note, *config.notes) if note else config.notes)
    return replace(config, notes=(note, *config.notes))


def _dialect_of(config: Any) -> Dialect:
    if isinstance(config, SuiteConfig):
        return named(config.dialect)
    return builtin.DEFAULT


def modes(config: Any) -> tuple[Mode, ...]:
    return _dialect_of(config).modes(config)


def check_mode(config: Any, mode: str) -> Mode:
    """``mode`` as a Mode the config runs in, else a ConfigError saying which it runs in."""
    if not isinstance(config, SuiteConfig):
        from tipc.config.formats import check_mode as paddleocr_check

        return paddleocr_check(config, mode)
    run_mode = parse_mode(mode, config.path)
    runs = modes(config)
    if run_mode not in runs:
        raise ConfigError(
            config.path,
            0,
            f"mode '{run_mode}': {config.dialect}'s bash runs nothing for this config "
            f"in it: expected one of {', '.join(runs)}",
        )
    return run_mode


def plan(config: Any, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    """The dialect's plan, then each plugin's ``pytest_tipc_modify_plan``."""
    if isinstance(config, SuiteConfig):
        check_mode(config, options.mode)
    built = _dialect_of(config).build(config, options, check)
    changed: Plan = registry.modify_plan(built, config)
    return changed


def plan_path(path: str | Path, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    """Read and plan one config, in the dialect ``options.suite`` names (else the detected one)."""
    return plan(load(path, options.suite or None), options, check)
