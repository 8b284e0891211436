# source: https://github.com/sail-sg/d4ft/commit/c096c17f8640fc9957a5c5a8bf505bb2625db291
#   (d4ft, "Deep Learning for DFT": commit "jitable sampler" replaces a tf.data pipeline by
#   batch_sampler in jdft/sampler.py, jitted in jdft/sgd.py as `sampler(seed)` and called
#   with seed + i every epoch)
# observed on jax 0.10.2 CPU: the jitted sampler takes the seed as a traced argument and
#   builds its key with jrdm.PRNGKey(seed) inside; npoint, batch_size and nbatch come from
#   shapes and the closed-over Python int, so min()/int() and jnp.split run on Python ints.
#   Each epoch's seed gives a new permutation without retracing (one cache entry for seven
#   seeds); every batch holds batch_size points and the reweighted weights keep their sum
#   in expectation.
# gap: exemption-vs-JAX
# added: the imports; batch_sampler as in jdft/sampler.py at this commit; sgd() cut down to
#   the sampler closure and the epoch loop that calls it (the molecule, the energy and the
#   optax update left out); a random quadrature grid standing in for mol.grids/mol.weights;
#   the __main__ block.
import jax
import jax.numpy as jnp
import jax.random as jrdm


def batch_sampler(grids, weights, batch_size, seed=1):
  weights = jnp.expand_dims(weights, 1)
  gw = jnp.concatenate((grids, weights), axis=1)
  npoint = grids.shape[0]
  batchsize = min(npoint, batch_size)
  key = jrdm.PRNGKey(seed)
  gw = jrdm.permutation(key, gw)
  g = gw[:, :3]
  w = jnp.squeeze(gw[:, 3])
  
  batch_size = min(npoint, batch_size)
  nbatch = int(npoint / batch_size)

  _g = jnp.split(g[:nbatch*batch_size], nbatch)
  _w = jnp.split((w * npoint / batchsize)[:nbatch*batch_size], nbatch)
  
  return list(zip(_g, _w))


def sgd(mol_grids, mol_weights, epoch, seed=123, batch_size=1000):
  if batch_size > mol_grids.shape[0]:
    batch_size = mol_grids.shape[0]

  @jax.jit
  def sampler(seed):
    return batch_sampler(mol_grids, mol_weights, batch_size, seed=seed)

  dataset1 = sampler(seed)

  all_batches = []
  for i in range(epoch):
    batchs1 = sampler(seed + i)
    batchs2 = sampler(seed + i + 1)

    for batch1, batch2 in zip(batchs1, batchs2):
      all_batches.append((batch1, batch2))

  return dataset1, all_batches, sampler


if __name__ == "__main__":
  k1, k2 = jrdm.split(jrdm.PRNGKey(0))
  grids = jrdm.normal(k1, (1000, 3))
  weights = jrdm.uniform(k2, (1000,))

  dataset1, all_batches, sampler = sgd(grids, weights, epoch=3, batch_size=300)
  assert len(dataset1) == 3
  assert all(g.shape == (300, 3) and w.shape == (300,) for g, w in dataset1)
  assert len(all_batches) == 9
  # different seeds, different permutations
  assert not jnp.array_equal(all_batches[0][0][0], all_batches[0][1][0])
  assert sampler._cache_size() == 1
  # reweighted: each weight scaled by npoint / batch_size
  g0, w0 = dataset1[0]
  idx = jnp.argmin(jnp.sum((grids - g0[0]) ** 2, axis=1))
  assert jnp.allclose(w0[0], weights[idx] * 1000 / 300, rtol=1e-5)
