# source: https://github.com/google/flax/issues/4709
# observed on jax 0.10.2 CPU: with flax 0.12.8, the reporter's example runs clean: `nnx.vmap`
#   maps `foo` over the inputs and the traced flags, `nnx.cond` picks `bar` (an `nnx.fori_loop`
#   over the model) for flags 0 and 1 and zeros for the rest. On flax 0.10.5 the reporter got
#   an error from `fori_loop` inside `cond` under `vmap`; on flax 0.12.8 it runs, and the code
#   itself has no jit bug. The reporter's `print(y)` is moved into the `__main__` block, which
#   also checks the rows.
# gap: exemption-vs-JAX
from flax import nnx
from jax import numpy as jnp


class Model(nnx.Module):
  def __init__(self, din, dout, rngs: nnx.Rngs):
    self.linear = nnx.Linear(din, dout, rngs=rngs)

  def __call__(self, x):
    return self.linear(x)


def foo(model, x, flag) :
    def bar(model, x) :
        def for_body(i, val):
            x, model = val
            return model(x), model

        x, _ = nnx.fori_loop(0,3, for_body, (x, model))
        return x

    x = nnx.cond(flag < 2, bar, lambda *_: jnp.zeros((dim,)), model, x)
    return x


dim = 4
batch_size = 5
model = Model(dim, dim, rngs=nnx.Rngs(0))
xs = jnp.ones((batch_size, dim))
flags = jnp.arange(batch_size)
y = nnx.vmap(foo, in_axes=(None,0,0))(model, xs, flags)


if __name__ == "__main__":
    print(y)
    expected = model(model(model(xs[0])))
    assert jnp.allclose(y[0], expected, atol=1e-6)
    assert jnp.allclose(y[1], expected, atol=1e-6)
    assert jnp.all(y[2:] == 0)
