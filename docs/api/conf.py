"""Sphinx configuration of the API reference (``docs/api``), built from the docstrings.

Build it (warnings are errors, as in ``tests/test_docs.py``)::

    python -m sphinx -W --keep-going -b html docs/api docs/_build/html

Only autodoc is used: the docstrings are reStructuredText (``:class:`` / ``:func:`` roles, RST
tables generated at import time by :mod:`gamecore.kernel.layout`), except the env modules, whose
PettingZoo-style Markdown the local ``markdown_docstrings`` extension converts. No docstring uses
Google or NumPy sections, so napoleon is not needed. Importing the modules compiles no kernel
(numba compiles on the first call; autodoc reads a kernel's signature and docstring from the
Python function numba wraps, and never calls it). The game kernel modules (``<game>_env.rules``,
a module or a package) are not documented one by one: :mod:`gamecore.kernel.protocol` documents the
interface they implement.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's packages, even without an install
sys.path.insert(0, str(HERE / "_ext"))

project = "tabletop-rl-envs"
author = "tabletop-rl-envs contributors"
copyright = "tabletop-rl-envs contributors"  # noqa: A001  (Sphinx's name)
release = "0.1.0"

extensions = ["sphinx.ext.autodoc", "markdown_docstrings"]

# the docs build needs neither Ray nor any RL toolkit: gamecore.envs.rllib imports Ray at the top
autodoc_mock_imports = ["ray"]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
autoclass_content = "both"  # a class's docstring and its __init__'s
add_module_names = False
python_use_unqualified_type_names = True

# Every cross-reference inside the package must resolve (a wrong :class: / :func: role is an error);
# references to other projects' objects are not checked (no intersphinx: CI reaches no docs site).
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|numba|gymnasium|gym|pettingzoo|stable_baselines3|sb3_contrib|ray|torch)(\..*)?"),
    (r"py:.*", r"(Any|Callable|Iterable|Iterator|Sequence|Mapping|ModuleType|Path|Protocol|NDArray)"),
    (r"py:class", r"(collections|typing|types|pathlib|concurrent|dataclasses|argparse)\..*"),
    # a dataclass field with a default factory (``= <factory>``) splits its ``dict[str, int]`` at the comma
    (r"py:class", r"dict\[str"),
]

exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path: list[str] = []
html_show_sourcelink = False


#: the project's packages; a docstring inherited from anywhere else is that project's
PACKAGES = ("gamecore", "callisto_env", "calcada_env", "calimala_env", "cultivo_env")


def _kernel_note(app, what, name, obj, options, lines):  # noqa: ANN001, ANN202
    """Say so on a numba kernel: it is documented from its Python function, compiled on first call."""
    from numba.core.dispatcher import Dispatcher

    if isinstance(obj, Dispatcher):
        lines[:0] = ["*numba kernel* (:func:`gamecore.kernel.jit.jit`): compiled on its first call, then cached.", ""]


def _third_party_inherited(app, what, name, obj, options, lines):  # noqa: ANN001, ANN202
    """A method without a docstring of its own that overrides Gymnasium's, PettingZoo's or SB3's
    (``reset``, ``step``, ``render``...) would show that project's docstring, in that project's
    markup; point to it instead."""
    if what not in ("method", "property") or not lines:
        return
    owner_name, _, attr = name.rpartition(".")
    module_name, _, cls_name = owner_name.rpartition(".")
    cls = getattr(sys.modules.get(module_name), cls_name, None)
    if not isinstance(cls, type):
        return
    for klass in cls.__mro__:  # the first class in the MRO whose own member has a docstring wrote it
        member = vars(klass).get(attr)
        if getattr(getattr(member, "fget", member), "__doc__", None):
            if klass.__module__.split(".")[0] not in PACKAGES:
                lines[:] = [f"Overrides ``{klass.__module__}.{klass.__qualname__}.{attr}`` (documented there)."]
            return


def _dataclass_signature(app, what, name, obj, options, signature, return_annotation):  # noqa: ANN001, ANN202
    """A dataclass's generated ``__init__`` keeps the string annotations of a module with
    ``from __future__ import annotations`` unevaluated (``options: 'dict[str, Any]'``); unquote them."""
    if what == "class" and dataclasses.is_dataclass(obj) and signature:
        return re.sub(r": '([^']*)'", r": \1", signature), return_annotation
    return None


def _skip_modules(app, what, name, obj, skip, options):  # noqa: ANN001, ANN202
    """Leave out attributes whose value is a module (``GameSpec.kernels``, ``gamecore.kernel.jit.numba``):
    their value would show the build machine's file path."""
    return True if isinstance(obj, types.ModuleType) else None


def setup(app):  # noqa: ANN001, ANN201
    app.connect("autodoc-process-docstring", _kernel_note)
    app.connect("autodoc-process-docstring", _third_party_inherited)
    app.connect("autodoc-process-signature", _dataclass_signature)
    app.connect("autodoc-skip-member", _skip_modules)
