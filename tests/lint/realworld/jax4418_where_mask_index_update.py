# source: https://github.com/jax-ml/jax/issues/4418
# observed on jax 0.10.2 CPU: ConcretizationTypeError ("The size argument of jnp.nonzero must be statically specified") raised at the single-argument np_jax.where line while tracing under jit
# gap: other
# added: imports, the @jax.jit function wrapper around the reporter's three lines (the reporter hit the error inside a jitted/traced
# computation; the answer says "the single argument version of jnp.where is not compatible with JIT"), a 4-d example Dataset, __main__.
# renamed old API: jax.ops.index_update(mask, jax.ops.index[ax1, ax2], 0) -> mask.at[ax1, ax2].set(0)
import jax
import jax.numpy as np_jax


@jax.jit
def make_mask(Dataset):
    ax1, ax2 = np_jax.where(~Dataset[:, 0].any(axis=2))  # expect: JIT403
    mask = np_jax.ones(Dataset.shape)
    mask = mask.at[ax1, ax2].set(0)  # equivalent to mask[ax1, ax2] = 0  # zeroes
    return mask


if __name__ == "__main__":
    Dataset = np_jax.array([[[[1, 2, 0], [1, 4, 0], [0, 0, 0]]] * 2] * 2)
    print(make_mask(Dataset))
