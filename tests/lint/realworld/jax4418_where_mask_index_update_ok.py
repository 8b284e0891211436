# source: https://github.com/jax-ml/jax/issues/4418 (jakevdp's answer: use the three-argument np.where)
# observed on jax 0.10.2 CPU: runs clean under jit, prints the (2, 3) mask
# gap: other
# added: imports, the @jax.jit function wrapper, a 4-d example Dataset, __main__.
import jax
import jax.numpy as np_jax


@jax.jit
def make_mask(Dataset):
    mask = np_jax.where(~Dataset[:, 0].any(axis=2), 0, 1)
    return mask


if __name__ == "__main__":
    Dataset = np_jax.array([[[[1, 2, 0], [1, 4, 0], [0, 0, 0]]] * 2] * 2)
    print(make_mask(Dataset))
