import pytest

from tipc.config.model import Field
from tipc.plan.interpreter import resolve_python


def ON_PATH(name: str) -> str:
    return "" if name == "python3.7" else "is not on PATH"


@pytest.mark.parametrize(
    "value, override, python, note",
    [
        ("python3.7", "/opt/py", "/opt/py", "python: /opt/py (from --python)"),
        ("python3.7", None, "python3.7", "python: python3.7 (from the config, line 3, found on PATH)"),
        (
            "python3.10",
            None,
            "/venv/python",
            "python: /venv/python (the config's 'python3.10' (line 3) is not on PATH; using the interpreter running tipc; --python PY chooses another)",
        ),
        ("null", None, "/venv/python", "python: /venv/python (the config's python (line 3) is empty)"),
    ],
    ids=["override-wins", "config-on-path", "config-missing", "config-null"],
)
def test_resolve_python(value, override, python, note):
    assert resolve_python(Field("python", value, 3), override, check=ON_PATH, fallback="/venv/python") == (python, note)
