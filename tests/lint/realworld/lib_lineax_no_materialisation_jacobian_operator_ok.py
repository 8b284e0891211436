# source: https://github.com/patrick-kidger/lineax/blob/v0.1.1/docs/examples/no_materialisation.ipynb
#   (the example's code cell)
# observed on jax 0.10.2 CPU (lineax 0.1.1, equinox 0.13.8, jaxtyping 0.3.11): runs clean.
#   `f` unpacks the array `y` into three scalars (`y0, y1, y2 = y`, iteration over a fixed
#   length) and the JacobianLinearOperator is solved matrix-free with Normal(CG); the
#   __main__ block runs the same solve again with `y` traced under jax.jit, where the
#   unpacking still works, and compares the two solutions. Added: the __main__ block.
# gap: exemption-vs-JAX
import jax.numpy as jnp
import lineax as lx
from jaxtyping import Array, Float  # https://github.com/google/jaxtyping


def f(y: Float[Array, "3"], args) -> Float[Array, "3"]:
    y0, y1, y2 = y
    f0 = 5 * y0 + y1**2
    f1 = y1 - y2 + 5
    f2 = y0 / (1 + 5 * y2**2)
    return jnp.stack([f0, f1, f2])


y = jnp.array([1.0, 2.0, 3.0])
operator = lx.JacobianLinearOperator(f, y, args=None)
vector = f(y, args=None)
solver = lx.Normal(lx.CG(rtol=1e-6, atol=1e-6))
solution = lx.linear_solve(operator, vector, solver)


if __name__ == "__main__":
    import jax

    @jax.jit
    def solve(y):
        operator = lx.JacobianLinearOperator(f, y, args=None)
        vector = f(y, args=None)
        return lx.linear_solve(operator, vector, solver).value

    out = solve(y)
    assert jnp.allclose(out, solution.value, atol=1e-4), (out, solution.value)
    assert jnp.allclose(operator.mv(out), vector, atol=1e-3)
