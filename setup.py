"""The build's one step beyond pyproject.toml: the engine's hot modules compiled with mypyc.

:mod:`packing.geometry`, :mod:`packing.state` and :mod:`packing.strategies.steps` (free
spaces, candidate blocks, the greedy completion) are compiled to C extension modules by
mypyc, from the same typed sources; the search runs about 1.3-2.6 times faster and plans
exactly as the plain modules do (README, "Compiled engine modules"). The SHA-256 of each
source compiled goes to ``packing/_compiled_sources.json``, which :mod:`packing.compiled`
compares with the sources at import. Without a C compiler, or with
``PACKPLAN_PURE_PYTHON`` set (to anything but 0) at install time, the package installs as
plain Python.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from setuptools import setup

#: The modules compiled, as paths from the repository root.
COMPILED = ["packing/geometry.py", "packing/state.py", "packing/strategies/steps.py"]
#: What was compiled: each source's SHA-256 (read by packing/compiled.py).
RECORD = Path("packing/_compiled_sources.json")


def _extensions() -> list[object]:
    RECORD.unlink(missing_ok=True)
    if os.environ.get("PACKPLAN_PURE_PYTHON", "0") not in ("", "0"):
        return []
    from mypyc.build import mypycify

    # The build's environment lacks the runtime's packages and their stubs (NumPy, pandas,
    # PuLP are Any there): the modules the compiled ones import are read for their types but
    # not checked, and an ignore comment the typecheck gate needs is no error here (the gate
    # checks everything with all installed). One library for the three, inside the package
    # (not at the top of the tree).
    extensions = mypycify(
        ["--follow-imports=silent", "--no-warn-unused-ignores", *COMPILED],
        opt_level="3",
        group_name="packing._compiled",
    )
    for extension in extensions:
        # a machine without a C compiler installs the plain modules instead
        extension.optional = True
    RECORD.write_text(
        json.dumps({p: hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in COMPILED})
    )
    return extensions


setup(ext_modules=_extensions())
