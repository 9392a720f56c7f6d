"""tipc: the TIPC train → eval → export → infer chain as a typed plan and a pytest suite.

The names below (``__all__``) are tipc's public API, what a plugin needs: the dialect type, the plan model, the
hook marker, the errors, and the helpers a dialect uses to read logs and predictions. They keep their names and
meaning across minor releases. Every other module of tipc is private: a plugin that imports one may break with
any release.

They are loaded when first asked for: pytest imports this package in every run (its entry point), and most runs
need none of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `X as X`: names re-exported, for a plugin's type checker
    from tipc.config.modes import Mode as Mode
    from tipc.errors import ConfigError as ConfigError
    from tipc.errors import InputError as InputError
    from tipc.errors import OutputError as OutputError
    from tipc.errors import TipcError as TipcError
    from tipc.errors import UsageError as UsageError
    from tipc.metrics.logfile import log_lines as log_lines
    from tipc.metrics.predictions import Detected as Detected
    from tipc.metrics.predictions import MaskSummary as MaskSummary
    from tipc.metrics.predictions import Prediction as Prediction
    from tipc.metrics.predictions import Ranked as Ranked
    from tipc.metrics.predictions import read_predictions as read_predictions
    from tipc.plan.interpreter import PythonCheck as PythonCheck
    from tipc.plan.model import BenchmarkOptions as BenchmarkOptions
    from tipc.plan.model import Chain as Chain
    from tipc.plan.model import InferCase as InferCase
    from tipc.plan.model import Plan as Plan
    from tipc.plan.model import PlanOptions as PlanOptions
    from tipc.plan.model import Skipped as Skipped
    from tipc.plan.model import SpeedSpec as SpeedSpec
    from tipc.plan.model import Stage as Stage
    from tipc.plan.model import StageKind as StageKind
    from tipc.plan.model import Topology as Topology
    from tipc.results.records import StageRecord as StageRecord
    from tipc.results.records import Status as Status
    from tipc.suites.dialect import Dialect as Dialect
    from tipc.suites.dialect import Prepared as Prepared
    from tipc.suites.downloads import Implied as Implied
    from tipc.suites.guard import PluginWarning as PluginWarning
    from tipc.suites.hookspecs import hookimpl as hookimpl


_HOMES = {
    "tipc.suites.dialect": ("Dialect", "Prepared"),
    "tipc.suites.downloads": ("Implied",),
    "tipc.config.modes": ("Mode",),
    "tipc.plan.model": (
        "Plan",
        "Chain",
        "Stage",
        "StageKind",
        "Topology",
        "Skipped",
        "PlanOptions",
        "BenchmarkOptions",
        "InferCase",
        "SpeedSpec",
    ),
    "tipc.plan.interpreter": ("PythonCheck",),
    "tipc.suites.hookspecs": ("hookimpl",),
    "tipc.suites.guard": ("PluginWarning",),
    "tipc.errors": ("TipcError", "InputError", "ConfigError", "UsageError", "OutputError"),
    "tipc.metrics.logfile": ("log_lines",),
    "tipc.metrics.predictions": ("Prediction", "Ranked", "Detected", "MaskSummary", "read_predictions"),
    "tipc.results.records": ("StageRecord", "Status"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = ["__version__"]
__all__ += list(_HOME_OF)  # the one list of names: the table above


def __getattr__(name: str) -> object:
    if name == "__version__":
        from tipc.version import VERSION

        return VERSION
    if name not in _HOME_OF:
        raise AttributeError(f"module 'tipc' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME_OF[name]), name)
    globals()[name] = value  # asked once: later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
