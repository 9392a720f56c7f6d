"""The one error hierarchy: every error tipc means to show a user derives from ``TipcError``.

Fronts catch ``TipcError`` once and print it without a traceback (``tipc``: exit 2;
``pytest tipc``: a usage error or the collector's failure text).

* ``InputError`` names a file and a line: a config, a results file, a yml, a hostlist.
  ``ConfigError`` is bad config text; ``ResultsError`` a results folder or history entry.
* ``UsageError`` is a bad option or environment value; its message names the option
  and the fix. ``SettingsError`` (the fronts' options) and ``ClusterError`` (node list,
  identity, ports) are its kinds.
* ``OutputError`` is a file tipc could not write (a full disk, a read-only folder): the run
  stops cleanly, naming the path and the error; what was written before stays valid.

Plain classes rather than frozen dataclasses: exceptions must pickle (xdist ships them
between processes) and accept ``add_note()``.
"""

from __future__ import annotations


class TipcError(Exception):
    """Anything tipc reports to its user as a message, not a traceback."""


class InputError(TipcError):
    """Bad input, rendered as ``path:line: message`` (line 0 = the file as a whole)."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(path, line, message)
        self.path = path
        self.line = line
        self.message = message

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}: {self.message}"
        return f"{self.path}: {self.message}"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.args == self.args

    def __hash__(self) -> int:
        return hash((type(self), self.args))


class ConfigError(InputError):
    """A TIPC config (or a file it names) that cannot be read as expected."""


class ResultsError(InputError):
    """A results folder, results file or report history entry that cannot be read."""


class UsageError(TipcError, ValueError):
    """A bad option or environment value; the message names it and the fix."""


class SettingsError(UsageError):
    """A front's option that cannot be resolved into settings."""


class ClusterError(UsageError):
    """Bad or contradictory cluster input (options, scheduler environment, node list)."""


class OutputError(TipcError):
    """A file tipc could not write; the message names the path and the system's error."""

    def __init__(self, path: str, error: OSError) -> None:
        super().__init__(path, error.strerror or str(error))
        self.path = path
        self.reason = error.strerror or str(error)
        self.errno = error.errno

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.reason} (errno {self.errno})"
