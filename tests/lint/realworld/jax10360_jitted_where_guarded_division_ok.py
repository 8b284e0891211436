# source: https://github.com/jax-ml/jax/issues/10360 (the report's jitted f_jit, and mattjj's
#   answer: the un-jitted f failed only because `1. / (x - 1.)` was Python float division;
#   given a JAX array it runs too)
# observed on jax 0.10.2 CPU: runs clean; f_jit(1.) returns 0.0 (jnp.where under jit computes
#   both branches, the unselected one is inf), and f(jnp.array(1.)) returns 0.0 as well.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


@jax.jit
def f_jit(x):
    return jnp.where(jnp.abs(x) < 1., 1. / (x - 1.), 0.)


def f(x):
    print(jnp.abs(x) < 1.)
    return jnp.where(jnp.abs(x) < 1., 1. / (x - 1.), 0.)


if __name__ == "__main__":
    assert float(f_jit(1.)) == 0.0
    assert float(f_jit(0.5)) == -2.0
    assert float(f(jnp.array(1.))) == 0.0
