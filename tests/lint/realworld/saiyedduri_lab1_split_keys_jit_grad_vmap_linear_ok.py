# source: https://github.com/saiyedduri/Machine_learning_essentials/blob/eccb90d33e82cfee1365c10ad4d3d78309a9f4be/large_scale_ml/lab_1_introduction_to_jax.ipynb
#   (a university lab, "Lab 1: Introduction to JAX": the key-splitting cell, `f` jitted
#   and its gradient jitted, and `simple_linear` vectorized with jax.vmap, each input
#   drawn from its own subkey)
# observed on jax 0.10.2 CPU: runs clean: every draw takes a fresh subkey from
#   jax.random.split and the split-off `rng` is only split again (no KeyReuseError under
#   jax_debug_key_reuse); jit(f) and jit(grad(f)) each compile once for the (1000,) input;
#   vmap over x's leading axis matches the batched matmul x_vec @ W + b.
#   Stand-in: `grad_function = jax.grad(f)`, which the lab leaves to the student ("Task:
#   Use the function jax.grad to differentiate the function f"). Changed: the `%%timeit`
#   cells are plain calls. Added: the lab's imports and the __main__ block.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

rng = jax.random.key(42)

rng, subkey1, subkey2 = jax.random.split(rng, num=3)  # We create 3 new keys
jax_random_number_1 = jax.random.normal(subkey1)
jax_random_number_2 = jax.random.normal(subkey2)
print('JAX new - Random number 1:', jax_random_number_1)
print('JAX new - Random number 2:', jax_random_number_2)

def f(x):
    x = x + 2
    x = x ** 2
    x = x + 3
    y = x.mean()
    return y

x = jnp.arange(3, dtype=jnp.float32)
print('Input', x)
print('Output', f(x))

grad_function = jax.grad(f)
grad_function(x)

jitted_function = jax.jit(f)

# Create a new random subkey for generating new random values
rng, normal_rng = jax.random.split(rng)
large_input = jax.random.normal(normal_rng, (1000,))
# Run the jitted function once to start compilation
_ = jitted_function(large_input)

f(large_input).block_until_ready()

jitted_grad_function = jax.jit(grad_function)
_ = jitted_grad_function(large_input)  # Apply once to compile

grad_function(large_input).block_until_ready()

jitted_grad_function(large_input).block_until_ready()

def simple_linear(x, W, b):
    # We could already vectorize this function with matmul, but as an example,
    # let us use a non-vectorized function with same output
    return (x[:, None] * W).sum(axis=0) + b

# Example inputs
rng, x_rng, w_rng, b_rng = jax.random.split(rng, 4)
x = jax.random.normal(x_rng, (4,))
W = jax.random.normal(w_rng, (4, 3))
b = jax.random.normal(b_rng, (3,))

simple_linear(x, W, b)

vectorized_linear = jax.vmap(simple_linear,
                             in_axes=(0, None, None),  # Which axes to vectorize for each input
                             out_axes=0  # Which axes to map to in the output
                            )

rng, x_vec_rng = jax.random.split(rng, 2)
x_vec = jax.random.normal(x_vec_rng, (10, 4))

vectorized_linear(x_vec, W, b)


if __name__ == "__main__":
    assert float(jax_random_number_1) != float(jax_random_number_2)
    assert jnp.allclose(jitted_function(large_input), f(large_input), rtol=1e-5)
    assert jnp.allclose(jitted_grad_function(large_input), 2 / 1000 * (large_input + 2), rtol=1e-4)
    assert jitted_function._cache_size() == 1 and jitted_grad_function._cache_size() == 1
    out = jax.jit(vectorized_linear)(x_vec, W, b)
    assert out.shape == (10, 3)
    assert jnp.allclose(out, x_vec @ W + b, atol=1e-5)
