"""tipc: the TIPC train → eval → export → infer chain as a typed plan and a pytest suite."""

__version__ = "0.1.0"
