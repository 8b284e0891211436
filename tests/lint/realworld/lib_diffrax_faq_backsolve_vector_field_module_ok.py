# source: https://github.com/patrick-kidger/diffrax/blob/v0.7.2/docs/further_details/faq.md
#   ("I'm getting a CustomVJPException": the corrected version of the FAQ's example)
# observed on jax 0.10.2 CPU (diffrax 0.7.2, equinox 0.13.8): runs clean under
#   eqx.filter_jit(eqx.filter_value_and_grad(...)): the MLP reaches the vector field as a
#   field of an eqx.Module inside the `terms` pytree, so BacksolveAdjoint differentiates
#   it; the local VectorField built in the traced function is a pytree, not a closure.
#   Added: the __main__ block that checks the gradient's structure.
# gap: exemption-vs-JAX
from diffrax import BacksolveAdjoint, diffeqsolve, Euler, ODETerm
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jr

mlp = eqx.nn.MLP(1, 1, 8, 2, key=jr.PRNGKey(0))

class VectorField(eqx.Module):
    model: eqx.Module

    def __call__(self, t, y, args):
        return self.model(y)

@eqx.filter_jit
@eqx.filter_value_and_grad
def run(model):
  f = VectorField(model)
  sol = diffeqsolve(ODETerm(f), Euler(), 0, 1, 0.1, jnp.array([1.0]), adjoint=BacksolveAdjoint())
  return jnp.sum(sol.ys)

run(mlp)


if __name__ == "__main__":
    value, grads = run(mlp)
    assert value.shape == ()
    assert grads.layers[0].weight.shape == mlp.layers[0].weight.shape
    assert bool(jnp.all(jnp.isfinite(grads.layers[0].weight)))
