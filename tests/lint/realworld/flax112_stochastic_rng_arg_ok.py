# source: https://github.com/google/flax/issues/112
# observed on jax 0.10.2 CPU: runs clean; the jitted rnd(rng) gives different numbers on each call
# gap: cross-module
# The reporter's working version ("# Works"): the key is an argument of the jitted function and
# the stochastic context is opened inside it. The old `flax.nn` API (nn.stochastic / nn.make_rng)
# no longer exists; the stand-in below copies flax/nn/stochastic.py of that time.
# Added: imports, the stand-in, the checks in the __main__ block.
import contextlib
import types

import jax
from jax import random

_prng_stack = []


class _PRNGFrame:
  def __init__(self, rng):
    self.base_rng = rng
    self.counter = 0

  def make_rng(self):
    self.counter += 1
    return random.fold_in(self.base_rng, self.counter)


@contextlib.contextmanager
def _stochastic(rng):
  _prng_stack.append(_PRNGFrame(rng))
  try:
    yield
  finally:
    _prng_stack.pop()


def _make_rng():
  if not _prng_stack:
    raise ValueError('Use the `nn.stochastic()` context manager to enable'
                     ' stochastic computations.')
  return _prng_stack[-1].make_rng()


nn = types.SimpleNamespace(stochastic=_stochastic, make_rng=_make_rng)


# Works
@jax.jit
def rnd(rng):
  with nn.stochastic(rng):
    return (jax.random.randint(nn.make_rng(), (5,), 0, 10),
            jax.random.randint(nn.make_rng(), (5,), 0, 10))


if __name__ == "__main__":
  outs = []
  with nn.stochastic(jax.random.PRNGKey(0)):
    for _ in range(5):
      out = rnd(nn.make_rng())
      print(out)
      outs.append(out)
  assert not all((o[0] == outs[0][0]).all() for o in outs)
  print("fresh numbers on every call")
