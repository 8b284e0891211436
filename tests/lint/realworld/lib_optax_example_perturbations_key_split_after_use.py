# source: https://github.com/google-deepmind/optax/blob/2edbcbe2390da13983b92cbef94ac0460ecde1c5/examples/perturbations.ipynb
# observed on jax 0.10.2 CPU: with optax 0.2.8 the notebook's first part runs, but its keys
#   are consumed twice. The gradient cell evaluates loss_simplex on `rngs[1]`, the key the
#   loss cell has just drawn its Gumbel noise from; the gradient-descent loop hands
#   `rngs[1]` to the jitted gradient (which draws noise from it) and then, on the next
#   iteration, splits that same key to make the next pair; the cell after the loop splits
#   the key the last step drew from. The notebook uses raw uint32 keys, which JAX's checker
#   does not see; the `__main__` block repeats the same steps with typed keys holding the same
#   bits under `jax_debug_key_reuse`, and JAX raises KeyReuseError at each of the three
#   consumptions. Kept: the notebook's cells up to the one after the first gradient-descent
#   loop (the ranking and pytree parts are left out), with the two unused imports
#   (`tree_util`, `optax.tree`) dropped. Added: the `__main__` block.
# gap: other
import jax
import jax.numpy as jnp

from optax import perturbations

def argmax_one_hot(x, axis=-1):
  return jax.nn.one_hot(jnp.argmax(x, axis=axis), x.shape[axis])

values = jnp.array([-0.6, 1.9, -0.2, 1.1, -1.0])

one_hot_vec = argmax_one_hot(values)
print(one_hot_vec)

N_SAMPLES = 100
SIGMA = 0.5
GUMBEL = perturbations.Gumbel()

rng = jax.random.PRNGKey(1)
pert_one_hot = perturbations.make_perturbed_fun(fun=argmax_one_hot,
                                                num_samples=N_SAMPLES,
                                                sigma=SIGMA,
                                                noise=GUMBEL)

rngs = jax.random.split(rng, 2)

rng = rngs[0]

pert_argmax = pert_one_hot(rng, values)
print(f'computation with {N_SAMPLES} samples, sigma = {SIGMA}')
print(f'perturbed argmax = {pert_argmax}')
jax.nn.softmax(values/SIGMA)
soft_max = jax.nn.softmax(values/SIGMA)
print(f'softmax = {soft_max}')
print(f'square norm of softmax = {jnp.linalg.norm(soft_max):.2e}')
print(f'square norm of difference = {jnp.linalg.norm(pert_argmax - soft_max):.2e}')

# Example loss function

def loss_simplex(values, rng):
  n = values.shape[0]
  v_true = jnp.arange(n) + 2
  y_true = v_true / jnp.sum(v_true)
  y_pred = pert_one_hot(rng, values)
  return jnp.sum((y_true - y_pred) ** 2)

loss_simplex(values, rngs[1])

# Gradient of the loss w.r.t input values

gradient = jax.grad(loss_simplex)(values, rngs[1])  # expect: JIT502
print(gradient)

# Doing 200 steps of gradient descent on the values to have the desired ranks

steps = 200
values_t = values
eta = 0.5

grad_func = jax.jit(jax.grad(loss_simplex))

for t in range(steps):
  rngs = jax.random.split(rngs[1], 2)  # expect: JIT502
  values_t = values_t - eta * grad_func(values_t, rngs[1])

rngs = jax.random.split(rngs[1], 2)  # expect: JIT502

n = values.shape[0]
v_true = jnp.arange(n) + 2
y_true = v_true / jnp.sum(v_true)

print(f'initial values = {values}')
print(f'initial one-hot = {argmax_one_hot(values)}')
print(f'initial diff. one-hot = {pert_one_hot(rngs[0], values)}')
print()
print(f'values after GD = {values_t}')
print(f'ranks after GD = {argmax_one_hot(values_t)}')
print(f'diff. one-hot after GD = {pert_one_hot(rngs[1], values_t)}')
print(f'target diff. one-hot = {y_true}')


if __name__ == "__main__":
    import traceback

    jax.config.update("jax_debug_key_reuse", True)

    def raises_key_reuse_at(fn, lineno):
        try:
            fn()
        except Exception as e:
            assert type(e).__name__ == "KeyReuseError", e
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            assert frames[-1].lineno == lineno, frames
        else:
            raise AssertionError("no key reuse reported")

    # the same key bits as the notebook's, as typed keys the checker follows
    rngs = jax.random.split(jax.random.wrap_key_data(jax.random.PRNGKey(1)), 2)
    loss_simplex(values, rngs[1])
    # observed: line 63 draws again from the key the loss cell above it drew from
    raises_key_reuse_at(lambda: jax.grad(loss_simplex)(values, rngs[1]), 113)  # tolerate: JIT502

    rngs = jax.random.split(jax.random.wrap_key_data(jax.random.PRNGKey(7)), 2)
    values_t = values
    def two_steps():
        global rngs, values_t
        for t in range(2):
            rngs = jax.random.split(rngs[1], 2)  # tolerate: JIT502
            values_t = values_t - eta * grad_func(values_t, rngs[1])
    # observed: line 75 splits, on the second iteration, the key the first step's gradient drew from
    raises_key_reuse_at(two_steps, 120)

    rngs = jax.random.split(jax.random.wrap_key_data(jax.random.PRNGKey(9)), 2)
    values_t = values_t - eta * grad_func(values_t, rngs[1])
    # observed: line 78 splits the key the last step of the loop drew from
    raises_key_reuse_at(lambda: jax.random.split(rngs[1], 2), 128)  # tolerate: JIT502
