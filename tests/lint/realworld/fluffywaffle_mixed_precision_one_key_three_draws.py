# source: https://github.com/Ganesh172919/fluffy-waffle/blob/1d3bbc4731e22854ad82de941389cbe0b59d2e7e/jax-learning/mixed_precision.py
#   (a JAX learning course's script: float32, float16 and bfloat16 matmuls under jit)
# observed on jax 0.10.2 CPU: one `key` draws x32, then the layer weights params["w"], then
#   the input x_in. Each draw from the same key starts the same stream: w is the first
#   128 x 128 numbers of x32 (x32.ravel()[:16384]) and x_in is the first 64 rows of w, so
#   the forward pass multiplies an input by a copy of itself. Added: the __main__ block.
# gap: other
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
x32 = jax.random.normal(key, (1024, 1024), dtype=jnp.float32)
x16 = x32.astype(jnp.float16)

@jax.jit
def matmul_precise(a, b):
    return jax.lax.dot(a, b, precision=jax.lax.Precision.HIGHEST)

@jax.jit
def matmul_mixed(a, b):
    return jnp.matmul(a, b)

c32 = matmul_precise(x32, x32)
c16 = matmul_mixed(x16, x16).astype(jnp.float32)

print(jnp.mean(jnp.abs(c32 - c16)))

params = {
    "w": jax.random.normal(key, (128, 128), dtype=jnp.float32),  # expect: JIT502
    "b": jnp.zeros((128,), dtype=jnp.float32),
}

@jax.jit
def forward(params, x):
    y = jnp.matmul(x.astype(jnp.bfloat16), params["w"].astype(jnp.bfloat16))
    y = y.astype(jnp.float32) + params["b"]
    return jnp.tanh(y)

x_in = jax.random.normal(key, (64, 128), dtype=jnp.float32)  # expect: JIT502
out = forward(params, x_in)
print(out.dtype)


if __name__ == "__main__":
    # observed: line 29 draws the weights from the key of x32: w repeats x32's numbers
    assert (params["w"] == x32.ravel()[: 128 * 128].reshape(128, 128)).all()
    # observed: line 39 draws the input from the same key: x_in is w's first 64 rows
    assert (x_in == params["w"][:64]).all()
