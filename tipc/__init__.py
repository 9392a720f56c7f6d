"""tipc: the TIPC train → eval → export → infer chain as a typed plan and a pytest suite."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # Lazily: every pytest run imports this package (the plugin entry point), few ask its version.
    if name == "__version__":
        from tipc.version import VERSION

        return VERSION
    raise AttributeError(f"module 'tipc' has no attribute {name!r}")
