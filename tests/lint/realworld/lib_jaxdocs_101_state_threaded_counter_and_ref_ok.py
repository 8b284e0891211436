# source: https://github.com/jax-ml/jax/blob/26007fdd68c8e9b91f837dadc9d2822af7b2d3c4/docs/101/state.md
#   (the page's fixes for state under jit: CounterV2, which threads its count through
#   arguments and results; the training `update` that threads params and optimizer state;
#   and the jitted `f` that writes a Ref. The page's stateful Counter and the cells marked
#   raises-exception are left out; its `jax.jit(...).trace(0).jaxpr` cell is left out too)
# observed on jax 0.10.2 CPU: runs clean: the jitted CounterV2.count returns 1, 2, 3 as the
#   state is threaded, the jitted update gives the eager result (y = 2x + 1 fitted), and the
#   two calls of the jitted f leave the Ref at [0, 2, 0]. Added: the `__main__` block that
#   runs count and update under jax.jit and checks all three.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

CounterState = int

class CounterV2:

  def count(self, n: CounterState) -> tuple[int, CounterState]:
    # You could just return n+1 once, but here we separate its role as
    # the output and as the counter state for didactic purposes.
    return n + 1, n + 1

  def reset(self) -> CounterState:
    return 0

counter = CounterV2()
state = counter.reset()

for _ in range(3):
  value, state = counter.count(state)
  print(value)


def update(params, opt_state, batch):
  """One training step: consume state, produce new state."""
  grads = jax.grad(loss_fn)(params, batch)
  new_params, new_opt_state = optimizer_step(params, grads, opt_state)
  return new_params, new_opt_state

def loss_fn(params, batch):
  x, y = batch
  return jnp.mean((params['w'] * x + params['b'] - y) ** 2)

def optimizer_step(params, grads, opt_state, lr=0.1, decay=0.9):
  # gradient descent with momentum: the momentum is optimizer state
  new_opt_state = jax.tree.map(
      lambda m, g: decay * m + g, opt_state, grads)
  new_params = jax.tree.map(
      lambda p, m: p - lr * m, params, new_opt_state)
  return new_params, new_opt_state

params = {'w': jnp.float32(1.0), 'b': jnp.float32(0.0)}
opt_state = jax.tree.map(jnp.zeros_like, params)
batch = (jnp.array([1.0, 2.0, 3.0]), jnp.array([3.0, 5.0, 7.0]))

for step in range(100):
  params, opt_state = update(params, opt_state, batch)

print(jax.tree.map(lambda x: round(float(x), 2), params))  # fits y = 2x + 1


x_ref = jax.new_ref(jnp.zeros(3))  # new array ref, with initial value [0., 0., 0.]

@jax.jit
def f():
  x_ref[1] += 1.  # indexed add-update

print(x_ref)  # Ref([0., 0., 0.])
f()
f()
print(x_ref)  # Ref([0., 2., 0.])


if __name__ == "__main__":
  count = jax.jit(counter.count)
  n = counter.reset()
  values = []
  for _ in range(3):
    v, n = count(n)
    values.append(int(v))
  assert values == [1, 2, 3], values

  jupdate = jax.jit(update)
  p = {'w': jnp.float32(1.0), 'b': jnp.float32(0.0)}
  o = jax.tree.map(jnp.zeros_like, p)
  for _ in range(100):
    p, o = jupdate(p, o, batch)
  assert abs(float(p['w']) - float(params['w'])) < 1e-4
  assert abs(float(p['b']) - float(params['b'])) < 1e-4

  assert jnp.array_equal(x_ref[...], jnp.array([0.0, 2.0, 0.0]))
