"""A call that must end: run it in a thread the test does not wait on forever."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def without_hanging(call: Callable[[], Any], seconds: float = 20.0) -> Any:
    """``call()``'s result, or the exception it raised (returned, not raised); fails when it blocks."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s: it blocked or never ends"
    return outcome[0]
