# source: https://github.com/google/flax/issues/112
# observed on jax 0.10.2 CPU: silent misbehaviour: every call of the jitted rnd() returns the same two "random" vectors, because nn.make_rng() runs only at trace time
# gap: cross-module
# The old `flax.nn` API (nn.stochastic / nn.make_rng) no longer exists; the stand-in below
# copies flax/nn/stochastic.py of that time (a global stack of _PRNGFrame, fold_in with a
# Python counter). Added: imports, the stand-in, the result checks in the __main__ block.
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
    self.counter += 1  # tolerate: JIT202
    return random.fold_in(self.base_rng, self.counter)  # tolerate: JIT201


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


# Doesn't work:
@jax.jit
def rnd():
  return (jax.random.randint(nn.make_rng(), (5,), 0, 10),  # expect: JIT502 # tolerate: JIT201
          jax.random.randint(nn.make_rng(), (5,), 0, 10))  # expect: JIT502 # tolerate: JIT201


if __name__ == "__main__":
  outs = []
  with nn.stochastic(jax.random.PRNGKey(0)):
    for _ in range(5):
      out = rnd()
      print(out)
      outs.append(out)
  # observed: line 48 the first draw is identical on all 5 calls
  assert all((o[0] == outs[0][0]).all() for o in outs)
  # observed: line 49 the second draw is identical on all 5 calls
  assert all((o[1] == outs[0][1]).all() for o in outs)
  # without jit the same context gives fresh numbers on every call
  with nn.stochastic(jax.random.PRNGKey(0)):
    eager = [rnd.__wrapped__() for _ in range(2)]
  assert not (eager[0][0] == eager[1][0]).all()
  print("same numbers on every jitted call")
