# source: https://github.com/jax-ml/jax/issues/9633 ("vmap gives wrong values when applied to a
#   piecewise linear function", opened from the Q&A discussion
#   https://github.com/jax-ml/jax/discussions/9632): the reporter's `line` and `f`, a
#   jnp.piecewise whose conditions and "functions" are arrays computed from the traced `x`
# observed on jax 0.10.2 CPU: vmap(g) over the sweep, jit(vmap(g)), and the reporter's list
#   comprehension of g(x) agree (the thread's bug, vmap disagreeing with the comprehension, no
#   longer occurs). Kept verbatim: `line`, `f`, the constants and `g`. Removed: the matplotlib
#   import (not installed; the plot is replaced by a comparison). Added: the `__main__` block,
#   whose sweep `jnp.linspace(0, jnp.pi, 100)` completes the thread's `x_sweep =
#   jnp.linspace(0, jnp.pi` (the rest of its plotting cell is not stored).
# gap: other
import jax.numpy as jnp
from jax import vmap

def line(x, x0, y0, x1, y1):
    return (y1-y0)/(x1-x0)*x+(x0*y1-x1*y0)/(x0-x1)

def f(x, xmax, ymax, plato):

    segments = [x <= plato,
                (plato < x) & (x <= xmax - plato),
                (xmax - plato < x) & (x <= xmax + plato),
                (xmax + plato < x) & (x <= jnp.pi - plato),
                (jnp.pi - plato < x) & (x <= jnp.pi)
                ]

    functions = [line(x, 0, 0, plato, 0),
                 line(x, plato, 0, xmax - plato, ymax),
                 line(x, xmax - plato, ymax, xmax + plato, ymax),
                 line(x, xmax + plato, ymax, jnp.pi - plato, 1),
                 line(x, jnp.pi - plato, 1, jnp.pi, 1)]

    return jnp.piecewise(x, segments, functions)

xmax = jnp.pi/2
ymax = 2
plato=0.1

g = lambda x: f(x, xmax, ymax, plato)


if __name__ == "__main__":
    import jax
    import numpy as np

    x_sweep = jnp.linspace(0, jnp.pi, 100)
    by_vmap = vmap(g)(x_sweep)
    by_loop = jnp.array([g(x) for x in x_sweep])
    by_jit = jax.jit(vmap(g))(x_sweep)
    np.testing.assert_allclose(by_vmap, by_loop, atol=1e-6)
    np.testing.assert_allclose(by_jit, by_loop, atol=1e-6)
    # the plateau at ymax around xmax, and 0 below plato
    assert float(jax.jit(g)(jnp.float32(xmax))) == 2.0
    assert float(jax.jit(g)(jnp.float32(0.05))) == 0.0
