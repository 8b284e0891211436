# source: https://github.com/google-deepmind/optax/blob/bcda8a21e52a906a737b98c39e1a189bd54a8d25/examples/lbfgs.ipynb
#   (the imports cell, `run_opt` and the Rosenbrock cell that calls it)
# observed on jax 0.10.2 CPU: with optax 0.2.8 runs clean: the stopping test reads the
#   iteration count and gradient from the traced optimizer state with `|` and `&` inside
#   `lax.while_loop`, and the same function also runs under `jax.jit` with `fun` and `opt`
#   static and `max_iter`/`tol` traced (one compilation for two tolerances).
# gap: exemption-vs-JAX
from typing import NamedTuple

import jax
import jax.numpy as jnp
import jax.random as jrd

import optax
import optax.tree

def run_opt(init_params, fun, opt, max_iter, tol):
  value_and_grad_fun = optax.value_and_grad_from_state(fun)

  def step(carry):
    params, state = carry
    value, grad = value_and_grad_fun(params, state=state)
    updates, state = opt.update(
        grad, state, params, value=value, grad=grad, value_fn=fun
    )
    params = optax.apply_updates(params, updates)
    return params, state

  def continuing_criterion(carry):
    _, state = carry
    iter_num = optax.tree.get(state, 'count')
    grad = optax.tree.get(state, 'grad')
    err = optax.tree.norm(grad)
    return (iter_num == 0) | ((iter_num < max_iter) & (err >= tol))

  init_carry = (init_params, opt.init(init_params))
  final_params, final_state = jax.lax.while_loop(
      continuing_criterion, step, init_carry
  )
  return final_params, final_state

def fun(w):
  return jnp.sum(100.0 * (w[1:] - w[:-1] ** 2) ** 2 + (1.0 - w[:-1]) ** 2)

opt = optax.lbfgs()
init_params = jnp.zeros((8,))
print(
    f'Initial value: {fun(init_params):.2e} '
    f'Initial gradient norm: {optax.tree.norm(jax.grad(fun)(init_params)):.2e}'
)
final_params, _ = run_opt(init_params, fun, opt, max_iter=100, tol=1e-3)
print(
    f'Final value: {fun(final_params):.2e}, '
    f'Final gradient norm: {optax.tree.norm(jax.grad(fun)(final_params)):.2e}'
)


if __name__ == "__main__":
  jitted = jax.jit(run_opt, static_argnums=(1, 2))
  p1, _ = jitted(init_params, fun, opt, 100, 1e-3)
  p2, _ = jitted(init_params, fun, opt, 100, 1e-1)
  assert jitted._cache_size() == 1
  assert jnp.allclose(p1, final_params, atol=1e-4)
  assert fun(p1) < fun(init_params)
