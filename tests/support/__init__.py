"""Helpers that more than one test folder uses, imported as ``tests.support.<module>``.

Plain functions and data only: fixtures stay in ``conftest.py`` files, where
pytest finds them, and no test module imports another test module.
"""
