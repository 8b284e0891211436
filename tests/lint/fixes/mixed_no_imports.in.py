#!/usr/bin/env python
# Copyright header comment.
from jax import jit
import numpy as np


@jit
def f(x):
    print("value", x)
    return np.sqrt(x)
