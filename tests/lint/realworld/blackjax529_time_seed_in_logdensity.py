# source: https://github.com/blackjax-devs/blackjax/issues/529
# observed on jax 0.10.2 CPU: see the `# observed:` line; the jitted logdensity returns the same value every call and every step of the adaptation scan reuses one baked-in key
# gap: omnistaging
# blackjax is not installed here: `blackjax.window_adaptation(blackjax.nuts, ...)` is replaced by a small
# stand-in (`_window_adaptation`) that, like blackjax, runs a jitted lax.scan calling the user's logdensity
# and its gradient. The stand-in, the smaller num_steps/shape and the __main__ block are added.
import time

import jax
import jax.numpy as jnp


def _window_adaptation(algorithm, logdensity_fn, initial_step_size):
    # stand-in for blackjax.window_adaptation: a jitted scan of Langevin steps
    class _Adapt:
        def run(self, rng_key, position, num_steps):
            grad_fn = jax.grad(logdensity_fn)

            @jax.jit
            def _run(rng_key, position):
                def one_step(pos, key):
                    noise = jax.random.normal(key, pos.shape)
                    new = pos + initial_step_size * grad_fn(pos) + jnp.sqrt(2 * initial_step_size) * noise
                    return new, logdensity_fn(new)

                keys = jax.random.split(rng_key, num_steps)
                return jax.lax.scan(one_step, position, keys)

            state, info = _run(rng_key, position)
            return (state, {"step_size": initial_step_size}), info

    return _Adapt()


def logdensity(x):
      key = jax.random.PRNGKey(int(time.time() * 1e7)) # quick hacky prng key, doesnt matter  # expect: JIT204  # tolerate: JIT502
      return x.sum() - jax.random.normal(key, shape=(1000,)).sum()


if __name__ == "__main__":
    rng = jax.random.PRNGKey(10)
    adapt = _window_adaptation(None, logdensity, initial_step_size=1e-4)
    (updated_state, sampler_params), info = adapt.run(rng, jax.random.normal(rng, shape=(1000,)), num_steps=50)

    # The key is computed from time.time() once, at trace time, and baked in.
    jitted = jax.jit(logdensity)
    x = jnp.ones(1000)
    a = jitted(x)
    time.sleep(0.01)
    b = jitted(x)
    # Eagerly, time.time() is read on each call, so two calls differ.
    c = logdensity(x)
    time.sleep(0.01)
    d = logdensity(x)
    assert float(a) == float(b), (a, b)
    assert float(c) != float(d), (c, d)
    # observed: line 36 time.time() runs once at trace time; the jitted logdensity returns the identical value on every call, eager calls differ
    print("jitted:", float(a), float(b), "eager:", float(c), float(d))
    print("adaptation ran", info.shape[0], "steps with one frozen key")
