"""A src/ layout: settings mutated from one module, read by traced code in another."""

from regress.core import fit_step, predict_step

__all__ = ["fit_step", "predict_step"]
