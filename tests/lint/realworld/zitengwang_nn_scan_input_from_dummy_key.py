# source: https://github.com/ZitengWangNYU/JAX_FLAX/blob/1713c3953fbc754d009f8b64e5e064c628709466/nn_scan.ipynb
#   (a user's notebook comparing a Python loop of flax blocks with nn.scan under jax.jit;
#   code cells 1-5)
# observed on jax 0.10.2 CPU: after `rng, init_rng = jax.random.split(rng)` both the dummy
#   input and the benchmark input are drawn from the same `rng`, so input[0] equals
#   dummy_input[0] (threefry is partitionable on 0.10.2): the first benchmark example is the
#   init example. The jitted applies themselves run correctly. Changed: the sizes
#   (BATCH_SIZE 8 -> 2, SEQ_LEN 32 -> 4, HIDDEN_DIM 1024 -> 16, LAYERS 42 -> 3) so that the
#   file runs quickly on CPU; the IPython `%load_ext autoreload` / `%autoreload 2` lines and the
#   cells' bare display expressions are left out. Added: the __main__ check.
# gap: other
import timeit

import jax
import flax.linen as nn
import jax.numpy as jnp

def measure_time(fn, params, input, num_runs=5):
  total_time = timeit.timeit(
    lambda: jax.tree.map(lambda x: x.block_until_ready(), fn(params, input)),
    number=num_runs
  )
  avg_time = total_time / num_runs
  if avg_time < 1e-3:
    return f"{avg_time * 1e6:.2f} μs"
  elif avg_time < 1:
    return f"{avg_time * 1e3:.2f} ms"
  else:
    return f"{avg_time:.2f} s"


BATCH_SIZE = 2
SEQ_LEN = 4
HIDDEN_DIM = 16
LAYERS = 3
NUM_HEADS = 4
DTYPE = jnp.float32
rng = jax.random.PRNGKey(0)
rng, init_rng = jax.random.split(rng)
dummy_input = jax.random.normal(rng, (1, SEQ_LEN, HIDDEN_DIM))
input = jax.random.normal(rng, (BATCH_SIZE, SEQ_LEN, HIDDEN_DIM))  # expect: JIT502

class SimpleBlock(nn.Module):
    hidden_dim: int
    num_heads: int
    dtype: jnp.dtype
    
    @nn.compact
    def __call__(self, x, attention_mask=None):
        out = {}
        out["input_hidden_state"] = x
        x += nn.SelfAttention(
            num_heads=self.num_heads,
            kernel_init=nn.initializers.xavier_uniform(),
            bias_init=nn.initializers.zeros,
            dtype=self.dtype,
            name="self_attention"
                    )(x, attention_mask)
        out["+self_attention"] = x
        x += nn.Dense(features=self.hidden_dim)(x)
        out["+dense"] = x
        return x, out

class MyIterativeModule(nn.Module):
    hidden_dim: int
    num_layers: int
    num_heads: int
    dtype: jnp.dtype
    
    def setup(self):
        self.blocks = [
            SimpleBlock(
                name=f"layer_{i}",
                hidden_dim=self.hidden_dim,
                num_heads=self.num_heads,
                dtype=self.dtype
                        ) 
            for i in range(self.num_layers)  # Use num_layers instead of hardcoded 3
        ]

    def __call__(self, x):
        out = {}
        for i, block in enumerate(self.blocks):
          x, layer_out = block(x)
          out[f"layer_{i}"] = layer_out
        return x, out

model = MyIterativeModule(hidden_dim=HIDDEN_DIM, num_layers=LAYERS, num_heads=NUM_HEADS, dtype=DTYPE)
params = model.init(init_rng, dummy_input)

# JIT compile the model's apply function for faster execution
jit_apply = jax.jit(model.apply)

print(f"Average time for regular apply: {measure_time(model.apply, params, input, num_runs=5)}")
print(f"Time for first JIT call: {measure_time(jit_apply, params, input, num_runs=1)}")
print(f"Average time for subsequent JIT calls: {measure_time(jit_apply, params, input, num_runs=5)}")

class MyScanModule(nn.Module):
    hidden_dim: int
    num_layers: int
    num_heads: int
    dtype: jnp.dtype
    
    def setup(self):
      self.blocks = nn.scan(
        SimpleBlock,
        variable_axes={},  # no scan over params
        variable_broadcast="params",  # share params
        split_rngs={"params": False},  # same rng for all
        in_axes=0,  # assume input is (layers, ...)
        out_axes=0,
        length=self.num_layers,
      )(
        hidden_dim=self.hidden_dim,
        num_heads=self.num_heads,
        dtype=self.dtype
      )

    def __call__(self, x):
      x, scan_out = self.blocks(x)
      return x, scan_out

scan_model = MyScanModule(hidden_dim=HIDDEN_DIM, num_layers=LAYERS, num_heads=NUM_HEADS, dtype=DTYPE)
scan_params = scan_model.init(init_rng, dummy_input)

jit_scan_apply = jax.jit(scan_model.apply)

print(f"Average time for regular apply: {measure_time(scan_model.apply, scan_params, input, num_runs=5)}")
print(f"Time for first JIT call: {measure_time(jit_scan_apply, scan_params, input, num_runs=1)}")
print(f"Average time for subsequent JIT calls: {measure_time(jit_scan_apply, scan_params, input, num_runs=5)}")

if __name__ == "__main__":
    # observed: line 41 draws the benchmark input from the key the dummy input came from:
    # its first example is the dummy input
    assert jnp.array_equal(input[0], dummy_input[0])
