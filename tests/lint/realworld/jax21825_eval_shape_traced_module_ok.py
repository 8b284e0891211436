# source: https://github.com/jax-ml/jax/issues/21825
# observed on jax 0.10.2 CPU: with equinox 0.13.8 runs clean: `jax.eval_shape` of an
#   equinox module holding a traced array no longer compares the callable with `__eq__`
#   (on jax 0.4.29 it raised TracerBoolConversionError). The final assert is added.
# gap: exemption-vs-JAX
import equinox as eqx
import jax

class F(eqx.Module):
    x: jax.Array

    def __call__(self):
        return 1.

@jax.jit
def f(x):
    jax.eval_shape(F(x))

x = jax.numpy.arange(3)
f(x)
# jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].

if __name__ == "__main__":
    assert f(x) is None
