# source: https://github.com/bcolloran/deep_rl_experiments/blob/35ba2efb4f07e622f0606238bba2181cf5fb9b05/jax/jax_nn_utils.py (softmax_sample, used by Tree.softmax_sample_leaves_by_value in jax/trees.py of the same commit)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at the labelled `if cumprob > eps:`
# gap: flow-sensitive
# (the unused jax.ops import is dropped; the __main__ call with leaf value estimates is added)
import numpy

import jax
from jax import grad, jit, vmap
import jax.numpy as np
from jax import random


@jit
def relu(x):
    return np.maximum(0, x)


@jit
def softmax(x):
    e_x = np.exp(x - np.max(x))
    return e_x / e_x.sum()


def softmax_sample(x):
    return softmax_sample_jit(x, numpy.random.rand(1))


@jit
def softmax_sample_jit(x, eps):
    prob = softmax(x)
    cumprob = 0
    for i, p in enumerate(prob):
        cumprob += p
        if cumprob > eps:  # expect: JIT101
            return i


@jit
def normalize(x):
    return x / np.linalg.norm(x)


if __name__ == "__main__":
    leaf_value_ests = numpy.array([0.3, -1.2, 2.0, 0.5])
    print(softmax_sample(leaf_value_ests))
