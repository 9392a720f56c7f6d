"""tipc's version, written once: here. The package's metadata is built from it (``pyproject.toml``
reads it as a dynamic field), so every run reads it for free where asking the installed metadata
cost each start ~12 ms (``importlib.metadata`` and a search of ``sys.path``)."""

VERSION = "0.2.0"
