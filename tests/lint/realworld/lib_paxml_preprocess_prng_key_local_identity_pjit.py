# source: https://github.com/google/paxml/blob/e5bebb78635d042b1212703d3a31d81ca61ca2fa/paxml/partitioning.py
#   (PjitPartitioner.preprocess_prng_key before commit e4fad960 "Move the `_identity`
#   function to a global scope so it isn't recompiled every time `preprocess_prng_key` is
#   called.")
# observed on jax 0.10.2 CPU: every call of preprocess_prng_key defines a new `_identity`
#   and pjits it, so each call traces and compiles the identity again (three calls after
#   the first: three more backend compiles, counted through jax.monitoring). Kept verbatim:
#   preprocess_prng_key. Stand-ins: PjitPartitioner keeps only the two attributes the
#   method reads (`_global_mesh`, a one-axis mesh over the CPU devices, and
#   `_broadcast_key_fn = None`, as its __init__ sets them); paxml is not installed.
# gap: per-call-recompile
import jax
from jax.experimental import pjit

PRNGKey = jax.Array


class PjitPartitioner:
  """Stand-in: the attributes preprocess_prng_key reads."""

  def __init__(self):
    self._global_mesh = jax.sharding.Mesh(jax.devices(), ('replica',))
    self._broadcast_key_fn = None

  def preprocess_prng_key(self, prng_key: PRNGKey) -> PRNGKey:
    """Preprocess the key before using it to run the partitioned function."""
    if not self._broadcast_key_fn:
      # The prng keys are already created on device with jax.random.split. We
      # broadcast it with an identity pjit function to avoid doing it in the
      # loop where a multi-slice program could be generated.
      def _broadcast_key(k):
        def _identity(x):
          return x

        rep_sharding = jax.sharding.NamedSharding(
            self._global_mesh, jax.sharding.PartitionSpec()
        )
        return pjit.pjit(  # expect: JIT301
            _identity, in_shardings=rep_sharding, out_shardings=rep_sharding
        )(k)

      self._broadcast_key_fn = _broadcast_key

    return self._broadcast_key_fn(prng_key)


if __name__ == '__main__':
  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda name, secs, **kw: compiles.append(name)
      if name == '/jax/core/compile/backend_compile_duration' else None)

  partitioner = PjitPartitioner()
  keys = list(jax.random.split(jax.random.PRNGKey(0), 4))
  partitioner.preprocess_prng_key(keys[0])
  before = len(compiles)
  for k in keys[1:]:
    partitioner.preprocess_prng_key(k)
  # observed: line 38 compiles the identity again on every call
  assert len(compiles) - before == 3, len(compiles) - before
