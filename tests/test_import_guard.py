"""Importing paperzoo and listing plugins stays light: no torch, jax or flax.

Runs in a subprocess with every installed plugin (in ``nox -s tests`` that is
every first-party package), so a plugin whose ``plugin.py`` imports a heavy
framework at module level fails here.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from paperzoo.testing import HEAVY_MODULES

HEAVY = sorted(HEAVY_MODULES - {"numpy"})  # numpy is checked on its own below

IMPORT_ONLY = """
import json, sys
import paperzoo
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r} or m == 'numpy')))
"""

PLUGINS_COMMAND = """
import json, sys, io, contextlib
from paperzoo.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["plugins", "--json"])
    main(["list", "--json"])
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})))
"""


def _modules(code: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code.format(heavy=set(HEAVY))], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_paperzoo_loads_no_framework_not_even_numpy() -> None:
    assert _modules(IMPORT_ONLY) == []


def test_plugins_and_list_commands_load_no_framework() -> None:
    assert _modules(PLUGINS_COMMAND) == []


def test_import_time_under_150_ms() -> None:
    """Cumulative import time of ``paperzoo`` (``python -X importtime``), best of 3."""
    best = float("inf")
    for _ in range(3):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import paperzoo"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        match = re.search(r"^import time:\s+\d+ \|\s+(\d+) \| paperzoo$", err, re.MULTILINE)
        assert match, err[-500:]
        best = min(best, int(match.group(1)) / 1000)
    assert best < 150, f"import paperzoo took {best:.1f} ms"
