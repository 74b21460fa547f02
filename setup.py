"""The build's one step beyond pyproject.toml: the engine's hot modules compiled with mypyc.

:mod:`packing.geometry`, :mod:`packing.state` and :mod:`packing.strategies.steps` (free
spaces, candidate blocks, the greedy completion) are compiled to C extension modules by
mypyc, from the same typed sources; the search runs about 1.3-2.6 times faster and plans
exactly as the plain modules do (README, "Compiled engine modules"). Without a C compiler, or with
``PACKPLAN_PURE_PYTHON=1`` set at install time, the package installs as plain Python.
"""

from __future__ import annotations

import os

from setuptools import setup

#: The modules compiled, as paths from the repository root.
COMPILED = ["packing/geometry.py", "packing/state.py", "packing/strategies/steps.py"]


def _extensions() -> list[object]:
    if os.environ.get("PACKPLAN_PURE_PYTHON"):
        return []
    from mypyc.build import mypycify

    # The build's environment lacks the runtime's packages and their stubs (NumPy, pandas,
    # PuLP are Any there): the modules the compiled ones import are read for their types but
    # not checked (the typecheck gate checks them with everything installed). One library
    # for the three, inside the package (not at the top of the tree).
    extensions = mypycify(
        ["--follow-imports=silent", *COMPILED], opt_level="3", group_name="packing._compiled"
    )
    for extension in extensions:
        # a machine without a C compiler installs the plain modules instead
        extension.optional = True
    return extensions


setup(ext_modules=_extensions())
