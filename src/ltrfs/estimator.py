"""The estimator protocol of selectors and rankers, without importing scikit-learn.

Constructors take hyperparameters only and store each under its own name, so
``get_params`` can read them back from the signature; that is all ``sklearn.base.clone``
and grid search need. (Importing scikit-learn costs over a second per workflow job, which on
small data is more than the job's work; wrappers of scikit-learn models import it themselves.)
"""
from __future__ import annotations

import inspect

from ltrfs.params import check_params


class Estimator:
    #: name -> list of accepted values (``ltrfs.params`` constraints, or None), one entry per
    #: constructor parameter; ``validate_params`` checks it
    """Base of rankers and selectors: scikit-learn's parameter conventions.

    The constructor takes hyperparameters only and stores each under its own name, so
    ``get_params``, ``set_params`` and ``sklearn.base.clone`` work.

    Attributes
    ----------
    parameters : dict
        Parameter name -> list of accepted values (``ltrfs.params`` constraints, or None), one
        entry per constructor parameter; :meth:`validate_params` checks it.
    """
    parameters: dict = {}
    #: the fitted attributes that scoring reads, written to code-free model files
    #: (``ltrfs.state``); None: the class has no code-free form (its files are signed pickles)
    state_attributes: tuple | None = None
    #: those of ``state_attributes`` a fitted model may lack (e.g. a linear model's intercept)
    optional_state_attributes: tuple = ()

    def check_state(self) -> None:
        """A one-line ValueError when attributes read back from a file do not fit together
        (subclasses check their shapes); called by ``ltrfs.state.estimator_from_state``."""

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self, deep: bool = True) -> dict:
        """The constructor parameters and their current values.

        Parameters
        ----------
        deep : bool, default True
            Accepted for scikit-learn compatibility (no nested estimators).

        Returns
        -------
        dict
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set constructor parameters by name.

        Parameters
        ----------
        **params
            Parameter name -> value.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For a name that is not a constructor parameter.
        """
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}; "
                                 f"valid: {', '.join(valid) or '(none)'}")
            setattr(self, name, value)
        return self

    def validate_params(self) -> None:
        """Raise a one-line ValueError for a bad hyperparameter value (checked before any run):
        each value against ``parameters``; subclasses add rules between parameters after
        ``super().validate_params()``."""
        check_params(self)

    def _check_fitted(self, attribute: str) -> None:
        """NotFittedError (a ValueError) unless ``fit`` has set ``attribute``."""
        if not hasattr(self, attribute):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit() first")

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class NotFittedError(ValueError, AttributeError):
    """An estimator was used before ``fit``."""


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at its iteration limit before its tolerance."""
