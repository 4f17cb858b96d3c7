"""The feed-forward scorer of the neural methods: built in PyTorch for training, kept and applied
as NumPy arrays (a model file needs no PyTorch to score).

``s(x) = w' g(... g(W_1' z + b_1) ...) + b`` with ``z = (x - mean) / scale`` (the training rows'
standardisation, kept in the model), ``g`` tanh or relu, ``hidden`` units per layer (three hidden
layers of 256 and the output layer: the four linear layers of Lyu et al.'s ranker, ECIR 2024).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from contextlib import contextmanager

import numpy as np

from ltrfs.neural import INSTALL_HINT

__all__ = ["ACTIVATIONS", "DEVICE_VARIABLE", "import_extra", "import_torch", "neural_device", "torch_session",
           "to_tensor", "to_numpy", "build_mlp", "linear_layers", "layer_arrays", "forward"]

#: the environment variable that chooses where the neural methods train: ``auto`` (the default: a
#: CUDA GPU when PyTorch sees one, else the CPU), ``cpu`` or ``cuda``
DEVICE_VARIABLE = "LTRFS_NEURAL_DEVICE"

#: the hidden layers' activation: name -> NumPy function (PyTorch's module of the same name trains)
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda h: np.maximum(h, 0.0)}


def import_extra(module: str, what: str, package: str):
    """The module ``module`` of the neural extra (imported on use: PyTorch and its packages are
    heavy), or a one-line ValueError: ``what`` needs ``package`` and how to install it, or, when
    the package is there but does not import, what failed.

    Parameters
    ----------
    module : str
        A dotted module name (``"torch"``, ``"lassonet.model"``).
    what : str
        The method that needs it.
    package : str
        Its name for people (``"PyTorch"``).

    Returns
    -------
    module
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if importlib.util.find_spec(module.split(".")[0]) is None:
            raise ValueError(f"{what} needs {package}: {INSTALL_HINT}") from None
        raise ValueError(f"{what}: {package} is installed but does not import ({exc}); {INSTALL_HINT}") from None


def import_torch(what: str):
    """The ``torch`` module, or a one-line ValueError naming ``what`` needs it and how to install it."""
    return import_extra("torch", what, "PyTorch")


def neural_device(torch, value: str | None = None):
    """The ``torch.device`` a fit trains on: ``value`` (default: the environment variable
    ``LTRFS_NEURAL_DEVICE``, else ``"auto"``), ``auto`` being a CUDA GPU when PyTorch sees one and
    the CPU otherwise; a one-line ValueError for another value or ``cuda`` without a GPU.

    Parameters
    ----------
    torch : module
    value : {"auto", "cpu", "cuda"} or None, default None

    Returns
    -------
    torch.device
    """
    value = os.environ.get(DEVICE_VARIABLE, "auto") if value is None else value
    if value not in ("auto", "cpu", "cuda"):
        raise ValueError(f"{DEVICE_VARIABLE}={value!r}: expected auto, cpu or cuda")
    has_gpu = bool(torch.cuda.is_available())
    if value == "cuda" and not has_gpu:
        raise ValueError(f"{DEVICE_VARIABLE}=cuda, but PyTorch {torch.__version__} sees no CUDA GPU")
    return torch.device("cuda" if value == "cuda" or (value == "auto" and has_gpu) else "cpu")


@contextmanager
def torch_session(what: str, seed: int, threads: int):
    """PyTorch seeded, on ``threads`` threads and with deterministic kernels, for one fit, on the
    device ``neural_device`` chooses (a GPU: the default device of the session, so the networks and
    the random draws are made there; cuBLAS in its deterministic workspace mode).

    The global random state, thread count and default device are restored afterwards
    (``torch.random.fork_rng``), so a fit changes nothing outside itself. On the CPU the default
    device is left alone (PyTorch's device mode costs every call) and a CPU fit is the same with or
    without a GPU in the machine; a GPU's kernels sum in other orders, so a fit there is repeatable
    on that GPU, not equal to the CPU's (the published tables are the CPU's: docs/neural.md).

    Parameters
    ----------
    what : str
        The method, named in the error when PyTorch is missing.
    seed : int
        PyTorch's seed inside the session.
    threads : int >= 1
        PyTorch's threads inside the session.

    Yields
    ------
    module
        ``torch``.
    """
    torch = import_torch(what)
    device = neural_device(torch)
    gpu = device.type == "cuda"
    if gpu:  # deterministic cuBLAS needs a fixed workspace (PyTorch's reproducibility notes)
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    threads_before = torch.get_num_threads()
    deterministic_before = torch.are_deterministic_algorithms_enabled()
    device_before = torch.get_default_device()
    torch.set_num_threads(int(threads))
    torch.use_deterministic_algorithms(True)
    try:
        with torch.random.fork_rng(devices=[torch.cuda.current_device()] if gpu else []):
            torch.manual_seed(int(seed))
            if gpu:
                torch.set_default_device(device)
            yield torch
    finally:
        if gpu:
            torch.set_default_device(device_before)
        torch.set_num_threads(threads_before)
        torch.use_deterministic_algorithms(deterministic_before)


def to_tensor(torch, array):
    """``torch.from_numpy(array)`` on the session's default device (the same memory on the CPU)."""
    return torch.from_numpy(array).to(torch.get_default_device())


def to_numpy(tensor):
    """The tensor's values as an ndarray, copied from a GPU (the same memory on the CPU)."""
    return tensor.detach().cpu().numpy()


def build_mlp(torch, d: int, hidden=(256, 256, 256), activation: str = "tanh", dropout: float = 0.0, out: int = 1):
    """``torch.nn.Sequential``: (Linear, activation[, Dropout]) per hidden layer, then Linear(., out).

    Weights start as PyTorch's default (Kaiming-uniform from the session's seed); dropout acts in
    training only.

    Parameters
    ----------
    torch : module
    d : int
        Inputs.
    hidden : sequence of int, default (256, 256, 256)
        Units of each hidden layer.
    activation : {"tanh", "relu"}, default "tanh"
    dropout : float in [0, 1), default 0.0
    out : int, default 1
        Outputs.

    Returns
    -------
    torch.nn.Sequential
    """
    nn = torch.nn
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers, width = [], int(d)
    for units in hidden:
        layers += [nn.Linear(width, int(units)), act()]
        if dropout:
            layers.append(nn.Dropout(float(dropout)))
        width = int(units)
    layers.append(nn.Linear(width, int(out)))
    return nn.Sequential(*layers)


def linear_layers(module) -> list:
    """The ``torch.nn.Linear`` layers of a module, in order."""
    import torch  # only called during a fit, when torch is there

    return [layer for layer in module.modules() if isinstance(layer, torch.nn.Linear)]


def layer_arrays(module) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Copies of the Linear layers' weights as float32 arrays: (coefs (in, out), intercepts (out,))."""
    layers = linear_layers(module)
    coefs = [to_numpy(layer.weight).T.astype(np.float32, copy=True) for layer in layers]
    intercepts = [to_numpy(layer.bias).astype(np.float32, copy=True) for layer in layers]
    return coefs, intercepts


def forward(coefs, intercepts, Z, activation: str = "tanh", chunk: int = 65536) -> np.ndarray:
    """Scores float64 (m,) of the MLP on standardised rows Z (m, d), in float64 (NumPy).

    Rows go through in blocks of ``chunk`` (the hidden activations of a block, not of all m rows,
    are held: 65,536 x 256 float64 is 128 MB).

    Parameters
    ----------
    coefs : list of ndarray (in, out)
        The layers' weights; the last has one column.
    intercepts : list of ndarray (out,)
    Z : ndarray (m, d)
    activation : {"tanh", "relu"}, default "tanh"
    chunk : int, default 65536
    """
    act = ACTIVATIONS[activation]
    Ws = [np.asarray(W, dtype=np.float64) for W in coefs]
    bs = [np.asarray(b, dtype=np.float64) for b in intercepts]
    out = np.empty(len(Z), dtype=np.float64)
    for start in range(0, len(Z), chunk):
        h = np.asarray(Z[start:start + chunk], dtype=np.float64)
        for i, (W, b) in enumerate(zip(Ws, bs)):
            h = h @ W + b
            if i < len(Ws) - 1:
                h = act(h)
        out[start:start + chunk] = h[:, 0]
    return out
