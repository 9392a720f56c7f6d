"""Every hook implementation runs guarded, so a faulty plugin costs only its own contribution (docs/hooks.md).

An implementation that raises, runs past its time (``TIPC_HOOK_TIMEOUT`` seconds, each step of a wrapper
too), or answers what its hook cannot use (the wrong type; figures that are not strict JSON) is reported once
per plugin and hook, as a ``PluginWarning``, and is otherwise left out: a plain implementation as if it had
answered None, a wrapper as if it had passed on what it was given. The plugin manager (``registry``) puts
every implementation through ``guarded`` when a hook is called, whatever the front; the checks of each
hook's answers are the registry's.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import threading
import warnings
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pluggy
from pluggy import HookImpl

LIMIT_VARIABLE = "TIPC_HOOK_TIMEOUT"
DEFAULT_LIMIT = 60.0  # seconds: far above any parser's need, far below a night's stage timeout
MAX_DEPTH = 32  # a figure nested deeper is no figure a report can show
FAULTS = (Exception, SystemExit)  # what a plugin may do wrong; Ctrl-C is the user's and goes on up


class PluginWarning(UserWarning):
    """A plugin's hook implementation failed, hung or answered what its hook cannot use; it was left out."""


class Junk(ValueError):
    """An answer its hook cannot use; the text says what is wrong with it (never the value: it may be huge)."""


Check = Callable[[Any], Any]  # an answer -> the answer to use; raises Junk
# An exception that is the input's fault, not the plugin's -> the note it gets ("": none); None: the plugin's.
Expected = Callable[[BaseException], str | None]


@dataclass
class Call:
    """What one hook call's implementations did: each plain answer with its plugin, and the notes."""

    answers: list[tuple[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


_calls = threading.local()  # the hook calls under way in this thread, innermost last
_reported: set[tuple[str, str]] = set()
_hung: set[tuple[str, str]] = set()  # not called again: each call would leave one more thread behind


@contextmanager
def recording() -> Iterator[Call]:
    """Collect what the implementations of the hook called inside this block did (this thread only)."""
    stack: list[Call] = _calls.__dict__.setdefault("stack", [])
    call = Call()
    stack.append(call)
    try:
        yield call
    finally:
        stack.pop()


def _current() -> Call | None:
    stack: list[Call] = _calls.__dict__.get("stack", [])
    return stack[-1] if stack else None


def note(text: str) -> None:
    """A note on the hook call under way (a figure written as null …), for the caller to show."""
    call = _current()
    if call is not None and text not in call.notes:
        call.notes.append(text)


def fault(plugin: str, hook: str, exc: BaseException | str) -> None:
    """``plugin``'s implementation of ``hook`` was left out: noted on the call, warned once a process."""
    if isinstance(exc, Hung):
        _hung.add((plugin, hook))
    what = exc if isinstance(exc, str) else describe(exc)
    note(f"{hook} of plugin {plugin} left out ({what})")
    _warn_once((plugin, hook), f"tipc: plugin {plugin}: its {hook} {what}; ignored (docs/hooks.md)")


def _warn_once(key: tuple[str, str], text: str) -> None:
    if key in _reported:
        return
    _reported.add(key)
    try:
        warnings.warn(PluginWarning(text), stacklevel=3)
    except Warning:  # warnings made errors (-W error): the plugin's fault must not become the run's
        print(text, file=sys.stderr)


def limit() -> float:
    """Seconds an implementation (or a wrapper's step) may take: ``TIPC_HOOK_TIMEOUT``, else the default."""
    given = os.environ.get(LIMIT_VARIABLE, "")
    try:
        seconds = float(given) if given else DEFAULT_LIMIT
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < math.inf:
        said = f"tipc: {LIMIT_VARIABLE}={given!r}: expected a positive number of seconds; {DEFAULT_LIMIT:g} used"
        _warn_once((LIMIT_VARIABLE, given), said)
        return DEFAULT_LIMIT
    return seconds


class Hung(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not return within {seconds:g} s ({LIMIT_VARIABLE})")


def bounded(step: Callable[[], Any]) -> Any:
    """``step()``, in a thread of its own that is given up on after ``limit()`` seconds: a hung plugin keeps
    its thread (a daemon: it cannot hold the process at exit), the run goes on without it."""
    seconds = limit()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = step()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread as it is
            box["error"] = exc

    thread = threading.Thread(target=run, name="tipc-hook", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise Hung(seconds)
    if "error" in box:
        raise box["error"]
    return box.get("value")


def describe(exc: BaseException) -> str:
    if isinstance(exc, Hung | Junk):
        return str(exc)
    return f"raised {type(exc).__name__}: {str(exc)[:200]}"


def guarded(impl: HookImpl, hook: str, check: Check, whole: Check, expected: Expected) -> HookImpl:
    """``impl`` as it runs under the guard: a plain answer through ``check``, a wrapper's result through
    ``whole``. An ``expected`` exception is the input's fault, not the plugin's: noted, not warned."""
    plugin = impl.plugin_name
    if impl.wrapper or impl.hookwrapper:
        body = _wrapper(impl.function, plugin, hook, whole)
    else:
        body = _plain(impl.function, plugin, hook, check, expected)
    return HookImpl(impl.plugin, plugin, functools.wraps(impl.function)(body), impl.opts)


def _left_out(plugin: str, hook: str, exc: BaseException, expected: Expected) -> None:
    said = expected(exc)
    if said is None:
        fault(plugin, hook, exc)
    elif said:
        note(said)


def _plain(
    function: Callable[..., Any], plugin: str, hook: str, check: Check, expected: Expected
) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if (plugin, hook) in _hung:
            return None
        try:
            answer = bounded(lambda: function(*args, **kwargs))
            if answer is not None:
                answer = check(answer)
        except FAULTS as exc:
            _left_out(plugin, hook, exc, expected)
            return None
        call_now = _current()
        if answer is not None and call_now is not None:
            call_now.answers.append((plugin, answer))
        return answer

    return call


def _wrapper(function: Callable[..., Any], plugin: str, hook: str, whole: Check) -> Callable[..., Any]:
    """A wrapper (``wrapper=True``, or an old-style ``hookwrapper=True`` that is sent a ``pluggy.Result``)
    whose faults leave the result as the inner implementations made it."""

    def wrap(*args: Any, **kwargs: Any) -> Generator[None, Any, Any]:
        teardown = None if (plugin, hook) in _hung else _start(function, args, kwargs, plugin, hook)
        try:
            inner = yield
        except BaseException:  # the inner call failed (not a plugin's: those are guarded); it goes on up
            if teardown is not None:
                teardown.close()
            raise
        if teardown is None:
            return inner
        if not isinstance(inner, pluggy.Result):
            done = _finish(teardown, inner, plugin, hook, whole)
            return inner if done is _FAILED else done
        if inner.exception is not None:
            teardown.close()
        else:
            kept = inner.get_result()
            if _finish(teardown, inner, plugin, hook, whole) is _FAILED:
                inner.force_result(kept)
        return None

    return wrap


_FAILED = object()  # a wrapper's teardown that failed: the result stays as it was


def _start(
    function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], plugin: str, hook: str
) -> Generator[None, Any, Any] | None:
    """The wrapper's generator, run to its yield; None when it failed before (or never yielded)."""
    try:
        teardown: Generator[None, Any, Any] = function(*args, **kwargs)
        bounded(lambda: next(teardown))
    except FAULTS as exc:  # StopIteration too: a wrapper that never yielded
        fault(plugin, hook, exc)
        return None
    return teardown


def _finish(teardown: Generator[None, Any, Any], sent: Any, plugin: str, hook: str, whole: Check) -> Any:
    """The wrapper's result after its teardown, checked; ``_FAILED`` when it raised, hung, yielded twice or
    answered what the hook cannot use."""
    try:
        bounded(lambda: teardown.send(sent))
    except StopIteration as stop:
        try:
            return whole(sent.get_result() if isinstance(sent, pluggy.Result) else stop.value)
        except FAULTS as exc:
            fault(plugin, hook, exc)
    except FAULTS as exc:
        fault(plugin, hook, exc)
    else:
        fault(plugin, hook, "yielded twice")
    return _FAILED


def strict_json(value: Any, where: str, depth: int = 0) -> Any:
    """``value`` as strict JSON (non-finite numbers as null, each with a note); ``Junk`` when it is none."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        note(f"{where} is {value}, not a JSON number: written as null")
        return None
    if depth >= MAX_DEPTH:
        raise Junk(f"answered {where} nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, list | tuple):
        return [strict_json(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: strict_json(v, f"{where}.{k}", depth + 1) for k, v in value.items()}
    raise Junk(f"answered {where} as {type(value).__name__}, which is not JSON")
