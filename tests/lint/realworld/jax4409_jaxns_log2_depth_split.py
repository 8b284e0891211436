# source: https://github.com/jax-ml/jax/issues/4409 (code: Joshuaalbert/jaxns, jaxns/likelihood_samplers/multi_ellipsoid_sampler.py and ellipsoid_utils.py of that time)
# observed on jax 0.10.2 CPU: under jit, `depth = jnp.log2(num_clusters) + 1` is staged out (omnistaging), so
#   num_splittings is a tracer and `random.split(key, num_splittings)` raises (line 67): TypeError "... In a call to
#   primitive random_split, the value of parameter shape was not hashable: (JitTracer(int32[]),)".
#   The maintainer's fix: compute depth with the original numpy (`np.log2`).
# gap: omnistaging
# added: imports (jnp.int_ kept), stand-ins for the elided helpers bounding_ellipsoid / ellipsoid_params,
#   inputs and the __main__ block. ellipsoid_clustering is cut after the split (its scan over cluster_split
#   needs many more helpers); a stand-in return follows. The two functions lived in two modules of jaxns.
from collections import namedtuple

import jax
from jax import numpy as jnp, random

MultiEllipsoidSamplerState = namedtuple('MultiEllipsoidSamplerState',
                                        ['cluster_id', 'mu', 'radii', 'rotation'])


def bounding_ellipsoid(points, mask):
    # stand-in for the jaxns helper: weighted mean and covariance of the masked points
    w = mask.astype(points.dtype)
    mu = jnp.sum(points * w[:, None], axis=0) / jnp.sum(w)
    dx = (points - mu) * w[:, None]
    C = dx.T @ dx / jnp.sum(w)
    return mu, C


def ellipsoid_params(C):
    # stand-in for the jaxns helper
    W, Q, Vh = jnp.linalg.svd(C)
    radii = jnp.sqrt(Q)
    rotation = Vh.conj().T
    return radii, rotation


def recalculate_sampler_state(key, live_points_U, sampler_state, log_X):
    print('recalculating ellipsoids')  # tolerate: JIT203
    num_clusters = sampler_state.mu.shape[0]  # 2^(depth-1)
    depth = jnp.log2(num_clusters) + 1
    depth = depth.astype(jnp.int_)
    cluster_id, (mu, radii, rotation) = ellipsoid_clustering(key, live_points_U, depth, log_X)
    return MultiEllipsoidSamplerState(cluster_id=cluster_id, mu=mu, radii=radii, rotation=rotation)


def ellipsoid_clustering(key, points, depth, log_VS):
    """
    Partition live_points into 2^depth clusters in depth-first.
    (docstring shortened)

    Args:
        key:
        points: [N, D]
        depth:
        log_VS: expected true volume of points

    Returns: cluster_id, ellipsoid_parameters

    """
    N, D = points.shape

    num_clusters = 2 ** (depth - 1)
    cluster_id = jnp.zeros(N, dtype=jnp.int_)
    mu, C = bounding_ellipsoid(points, cluster_id == 0)
    radii, rotation = ellipsoid_params(C)

    num_splittings = 2 ** (depth - 1) - 1
    keys = random.split(key, num_splittings)  # expect: JIT404
    # (the scan that splits the clusters is left out; stand-in result:)
    return cluster_id, (mu[None, :], radii[None, :], rotation[None, :, :])


if __name__ == "__main__":
    depth = 3
    K, D, N = 2 ** (depth - 1), 2, 20
    points = random.uniform(random.PRNGKey(0), (N, D))
    state = MultiEllipsoidSamplerState(cluster_id=jnp.zeros(N, jnp.int_), mu=jnp.zeros((K, D)),
                                       radii=jnp.ones((K, D)), rotation=jnp.tile(jnp.eye(D), (K, 1, 1)))
    jax.jit(recalculate_sampler_state)(random.PRNGKey(1), points, state, jnp.log(0.5))
