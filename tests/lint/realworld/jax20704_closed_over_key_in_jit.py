# source: https://github.com/jax-ml/jax/issues/20704 (the example in the description)
# observed on jax 0.10.2 CPU: with jax_debug_key_reuse on, the second call of f now raises
#   KeyReuseError ("Previously-consumed key passed to
#   jit-compiled function"): the closed-over key was consumed by the first call and is
#   drawn from again. The bug is the jitted draw from a closed-over key, which the second
#   call repeats.
# gap: other
import jax
jax.config.update('jax_debug_key_reuse', True)

key = jax.random.key(0)

@jax.jit
def f():
  return jax.random.bits(key)  # tolerate: JIT502

f()
f()  # Should error but doesn't.  # expect: JIT502
