"""``--config`` (repeatable, files or directories) and ``--tags`` → the config files a run covers.

Shared by every front that takes a selection (``pytest tipc``, ``tipc run``, ``tipc plan``,
``tipc prepare``). A selection that names nothing is the run's error (``SettingsError``): a
mistyped name, a directory without configs, tags no config has. What is wrong *inside* one
config is that config's problem, decided later, config by config.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tipc.config.locate import TIPC_CHECKOUT, resolve_config
from tipc.config.tags import TagGroups, matches, parse_tag_groups
from tipc.errors import ConfigError, SettingsError


@dataclass(frozen=True, slots=True)
class Selected:
    path: Path  # a config file
    within: Path | None = None  # the directory ``--config`` named, when the file came from one
    suite: str | None = None  # --suite: the dialect named (None: detected from the checkout)

    @property
    def tags(self) -> tuple[str, ...]:
        from tipc.suites.front import tags

        return tags(self.path, self.suite)


def locate(arg: str, cwd: Path) -> Path:
    try:
        return resolve_config(arg, cwd, TIPC_CHECKOUT)
    except ConfigError as exc:
        raise SettingsError(
            f"--config {arg}: {exc.message}; give a path, or a name under test_configs/ or test_tipc/configs/"
        ) from None


def _expand(arg: str, cwd: Path, suite: str | None) -> list[Selected]:
    from tipc.suites.front import dialect_for

    path = locate(arg, cwd)
    if not path.is_dir():
        return [Selected(path, suite=suite)]
    dialect = dialect_for(path, suite)[0]
    found = [Selected(p, path, suite) for p in dialect.configs(path)]
    if not found:
        names = " or ".join(dialect.patterns)
        raise SettingsError(f"--config {arg}: no {names} config in {path} or below ({dialect.name}'s train configs)")
    return found


def select_configs(
    args: Sequence[str], tags: Sequence[str], cwd: Path, suite: str | None = None
) -> tuple[Selected, ...]:
    """Every config the arguments name, each once (the first mention wins), in the order given,
    a directory's sorted by path (its dialect's train configs: ``suite``, else detected); then those whose
    tags match one ``--tags`` group."""
    seen: dict[Path, Selected] = {}
    for arg in args:
        for selected in _expand(arg, cwd, suite):
            seen.setdefault(selected.path.resolve(), selected)
    try:
        groups = parse_tag_groups(tags)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None
    return _filter(tuple(seen.values()), groups)


def _filter(selected: tuple[Selected, ...], groups: TagGroups) -> tuple[Selected, ...]:
    """A tag that no selected config has is a typo until shown otherwise: it would drop its group
    silently from every night's run. So is a combination that leaves nothing."""
    present = {word for s in selected for word in s.tags}
    unknown = sorted(set().union(*groups) - present)
    kept = tuple(s for s in selected if matches(s.tags, groups))
    if unknown or not kept:
        problem = f"no config has the tag {', '.join(unknown)}" if unknown else "no config has all these tags"
        wanted = " --tags ".join(",".join(sorted(g)) for g in groups)
        raise SettingsError(
            f"--tags {wanted}: {problem} (of the {len(selected)} configs selected); their tags: "
            + (", ".join(sorted(present)) or "none (no name follows train_<hw>_<fleet|normal>_<amp|normal>_…)")
        )
    return kept
