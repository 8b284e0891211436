# source: https://github.com/PauliusSasnauskas/sasde/blob/d67cffa52817c9afb35e9bb40e1319f1c9a0507b/util/dataset.py (fixed in commit 21d064e "Update randomization", which replaced the default-argument key with a _get_random_key() that advances a global key on every call)
# observed on jax 0.10.2 CPU: the module-level key is bound once as a default argument (and read directly by shuffle) and never split, so every call to gen_dataset / take_random / shuffle returns exactly the same draw (same "random" training set every epoch, same permutation every shuffle)
# gap: other
# observed: line 21 take_random with its default key picks the same element on 5 calls
# observed: line 24 two gen_dataset calls (two epochs) return identical arrays
# observed: line 35 two shuffle calls return the identical permutation
# (added: the __main__ block that calls each helper twice, as a training loop over epochs would)
from jax import random
import jax.numpy as np

_random_key = random.PRNGKey(712)

def batch_dataset(dataset, size=16):
    batch_count = len(dataset) // size
    batches = []
    for i in range(batch_count):
        batches += [dataset[i*size : (i+1)*size]]
    return batches

def take_random(dataset, key=_random_key):
    return random.choice(key, dataset)  # expect: JIT502

def gen_dataset(bounds, size=256, key=_random_key):
    return random.uniform(key, minval=bounds[0], maxval=bounds[1], shape=(size,))  # expect: JIT502

def gen_analytical_dataset(x_bounds, k_bounds, func_y_analytical, size=256):
    xs = gen_dataset(x_bounds, size)
    ks = gen_dataset(k_bounds, size, key=_random_key+9)
    ys = func_y_analytical(xs, ks)

    return np.concatenate((np.expand_dims(xs, 1), np.expand_dims(ys, 1)), axis=1)

def shuffle(dataset):
    indices = np.arange(dataset.shape[0])
    indices = random.permutation(_random_key, indices)  # expect: JIT502
    return dataset[indices]


if __name__ == "__main__":
    import numpy as onp

    # two "epochs" of fresh training inputs: identical
    d1 = gen_dataset((0.0, 1.0), size=64)
    d2 = gen_dataset((0.0, 1.0), size=64)
    assert onp.array_equal(d1, d2)

    # two shuffles of the same data: identical permutation
    s1 = shuffle(d1)
    s2 = shuffle(d1)
    assert onp.array_equal(s1, s2)

    # repeated random picks: always the same element
    picks = {float(take_random(d1)) for _ in range(5)}
    assert len(picks) == 1, picks

    # the analytical dataset re-uses the very same x samples on every call
    a1 = gen_analytical_dataset((0.0, 1.0), (1.0, 2.0), lambda x, k: k * x, size=64)
    a2 = gen_analytical_dataset((0.0, 1.0), (1.0, 2.0), lambda x, k: k * x, size=64)
    assert onp.array_equal(a1, a2) and onp.array_equal(a1[:, 0], d1)
    print("OK: every call returns the same draw")
