"""A module-level config dict read inside jit and mutated by the CLI entry point."""

import argparse

import jax
import jax.numpy as jnp

CONFIG = {"dropout": 0.1, "label_smoothing": 0.0}
LAYER_SIZES = [512, 256]


@jax.jit
def smooth_labels(labels, num_classes):
    eps = CONFIG["label_smoothing"]  # expect: JIT201
    one_hot = jax.nn.one_hot(labels, num_classes)  # expect: JIT404
    return one_hot * (1 - eps) + eps / num_classes


@jax.jit
def init_biases():
    return [jnp.zeros(n) for n in LAYER_SIZES]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--label-smoothing", type=float, default=0.0)
    args = parser.parse_args(argv)
    CONFIG["label_smoothing"] = args.label_smoothing
