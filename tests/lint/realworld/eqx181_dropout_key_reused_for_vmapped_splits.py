# source: https://github.com/patrick-kidger/equinox/pull/181 (jenkspt's first snippet in the
#   review comment "vmap'ing dropout doesn't match the un-vmap'ed version")
# observed on jax 0.10.2 CPU (equinox 0.13.8): both comparisons print False, as reported.
#   `key` is consumed by the unbatched dropout call and then split twice more, for the
#   vmapped calls over rows and over columns: one key drives three draws (the same calls on
#   a typed key raise KeyReuseError under jax.debug_key_reuse: "Previously-consumed key
#   passed to random_split"). The jnp.allclose lines are the reporter's comparison, printed
#   here. Added: the print of the comparisons and the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
from equinox import nn

key = jax.random.PRNGKey(41)

x = jnp.arange(4*5).reshape(4, 5)
dropout = nn.Dropout(.5)

y1 = dropout(x, key=key)
y2 = jax.vmap(dropout, in_axes=0, out_axes=0)(x, key=jax.random.split(key, 4))  # expect: JIT502
y3 = jax.vmap(dropout, in_axes=1, out_axes=1)(x, key=jax.random.split(key, 5))  # expect: JIT502

print(jnp.allclose(y1, y2))    # --> False
print(jnp.allclose(y1, y3))    # --> False


if __name__ == "__main__":
    reused = []
    with jax.debug_key_reuse(True):
        k = jax.random.key(41)
        dropout(x, key=k)
        for n in (4, 5):
            try:
                jax.random.split(k, n)  # tolerate: JIT502
            except jax.errors.KeyReuseError:
                reused.append(n)
    # observed: line 20 and line 21 split the key that the unbatched dropout call above
    #   them already consumed (KeyReuseError under jax.debug_key_reuse with a typed key)
    assert reused == [4, 5], reused
