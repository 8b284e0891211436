# source: https://github.com/tensorflow/probability/issues/1633
# observed on jax 0.10.2 CPU with tfp-nightly 0.26.0.dev20261027: runs clean. The report's
#   `jax.jit(f)()` (a Transpose bijector built inside jit and returned) and the follow-up
#   `jax.jit(f)(a)` calling `tr.forward(a)` raised NotImplementedError and
#   TracerArrayConversionError on tfp 0.18; TFP fixed the substrate, and the static
#   `rightmost_transposed_ndims=2` (a Python int, not an argument) now stays concrete.
#   Added: the imports of `jnp`, and a __main__ block that runs the three calls of the
#   thread (the second `f` of the follow-up renamed `f_forward`).
# gap: other
# unverifiable: needs tensorflow_probability (tfp-nightly on jax 0.10.2), which the test extra does not install (verified when collected, on jax 0.10.2 with tensorflow_probability (tfp-nightly on jax 0.10.2) installed)
import jax # 0.3.17
import jax.numpy as jnp
import tensorflow_probability.substrates.jax.bijectors as tfb # 0.18.0

def f():
    return tfb.Transpose(rightmost_transposed_ndims=2)

tr = tfb.Transpose(rightmost_transposed_ndims=2)
def g():
    return tr


def f_forward(a):
    tr = tfb.Transpose(rightmost_transposed_ndims=2)
    return tr.forward(a)


if __name__ == "__main__":
    jax.jit(f)()
    jax.jit(g)()
    a = jnp.arange(6.0).reshape(2, 3)
    assert jnp.array_equal(jax.jit(f_forward)(a), a.T)
