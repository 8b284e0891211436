# source: https://github.com/blackjax-devs/sampling-book/blob/d4c3ffda6a08e36ea34e14f86ad7a09eb18df986/book/algorithms/cyclical_sgld.md
#   (the SGLD part of BlackJAX's "Cyclical SGLD" notebook, before
#   https://github.com/blackjax-devs/sampling-book/pull/46 changed the loop to
#   `rng_key, sample_key = jax.random.split(rng_key)` and drew the start from an `init_key`)
# observed on jax 0.10.2 CPU with blackjax 1.7.1: the start position is drawn with
#   `rng_key`, which line 52 then splits; inside the loop `rng_key` is handed to
#   `sgld.step` and split again at the next iteration: every split takes a key already
#   consumed. With `jax_debug_key_reuse` on (the notebook uses typed keys), both splits raise
#   KeyReuseError "Previously-consumed key passed to random_split" (__main__).
#   `jax.jit(sgld.step)` in the loop is the same function each time and compiles once.
#   Added: a stand-in for fastprogress's `progress_bar` (not installed), which only wraps
#   the range; the plotting cell's KDE and figures are left out (its sample draw is kept);
#   200 training steps instead of 50000.
# gap: other
# unverifiable: needs blackjax, which the test extra does not install (verified when collected, on jax 0.10.2 with blackjax installed)
import itertools
import jax
import jax.scipy as jsp
import jax.numpy as jnp

lmbda = 1/25
positions = [-4, -2, 0, 2, 4]
mu = jnp.array([list(prod) for prod in itertools.product(positions, positions)])
sigma = 0.03 * jnp.eye(2)

def logprob_fn(x, *_):
    return lmbda * jsp.special.logsumexp(jax.scipy.stats.multivariate_normal.logpdf(x, mu, sigma))

def sample_fn(rng_key):
    choose_key, sample_key = jax.random.split(rng_key)
    samples = jax.random.multivariate_normal(sample_key, mu, sigma)
    return jax.random.choice(choose_key, samples)

rng_key = jax.random.key(0)
samples = jax.vmap(sample_fn)(jax.random.split(rng_key, 10_000))

import blackjax
progress_bar = lambda iterable: iterable

num_training_steps = 200
schedule_fn = lambda k: 0.05 * k ** (-0.55)
schedule = [schedule_fn(i) for i in range(1, num_training_steps+1)]

grad_fn = lambda x, _: jax.grad(logprob_fn)(x)
sgld = blackjax.sgld(grad_fn)

rng_key = jax.random.key(3)
init_position = -10 + 20 * jax.random.uniform(rng_key, shape=(2,))
position = sgld.init(init_position)

sgld_samples = []
for i in progress_bar(range(num_training_steps)):
    _, rng_key = jax.random.split(rng_key)  # expect: JIT502
    position = jax.jit(sgld.step)(rng_key, position, 0, schedule[i])
    sgld_samples.append(position)

if __name__ == "__main__":
    jax.config.update("jax_debug_key_reuse", True)
    start_key = jax.random.key(3)
    jax.random.uniform(start_key, shape=(2,))
    step_key = jax.random.key(4)
    jax.jit(sgld.step)(step_key, position, 0, schedule[0])
    for consumed in (start_key, step_key):
        try:
            jax.random.split(consumed)  # tolerate: JIT502
            raise AssertionError("the consumed key was split without error")
        except jax.errors.KeyReuseError as e:
            # observed: line 52 splits the key the start draw, then the step, consumed
            assert str(e).startswith("Previously-consumed key passed to random_split"), e
