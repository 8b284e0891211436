# source: https://github.com/jax-ml/jax/pull/22403 (the docstring example added to jnp.repeat,
#   as quoted in the review thread; `a` is the docstring's 2x2 example array, and the
#   assertion checks the output the docstring prints)
# observed on jax 0.10.2 CPU: runs clean: jnp.repeat jitted as it is traces `repeats`, but
#   axis and total_repeat_length are static_argnames, so the output size is known.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

a = jnp.array([[1, 2],
               [3, 4]])
repeats = jnp.array([2, 3])
jnp.repeat(a, repeats, axis=1)

jit_repeat = jax.jit(jnp.repeat, static_argnames=['axis', 'total_repeat_length'])
out = jit_repeat(a, repeats, axis=1, total_repeat_length=5)

if __name__ == "__main__":
    assert out.tolist() == [[1, 1, 2, 2, 2], [3, 3, 4, 4, 4]], out
