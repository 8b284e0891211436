# source: https://github.com/drclab/drclab.github.io/blob/8f53c7503987f6131624e8922a832368fe73bed5/content/posts/mcmc/jax/jax-302.md (a lab blog's post "JAX 302: Vectorized Programmable Inference in Practice", section 2, "First vectorization: model-level vmap": the noisy point generator mapped over the x values)
# observed on jax 0.10.2 CPU: point draws its noise from jax.random.PRNGKey(0), made afresh on
#   every call, so the vmapped curve adds the very same epsilon to every datapoint (all
#   residuals y - (a + b x + c x^2) are equal, one shared offset instead of independent noise),
#   and every call of curve, jitted or not, returns the same "noisy" curve.
# gap: other
# (added: the __main__ block, with 20 x values and a = 1, b = -2, c = 0.5)
import jax
import jax.numpy as jnp

def point(x, a, b, c, sigma=0.2):
    mean = a + b * x + c * x**2
    return mean + sigma * jax.random.normal(jax.random.PRNGKey(0), shape=())  # expect: JIT502

def curve(xs, a, b, c):
    return jax.vmap(lambda x: point(x, a, b, c))(xs)


if __name__ == "__main__":
    xs = jnp.linspace(-2.0, 2.0, 20)
    a, b, c = 1.0, -2.0, 0.5
    ys = curve(xs, a, b, c)
    residuals = ys - (a + b * xs + c * xs**2)

    # observed: line 13 every datapoint gets the noise drawn from the one constant key:
    # all twenty residuals are the same number
    assert jnp.allclose(residuals, residuals[0], atol=1e-5), residuals
    assert abs(float(residuals[0])) > 1e-3  # there is noise, the same for all points
    # another call, and a jitted one, draw the same "noise" again
    assert jnp.allclose(curve(xs, a, b, c), ys)
    assert jnp.allclose(jax.jit(curve)(xs, a, b, c), ys, atol=1e-5)
