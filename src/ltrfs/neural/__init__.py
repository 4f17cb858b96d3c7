"""The neural methods' shared parts: ranking losses on a flat list of queries (NumPy; no PyTorch
needed), the feed-forward scorer and its training loop (PyTorch, the optional extra
``pip install -e ".[neural]"``; docs/neural.md).

PyTorch is imported only when a neural method is fitted (``ltrfs.neural.network.import_torch``):
the base install imports and lists every method without it, and a fitted model is read and
scores with NumPy alone.
"""
from __future__ import annotations

import importlib.util

__all__ = ["NEURAL_METHODS", "EXTRA_MODULES", "extra_installed", "INSTALL_HINT"]

#: the rankers and selectors that need PyTorch (configs and tests ask here without importing them)
NEURAL_METHODS = frozenset({"mlp", "g_l2x", "l2x", "invase", "concrete_autoencoder", "tabnet", "lassonet",
                            "ifg"})

#: how to get the extra (one line, for notices and errors)
INSTALL_HINT = 'pip install -r envs/neural.lock, or pip install -e ".[neural]" (docs/neural.md)'


#: the modules the extra installs: PyTorch, and the maintained packages TabNet and LassoNet come from
EXTRA_MODULES = ("torch", "pytorch_tabnet", "lassonet")

#: the modules a neural method needs beyond PyTorch
_OWN_MODULES = {"tabnet": ("pytorch_tabnet",), "lassonet": ("lassonet",)}


def extra_installed(method: str | None = None) -> bool:
    """Whether a neural method's modules (PyTorch, and pytorch-tabnet or lassonet for those two)
    can be imported, or with ``method`` None the whole extra's (``EXTRA_MODULES``); looked up,
    not imported: cheap."""
    modules = EXTRA_MODULES if method is None else ("torch", *_OWN_MODULES.get(method, ()))
    return all(importlib.util.find_spec(module) is not None for module in modules)
