# source: https://github.com/jax-ml/jax/pull/1133 (the PRNGKeySequence helper the pull request
#   proposed, as quoted in mattjj's review comment "Here's an example:"; the thread's driver
#   code after the class is cut in the stored copy)
# observed on jax 0.10.2 CPU: next_key() rebinds self._key as a side effect; called inside a
#   jitted function it runs once, at trace time, and stores a tracer on the object: two calls
#   of the jitted function draw the same number, and keys._key is a leaked tracer afterwards.
#   Added: the imports of jax/jit/random, a stand-in for the thread's `is_prng_key` (not shown
#   in the comment), and the __main__ block that jits a draw through the sequence.
# gap: stale-state-attributes
import jax
from jax import jit, random
from jax.random import PRNGKey, split


def is_prng_key(key):  # stand-in: the comment does not show this helper
  return getattr(key, "shape", None) == (2,)


class PRNGKeySequence(object):
  """A simple wrapper class for the PRNG split functionality."""

  def __init__(self, key=None):
    if key is None or not is_prng_key(key):
      key = PRNGKey(0)
    self._key = key

  def next_key(self):
    """Splits the current key into two, returning one and storing the other.

    Returns:
      A PRNG key obtained by splitting an internal key.
    """
    self._key, subkey = split(self._key)  # expect: JIT202
    return subkey


if __name__ == "__main__":
  keys = PRNGKeySequence()

  @jit
  def f(x):
    return x + random.normal(keys.next_key())

  a = float(f(0.))
  b = float(f(0.))
  # observed: line 33 runs once, while f is traced: both calls draw the same number and
  # the object keeps a tracer in _key
  assert a == b, (a, b)
  assert isinstance(keys._key, jax.core.Tracer)
