# source: https://github.com/SalamanderXing/jax-min-batch-kmeans/blob/59fd48cdc5bfcb4c9414dd4eb51e88454f0c4233/mini_batch_kmeans.py
#   (a personal "just-in-time compiled" Mini-Batch KMeans: jitted assignment and centroid
#   updates driven by a fit loop that draws a new mini batch per iteration)
# observed on jax 0.10.2 CPU: fit splits self.rn_key at every iteration but never stores the
#   new key (it binds a local rn_key), so every iteration gets the same subkey and trains on
#   the same mini batch; the first split also reuses the key that drew the initial centroids
#   (JAX's key-reuse checker names the split line). update_centroids, jitted, runs a Python
#   loop over the batch: with the repository's batch_size=1000 its jaxpr has 1000 copies of
#   the loop body (30000 equations; the author's lax.fori_loop version, 1 equation).
# gap: other
# changed: jnp.DeviceArray (removed from JAX) spelled jax.Array in the annotations. Trimmed:
#   update_centroids_vectorized (an unused attempt). Added: the __main__ block, which replaces
#   main()'s clusteringData.csv (read with an unimported genfromtxt) by 300 random 2-d points,
#   records the batch each iteration hands to assign_centroids, and counts jaxpr equations.
import jax
import jax.numpy as jnp
import numpy as np
import jax.random as jrn
from jax import jit
from jax import lax


@jit
def get_distortion_cost(
    feature_data: jax.Array,
    assigned_centroids: jax.Array,
    centroids: jax.Array,
):
    # we subtract, for each instance, the its closes centroid. Then we square the result and sum over all instances.
    return jnp.sum((feature_data - centroids[assigned_centroids]) ** 2)


@jit
def update_centroids(vs, centroids, assigned_centroids, batch):
    for i in range(batch.shape[0]):  # expect: JIT303
        c_index = assigned_centroids[i]
        vs = vs.at[c_index].add(1)
        lr = 1 / vs[c_index]
        centroids = centroids.at[c_index].add(lr * (batch[i] - centroids[c_index]))
    return centroids, vs

def body_fun(i, vals):
    batch, assigned_centroids, centroids, vs = vals
    c_index = assigned_centroids[i]
    vs = vs.at[c_index].add(1)
    lr = 1 / vs[c_index]
    centroids = centroids.at[c_index].add(lr * (batch[i] - centroids[c_index]))
    return batch, assigned_centroids, centroids, vs

def update_centroids_func(vs, centroids, assigned_centroids, batch):
    # while faster to compile, for some reason this performs worse than the for loop
    _, _, centroids, vs = lax.fori_loop(0, batch.shape[0], body_fun, (batch, assigned_centroids, centroids, vs))
    return centroids, vs

@jit
def calculate_distance(feature_data, query_instance):
    return jnp.sum(
        jnp.abs(feature_data - query_instance), axis=1
    )  # directly applies the formula for manhattan distance. axis=1 means sum over rows


@jit
def assign_centroids(feature_data, centroids):
    distances = jnp.stack(
        tuple(calculate_distance(feature_data, c) for c in centroids)
    )  # compute distances for each centroid with respect
    assigned_centroids = jnp.argmin(
        distances, axis=0
    )  # assign each instance to the closest centroid
    return assigned_centroids


class MiniBatchKMeans:
    def __init__(
        self,
        xs: jax.Array | np.ndarray,
        k: int,
        *,
        batch_size: int = 1000,
        iter: int = 300,
        tol: float = 1e-4,
        random_state: int = 0,
    ):
        self.batch_size: int= batch_size
        self.xs:jax.Array = jnp.array(xs)
        self.k:int = k
        self.iter:int = iter
        self.tol = tol
        self.rn_key:jax.Array = jrn.PRNGKey(random_state)
        self.centroids:Optional[DeviceArray] = None

    def fit(self):
        centroids = jrn.choice(self.rn_key, self.xs, shape=(self.k,))
        vs = jnp.zeros(self.k)
        for i in range(self.iter):
            rn_key, subkey = jrn.split(self.rn_key)  # expect: JIT502
            batch = jrn.choice(subkey, self.xs, shape=(self.batch_size,), replace=False)
            assigned_centroids = assign_centroids(batch, centroids)
            distortion_cost = get_distortion_cost(
                batch, assigned_centroids, centroids
            ).item()
            print(f"{distortion_cost=:.2f}")
            # centroids, vs = update_centroids_weird(vs, centroids, assigned_centroids, batch, self.k) 
            centroids, vs = update_centroids(vs, centroids, assigned_centroids, batch)
            #centroids, vs = update_centroids_func(vs, centroids, assigned_centroids, batch)
        self.centroids = centroids


if __name__ == "__main__":
    xs = np.random.default_rng(0).normal(size=(300, 2)).astype(np.float32)
    batches = []
    _assign_centroids = assign_centroids

    def assign_centroids(batch, centroids):
        batches.append(batch)
        return _assign_centroids(batch, centroids)

    kmeans = MiniBatchKMeans(xs, k=4, batch_size=50, iter=4, random_state=0)
    kmeans.fit()
    # observed: line 96 splits the unchanged self.rn_key every iteration: all four mini
    #   batches are the same rows
    assert len(batches) == 4
    assert all(bool((batches[0] == b).all()) for b in batches[1:])
    # observed: line 35 unrolls the batch loop into the jaxpr: 30 equations per row, 1000 rows
    big = jnp.asarray(np.random.default_rng(1).normal(size=(1000, 2)).astype(np.float32))
    args = (jnp.zeros(4), big[:4], jnp.zeros(1000, dtype=jnp.int32), big)
    unrolled = jax.make_jaxpr(update_centroids.__wrapped__)(*args)
    rolled = jax.make_jaxpr(update_centroids_func)(*args)
    assert len(unrolled.eqns) >= 1000 * 5, len(unrolled.eqns)
    assert len(rolled.eqns) <= 5, len(rolled.eqns)
