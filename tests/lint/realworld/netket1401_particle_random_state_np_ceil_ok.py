# source: https://github.com/netket/netket/blob/d4cc1a5131dd924c91878f22974776a516ae8018/netket/hilbert/random/particle.py
#   (take_sub and random_state verbatim, without netket's @dispatch, as fixed by
#   https://github.com/netket/netket/pull/1401 "fix bug in hilbert particle that random state is
#   not jittable"; netket is not installed, so a frozen dataclass stands in for
#   netket.hilbert.Particle and a one-line nkjax.dtype_real for netket.jax's. The __main__ block
#   jits random_state with the Hilbert space, batch count and dtype static, as netket's
#   samplers call it inside their jitted reset)
# observed on jax 0.10.2 CPU: runs clean: np.ceil of the Python float gives a NumPy scalar,
#   so int() and the linspace length are static.
# gap: omnistaging
import dataclasses

import jax
from jax import numpy as jnp

import numpy as np


class nkjax:  # stand-in for netket.jax
    @staticmethod
    def dtype_real(typ):
        return np.empty((), dtype=typ).real.dtype


@dataclasses.dataclass(frozen=True)
class Particle:  # stand-in for netket.hilbert.Particle (hashable, as netket's is)
    n_particles: int
    extent: tuple
    pbc: tuple

    @property
    def size(self):
        return self.n_particles * len(self.extent)


def take_sub(key, x, n):
    key, subkey = jax.random.split(key)
    ind = jax.random.choice(
        subkey, jnp.arange(0, x.shape[0], 1), replace=False, shape=(n,)
    )
    return x[ind, :]


def random_state(hilb: Particle, key, batches: int, *, dtype):
    """If no periodic boundary conditions are present particles are positioned normally distributed around the origin.
    If periodic boundary conditions are present the particles are positioned uniformly inside the box and a small
    gaussian noise is added on top.
    If periodic boundary conditions are chosen only for certain dimensions, the periodic initialization is used for
    all of those dimensions and the free initialization is used for all the other ones."""
    pbc = np.array(hilb.n_particles * hilb.pbc)
    boundary = np.tile(pbc, (batches, 1))

    Ls = np.array(hilb.n_particles * hilb.extent)

    # If we have PBCs this defines the size of the Gaussian noise in the particle positions.
    # Without PBCs this is never needed (initialization with random Gaussian)
    # and we can set a random number (here 1.)
    modulus = np.where(np.equal(pbc, False), 1.0, Ls)

    min_modulus = np.min(modulus)

    # use real dtypes because this does not work with complex ones.
    gaussian = jax.random.normal(
        key, shape=(batches, hilb.size), dtype=nkjax.dtype_real(dtype)
    )

    width = min_modulus / (4.0 * hilb.n_particles)
    # The width gives the noise level. In the periodic case the
    # particles are evenly distributed between 0 and min(L). The
    # distance between the particles coordinates is therefore given by
    # min(L) / hilb.N. To avoid particles to have coincident
    # positions the noise level should be smaller than half this distance.
    # We choose width = min(L) / (4*hilb.N)
    noise = gaussian * width

    key = jax.random.split(key, num=batches)  # tolerate: JIT502
    sdim = len(hilb.extent)
    n = int(np.ceil(hilb.n_particles ** (1 / sdim)))
    xs = jnp.linspace(0, min(hilb.extent), n)
    uniform = jnp.array(jnp.meshgrid(*(sdim * [xs]))).reshape(-1, sdim)
    uniform = jnp.tile(uniform, (batches, 1, 1))

    uniform = jax.vmap(take_sub, in_axes=(0, 0, None))(
        key, uniform, hilb.n_particles
    ).reshape(batches, -1)
    rs = jnp.where(np.equal(boundary, False), gaussian, (uniform + noise) % modulus)

    return jnp.asarray(rs, dtype=dtype)


if __name__ == "__main__":
    hilb = Particle(n_particles=3, extent=(2.0, 2.0), pbc=(True, True))
    sample = jax.jit(random_state, static_argnums=(0, 2), static_argnames=("dtype",))
    print(sample(hilb, jax.random.PRNGKey(0), 4, dtype=jnp.float32))
