"""Settings below the command line: the environment, then a file, then tipc's default.

Per-project choices (timeouts, the report's folder, the golden folder, ``--fail-on``, the trend
policy, ``--jobs`` …) need not be typed on every command: each of ``FILE_SETTINGS`` may also
come from

1. the command line (``tipc run --timeout …``, ``pytest tipc … --tipc-timeout …``);
2. the environment: ``TIPC_<NAME>`` (``TIPC_TIMEOUT="train=600 all=3600"``,
   ``TIPC_REPORT_DIR=out/reports``; ``--python`` is ``TIPC_STAGE_PYTHON``: ``TIPC_PYTHON`` is the
   nightly recipes' interpreter of tipc itself);
3. a file: pytest's ini (``tipc_<name>`` keys, the pytest front only), else ``[tool.tipc]`` in the
   ``pyproject.toml`` of ``--repo`` (else of the current directory: the target's checkout);
4. tipc's default;

the first that gives it wins, setting by setting. ``layered`` resolves them once, for
``tipc.session.settings``, and says where each value came from (``run.json``'s ``sources``,
``tipc plan``'s notes). Names in files and the environment are the flag's, with ``_`` for
``-`` (``hang_timeout``); repeatable options take a list (TOML) or words (environment, ini).
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tipc.errors import SettingsError
from tipc.session.options import every_option

FILE_SETTINGS = (
    "--python",
    "--golden-dir",
    "--output-root",
    "--device",
    "--doctor",
    "--timeout",
    "--hang-timeout",
    "--node-timeout",
    "--report-dir",
    "--history",
    "--no-report",
    "--fail-on",
    "--bisect-budget",
    "--trend-runs",
    "--noise-k",
    "--trend-min-runs",
    "--min-effect",
    "--autolog-shim",
    "--jobs",
    "--mem-per-chain",
    "--set",
)
ENV_NAMES = {"--python": "TIPC_STAGE_PYTHON"}
COMMAND_LINE = "command line"
ENVIRONMENT = "environment"
PYTEST_INI = " (pytest ini)"  # after the ini file's path, as an origin
TABLE = "[tool.tipc]"


@dataclass(frozen=True, slots=True)
class Setting:
    flag: str
    dest: str
    kind: str  # "list" (repeatable), "flag" (a switch), "tristate" (--doctor/--no-doctor), "text"
    default: Any
    choices: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """Its name in a file: ``[tool.tipc]`` ``hang_timeout``, pytest's ini ``tipc_hang_timeout``."""
        return self.flag.removeprefix("--").replace("-", "_")

    @property
    def env(self) -> str:
        return ENV_NAMES.get(self.flag, "TIPC_" + self.key.upper())


def _settings() -> tuple[Setting, ...]:
    declared = {names[0]: kwargs for names, kwargs in every_option()}
    out = []
    for flag in FILE_SETTINGS:
        kwargs = declared[flag]
        action = str(kwargs.get("action", ""))
        kind = {"append": "list", "store_true": "tristate" if kwargs["default"] is None else "flag"}.get(action, "text")
        out.append(Setting(flag, kwargs["dest"], kind, kwargs["default"], tuple(kwargs.get("choices", ()))))
    return tuple(out)


SETTINGS = _settings()
INI_KEYS = tuple((f"tipc_{s.key}", s) for s in SETTINGS)  # the pytest front's addini


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _convert(setting: Setting, value: Any, where: str) -> Any:
    """A file's or the environment's value as the command line would have given it."""
    if setting.kind in ("flag", "tristate"):
        if isinstance(value, str) and value.strip().lower() in (*_TRUE, *_FALSE):
            value = value.strip().lower() in _TRUE
        if not isinstance(value, bool):
            raise SettingsError(f"{where}: {value!r}: expected true or false")
        return value
    if setting.kind == "list":
        words = shlex.split(value) if isinstance(value, str) else value
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise SettingsError(f"{where}: {value!r}: expected a list of strings (as {setting.flag} takes each)")
        return words
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise SettingsError(f"{where}: {value!r}: expected a string or a number (as {setting.flag} takes it)")
    text = str(value)
    if setting.choices and text not in setting.choices:
        raise SettingsError(f"{where}: {text!r}: expected one of {', '.join(setting.choices)}")
    return text


def _toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]
    try:
        with path.open("rb") as f:
            document = tomllib.load(f)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read {TABLE}: {exc}") from None
    table = document.get("tool", {}).get("tipc", {})
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: {TABLE} is not a table")
    return table


def pyproject_layer(directory: Path) -> tuple[str, dict[str, Any]]:
    """``[tool.tipc]`` of ``directory/pyproject.toml`` as dest → value (none: empty)."""
    path = directory / "pyproject.toml"
    origin = f"{path} {TABLE}"
    if not path.is_file():
        return origin, {}
    table = _toml(path)
    by_key = {s.key: s for s in SETTINGS}
    values = {}
    for key, value in table.items():
        setting = by_key.get(key)
        if setting is None:
            raise SettingsError(f"{origin} {key}: not a setting; expected one of {', '.join(sorted(by_key))}")
        values[setting.dest] = _convert(setting, value, f"{origin} {key}")
    return origin, values


def env_layer(environ: Mapping[str, str]) -> tuple[str, dict[str, Any]]:
    values = {}
    for setting in SETTINGS:
        text = environ.get(setting.env)
        if text is not None and text.strip():
            values[setting.dest] = _convert(setting, text, setting.env)
    return ENVIRONMENT, values


def ini_layer(getini: Callable[[str], Any], inifile: str) -> tuple[str, dict[str, Any]]:
    """pytest's ini: a key not given reads as "" (or [] for a list), which sets nothing."""
    values = {}
    for key, setting in INI_KEYS:
        value = getini(key)
        if value not in ("", [], None):
            values[setting.dest] = _convert(setting, value, f"{inifile} {key}")
    return f"{inifile}{PYTEST_INI}", values


Layer = tuple[str, dict[str, Any]]


def layered(get: Callable[[str], Any], layers: list[Layer]) -> tuple[Callable[[str], Any], dict[str, str]]:
    """``get`` with each file setting the command line left at its default taken from the first
    layer that gives it; and where each setting that is not its default came from (flag → origin)."""
    chosen: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for setting in SETTINGS:
        try:
            given = get(setting.dest)
        except AttributeError:  # a command that does not take it (tipc plan has no --timeout)
            continue
        if given != setting.default:
            sources[setting.flag] = COMMAND_LINE
            continue
        for origin, values in layers:
            if setting.dest in values:
                chosen[setting.dest] = values[setting.dest]
                sources[setting.flag] = origin
                break

    def lookup(dest: str) -> Any:
        return chosen[dest] if dest in chosen else get(dest)

    return lookup, sources


def blamed(message: str, sources: Mapping[str, str]) -> str:
    """A settings error about a flag the user never typed (its value came from the environment or a
    file) names where the value was written: ``TIPC_JOBS (environment): --jobs 'x': expected …``,
    ``/…/pytest.ini tipc_jobs: …``."""
    flags = re.match(r"--[\w/-]+", message)
    by_flag = {s.flag: s for s in SETTINGS}
    where = [
        _written_at(by_flag[flag], sources[flag])
        for flag in (flags[0].split("/") if flags else ())
        if flag in by_flag and sources.get(flag, COMMAND_LINE) != COMMAND_LINE
    ]
    return f"{', '.join(where)}: {message}" if where else message


def _written_at(setting: Setting, origin: str) -> str:
    if origin == ENVIRONMENT:
        return f"{setting.env} ({ENVIRONMENT})"
    if origin.endswith(PYTEST_INI):
        return f"{origin.removesuffix(PYTEST_INI)} tipc_{setting.key}"
    return f"{origin} {setting.key}"


def source_notes(sources: Mapping[str, str]) -> tuple[str, ...]:
    """``tipc plan``'s notes: the settings that came from a file or the environment."""
    return tuple(f"setting {flag}: from {origin}" for flag, origin in sources.items() if origin != COMMAND_LINE)


def paddle_flag_notes(environ: Mapping[str, str]) -> tuple[str, ...]:
    """Paddle's ``FLAGS_*`` switches in the run's environment, which every stage inherits: one can decide a
    chain's verdict (``FLAGS_enable_pir_api=0`` makes paddle 3 export the old program format, which some suites'
    predictors need), so the plan's notes and ``run.json`` name them."""
    flags = sorted(f"{name}={value}" for name, value in environ.items() if name.startswith("FLAGS_"))
    return (f"paddle flags from the environment: {' '.join(flags)}",) if flags else ()
