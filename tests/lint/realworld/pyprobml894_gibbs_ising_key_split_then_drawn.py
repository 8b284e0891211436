# source: https://github.com/probml/pyprobml/blob/324bef5e8d2cba8467b0b4807f3ccf0cc9763606/notebooks/book2/04/gibbs_demo_ising.ipynb
#   (Gibbs sampling on a 100 x 100 Ising model for Book 2 fig. 4.16, "Jaxified" with lax.scan in
#   https://github.com/probml/pyprobml/pull/894)
# observed on jax 0.10.2 CPU: gibbs_samples draws the initial grid from rng_key and then splits
#   the same rng_key into the per-step keys; one_step splits `key` into the pixel keys and then
#   draws the acceptance uniform from that same `key`. Both run without error; under
#   jax_debug_key_reuse with a typed key, the jitted one_step is refused while scan traces it
#   (jit path), and step by step (jax.disable_jit) the split of the consumed rng_key is refused.
# gap: other
# added: the __main__ block (a float J = 0.6 as the notebook's interact slider gives, since an
#   int J now fails in jax.nn.sigmoid; fewer iterations than the notebook's 50000; and the
#   key-reuse checks); the probml_utils install/latexify/plotting cells and the matplotlib import
#   are left out (matplotlib is not installed).
import numpy as np
import jax
import jax.numpy as jnp

n_pixels = 100
pixels = jnp.array(range(n_pixels))


def energy(ix, iy, X, J):
    wi = 0
    a = jax.lax.cond(iy > 0, lambda: X[iy - 1, ix], lambda: 0)  # if iy != 0 then add X[iy - 1, ix]
    wi += jax.lax.cond(iy < n_pixels - 1, lambda: X[iy + 1, ix], lambda: 0)
    wi += jax.lax.cond(ix > 0, lambda: X[iy, ix - 1], lambda: 0)
    wi += jax.lax.cond(ix < n_pixels - 1, lambda: X[iy, ix + 1], lambda: 0)
    return 2 * J * wi


def gibbs_samples(rng_key, J, niter):

    x_values = jnp.array([-1, 1])  # x is binary variable having values either -1 or +1
    grid = jnp.array(jax.random.choice(rng_key, a=x_values, shape=(n_pixels, n_pixels)))  # create grid

    @jax.jit
    def one_step(grid, key):
        keys = jax.random.split(key)
        ix = jnp.array(jax.random.choice(keys[0], a=pixels))  # pick random x pixel
        iy = jax.random.choice(keys[1], a=pixels)  # pick random y pixel
        e = energy(ix, iy, grid, J)  # calculate enerygy on (ix, iy)
        p_ix_iy = jax.nn.sigmoid(e)  # probability
        u = jax.random.uniform(key)  # expect: JIT502
        grid = grid.at[iy, ix].set(jax.lax.cond(u < p_ix_iy, lambda: 1, lambda: -1))
        return grid, None

    keys = jax.random.split(key=rng_key, num=niter)  # expect: JIT502
    grid, _ = jax.lax.scan(one_step, grid, keys)
    return grid


niter = 50000
gibbs_samples_jit = jax.jit(gibbs_samples, static_argnames=["niter"])


if __name__ == "__main__":
    import traceback

    sample_grid = gibbs_samples_jit(jax.random.PRNGKey(0), 0.6, niter=2000)
    print(sample_grid.shape, sample_grid.mean())

    # observed: line 43 draws u from the key that one_step has just split; under
    # jax_debug_key_reuse the jitted one_step is refused ("In jit, ... already consumed")
    # when scan traces it (the scan call is the last frame in this file)
    # observed: line 47 splits rng_key after the initial grid was drawn from it; step by step
    # (jax.disable_jit) that split is refused
    jax.config.update("jax_debug_key_reuse", True)
    for jitted, line, message in ((True, 48, "In jit"), (False, 47, "random_split")):
        try:
            if jitted:
                gibbs_samples_jit(jax.random.key(0), 0.6, niter=5)
            else:
                with jax.disable_jit():
                    gibbs_samples(jax.random.key(0), 0.6, niter=5)
        except Exception as err:
            tb = traceback.extract_tb(err.__traceback__)
            lines = [f.lineno for f in tb if f.filename == __file__]
            print(type(err).__name__, "at line", lines[-1], str(err).splitlines()[0])
            assert type(err).__name__ == "KeyReuseError" and lines[-1] == line
            assert message in str(err)
        else:
            raise AssertionError("no KeyReuseError")
    jax.config.update("jax_debug_key_reuse", False)
