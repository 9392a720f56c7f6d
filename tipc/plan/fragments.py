"""Command fragments: each carries the text the bash would splice in and the argv tokens it becomes.

The bash builds every command as one string of space-joined fragments and runs it
with ``eval``; tipc keeps that string for ``results_python.log`` (double spaces
included) but runs the tokens a shell would have produced, without a shell.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tipc.config.bounds import excerpt
from tipc.config.model import NULL, Field
from tipc.errors import ConfigError
from tipc.plan.model import Stage, StageKind
from tipc.plan.naming import stage_id
from tipc.plan.shellwords import split_words


@dataclass(frozen=True, slots=True)
class Fragment:
    text: str  # as spliced into the bash's command string
    argv: tuple[str, ...] = ()


# What func_set_params returns for a dropped override: one space, so the string keeps a gap.
DROPPED = Fragment(" ")
# A literal extra space written into the bash's templates (``${a}  ${b}``).
GAP = Fragment("")
_CACHED_TEXT = 512  # texts split once and kept; a longer one (a 400 KiB value) is split each time


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    """A zoo's configs repeat the same parameters hundreds of times: each text is split once."""
    return tuple(split_words(text))


def shell_tokens(text: str, path: str, field: Field) -> tuple[str, ...]:
    """Split config text as the shell's ``eval`` would (quotes resolved), or fail naming the line."""
    try:
        return _words(text) if len(text) <= _CACHED_TEXT else tuple(split_words(text))
    except ValueError as exc:
        key = excerpt(field.key)
        raise ConfigError(path, field.line, f"{key}: cannot split {excerpt(text)!r} into arguments ({exc})") from None


def config_text(text: str, path: str, field: Field) -> Fragment:
    """Config text used as a run of arguments (a script and its fixed args)."""
    return Fragment(text, shell_tokens(text, path, field))


def is_dropped(key: str, value: str | None) -> bool:
    """The func_set_params contract: a null key, or a null/blank/missing value, emits nothing."""
    return key == NULL or value is None or value in (NULL, " ", "")


def set_param(key: str, value: str | None, path: str, field: Field) -> Fragment:
    """``key=value`` where both come from the config: split as the shell would."""
    if is_dropped(key, value):
        return DROPPED
    return always_param(key, value, path, field)


def always_param(key: str, value: str | None, path: str, field: Field) -> Fragment:
    """``key=value`` emitted whatever the value (the bash wrote the device flag this way)."""
    text = f"{key}={value or ''}"
    return Fragment(text, shell_tokens(text, path, field))


def set_path(key: str, value: str) -> Fragment:
    """``key=<path tipc made up>``: one token whatever the path holds."""
    if is_dropped(key, value):
        return DROPPED
    text = f"{key}={value}"
    return Fragment(text, (text,))


def literal(*tokens: str) -> Fragment:
    """Tokens tipc itself writes (the interpreter, launch options)."""
    return Fragment(" ".join(tokens), tuple(tokens))


@dataclass(frozen=True, slots=True)
class Command:
    argv: tuple[str, ...]
    text: str  # the legacy command string


def command_stage(
    chain: str,
    name: str,
    kind: StageKind,
    command: Command,
    env: Mapping[str, str | None],
    log: str,
    cwd: str,
    *,
    legacy_log: str | None = None,  # None: ``log``
    **fields: Any,  # the rest of the Stage's fields
) -> Stage:
    """The stage that runs ``command``: its id, its argv, and the bash's command line and log name. Every config
    format's builder makes its stages here."""
    return Stage(
        id=stage_id(chain, name),
        chain=chain,
        name=name,
        kind=kind,
        argv=command.argv,
        env=env,
        cwd=cwd,
        log=log,
        legacy_command=command.text,
        legacy_log=log if legacy_log is None else legacy_log,
        **fields,
    )


def assemble(fragments: Iterable[Fragment], log: str | None = None) -> Command:
    """Join fragments as the bash does; ``log`` adds the `` > log 2>&1 `` tail it writes for redirected stages."""
    fragments = tuple(fragments)
    text = " ".join(f.text for f in fragments)
    if log is not None:
        text += f" > {log} 2>&1 "
    return Command(tuple(t for f in fragments for t in f.argv), text)
