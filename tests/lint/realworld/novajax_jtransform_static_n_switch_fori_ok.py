# source: https://github.com/Vodolay/NovaJax/blob/1f62b16b456b4539d949b00070c5f15e55e507b8/jtransform.ipynb
#   (a JAX learning notebook: `selu` jitted, `summer` with its loop count static, and the
#   lax.switch and lax.fori_loop cells)
# observed on jax 0.10.2 CPU: runs clean: `range(n)` in summer reads the static_argnums
#   value, lax.switch takes the traced index and lax.fori_loop the traced bound n; values as
#   the notebook shows (10., 10., 19., [5. 5. 5.]). Changed: the `%timeit` lines are plain
#   calls; added: the __main__ block, which checks the values and that summer_jit traces
#   once per n.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import jax.lax as lax

def selu(x, alpha=1.67, lambda_=1.05):
  return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

x = jnp.arange(1000000)
selu(x).block_until_ready()

selu_jit = jax.jit(selu)

# Warm up
selu_jit(x).block_until_ready()

selu_jit(x).block_until_ready()

def summer(x, n):
  y = 0.
  for i in range(n):
    y = y + x[i]
  return y

summer_jit = jax.jit(summer, static_argnums=(1,))

summer_jit(jnp.array([1,2,3,4,5,6,7,8,9,0]), 4)

@jax.jit
def one_of_three(index, arg):
  return lax.switch(index, [lambda x: x + 1.,
                            lambda x: x - 2.,
                            lambda x: x + 3.], arg)

one_of_three(2, 7)

one_of_three(0, 18)

@jax.jit
def adder(arg, n):
  ones = jnp.ones(arg.shape)
  return lax.fori_loop(0, n,
                       lambda i, carry: carry + ones, ones)

adder(jnp.ones(3), 4)


if __name__ == "__main__":
    assert jnp.allclose(selu_jit(x[:5]), selu(x[:5]))
    assert float(summer_jit(jnp.array([1,2,3,4,5,6,7,8,9,0]), 4)) == 10.0
    assert float(summer_jit(jnp.array([1,2,3,4,5,6,7,8,9,0]), 4)) == 10.0
    assert summer_jit._cache_size() == 1
    assert float(one_of_three(2, 7)) == 10.0
    assert float(one_of_three(0, 18)) == 19.0
    assert float(one_of_three(1, 5.)) == 3.0
    assert adder(jnp.ones(3), 4).tolist() == [5.0, 5.0, 5.0]
    assert adder(jnp.ones(3), 6).tolist() == [7.0, 7.0, 7.0]
    assert adder._cache_size() == 1
