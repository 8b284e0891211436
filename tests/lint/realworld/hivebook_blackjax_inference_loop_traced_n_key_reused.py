# source: https://hivebook.wiki/wiki/blackjax-composable-mcmc-and-sampling-library-in-jax
#   (the "Core usage" example of the BlackJAX page; the driver line `samples = ...` moved into
#   __main__ to observe it, checks added)
# observed on jax 0.10.2 CPU with blackjax 1.7.1: `inference_loop` is jitted with `n` traced,
#   so `jax.random.split(rng, n)` raises (TypeError: random_split's shape holds a tracer,
#   not hashable): the example never samples. And the one key `rng` feeds both `warmup.run` (BlackJAX splits it
#   into num_steps=1000 step keys) and the sampling loop: jax.random.split(rng, 2000)[:1000]
#   equals jax.random.split(rng, 1000), so once the loop runs (n static) its first 1000
#   transitions reuse the warmup's 1000 keys.
# gap: other
# unverifiable: needs blackjax, which the test extra does not install (verified when collected, on jax 0.10.2 with blackjax installed)
import jax
import jax.numpy as jnp
import blackjax

def logdensity(x):                       # any differentiable JAX function
    return -0.5 * jnp.sum(x ** 2)  # standard normal, up to constant

rng = jax.random.key(0)

# Adapt step size + mass matrix automatically (Stan-style window adaptation)
warmup = blackjax.window_adaptation(blackjax.nuts, logdensity)
(state, params), _ = warmup.run(rng, jnp.zeros(3), num_steps=1000)
kernel = blackjax.nuts(logdensity, **params).step

@jax.jit
def inference_loop(rng, state, n):
    def one(state, key):
        state, info = kernel(key, state)
        return state, state.position
    keys = jax.random.split(rng, n)  # expect: JIT404
    _, positions = jax.lax.scan(one, state, keys)
    return positions


if __name__ == "__main__":
    import traceback

    try:
        samples = inference_loop(rng, state, 2000)  # shape (2000, 3)  # expect: JIT502
    except Exception as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        # observed: line 30 raises: split's number of keys is a tracer under jit
        assert frames[-1].lineno == 30, frames
    else:
        raise AssertionError("expected an error")
    # observed: line 39 hands the sampling loop the key warmup.run already split into its
    # 1000 step keys: the loop's first 1000 step keys are the warmup's keys
    loop_keys = jax.random.key_data(jax.random.split(rng, 2000))
    warmup_keys = jax.random.key_data(jax.random.split(rng, 1000))
    assert (loop_keys[:1000] == warmup_keys).all()
