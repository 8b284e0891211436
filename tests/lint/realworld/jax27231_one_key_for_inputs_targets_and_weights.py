# source: https://github.com/jax-ml/jax/issues/27231 (the reporter's "minimal code to reproduce"
#   a jitted forward that differs from the eager one)
# observed on jax 0.10.2 CPU: both forwards print 38.78501 (the report's jit-vs-eager
#   difference was float reassociation on GPUs); the script's own bug is its key: x, y, weights and bias are all
#   drawn from the same `key`, so the targets y are exactly the inputs x, and weights and bias
#   come from an already consumed key (jax_debug_key_reuse, given a typed key, rejects each
#   of those draws). Added: the `__main__` block that shows both.
# gap: other
import jax
from jax import numpy as jnp

def forward(x, emb, w, b, y):
    x = x + emb[:, :x.shape[1]]
    x = jnp.dot(x, w) + b
    return jnp.mean((x - y) ** 2)

jax_jitted_forward = jax.jit(forward)


in_dim = 32
key = jax.random.PRNGKey(0)
batch_size, seq_len = 2, 3

x = jax.random.normal(key, (batch_size, seq_len, in_dim))
y = jax.random.normal(key, (batch_size, seq_len, in_dim))  # expect: JIT502

weights = jax.random.normal(key, (in_dim, in_dim))  # expect: JIT502
bias = jax.random.normal(key, (in_dim,))  # expect: JIT502

def get_position_angle_vec(position):
    return [position / jnp.power(10000, 2 * (hid_j // 2) / in_dim) for hid_j in range(in_dim)]

emb = jnp.array([get_position_angle_vec(pos_i) for pos_i in range(30)])
emb = emb.at[:, 0::2].set(jnp.sin(emb[:, 0::2]))
emb = emb.at[:, 1::2].set(jnp.cos(emb[:, 1::2]))
emb = emb[None, ...]

print("forward:", forward(x, emb, weights, bias, y))
print("jax_jitted_forward:", jax_jitted_forward(x, emb, weights, bias, y))


if __name__ == "__main__":
    # observed: line 25 draws y from the key x was drawn from: the targets equal the inputs
    assert jnp.array_equal(x, y)
    # observed: line 27 and line 28 draw from that consumed key again: JAX's key-reuse
    # checker, given the key typed, rejects each draw
    with jax.debug_key_reuse(True):
        for shape in [(in_dim, in_dim), (in_dim,)]:
            tkey = jax.random.wrap_key_data(key)
            jax.random.normal(tkey, (batch_size, seq_len, in_dim))
            try:
                jax.random.normal(tkey, shape)  # tolerate: JIT502
            except jax.errors.KeyReuseError:
                pass
            else:
                raise AssertionError("a draw from a consumed key was accepted")
