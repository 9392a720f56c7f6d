"""Shared test configuration: keep minimal (several packages' tests share it)."""

pytest_plugins = ["pytester"]
