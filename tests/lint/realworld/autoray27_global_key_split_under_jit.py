# source: https://github.com/jcmgray/autoray/issues/27 (the user's sampler, and autoray's
#   jax random helpers as in autoray/autoray.py at 1545798, before the fix)
# observed on jax 0.10.2 CPU: the jitted sampler prints the same number ten times: autoray
#   keeps its key in the module global _JAX_RANDOM_KEY and splits it while `sampler` is
#   traced, so the split runs once, the compiled program holds that one subkey, and the
#   global is left holding a leaked tracer. `ar.do("random.normal", like='jax')`, which
#   dispatches to jax_random_normal, calls it directly (autoray is not installed); the
#   checks in `__main__` are added.
# gap: stale-state-attributes
import jax

_JAX_RANDOM_KEY = None


def jax_random_seed(seed=None):
    from jax.random import PRNGKey

    global _JAX_RANDOM_KEY
    if seed is None:
        from random import SystemRandom

        seed = SystemRandom().randint(-(2**63), 2**63 - 1)  # inclusive high  # tolerate: JIT204
    _JAX_RANDOM_KEY = PRNGKey(seed)  # tolerate: JIT202


def jax_random_get_key():
    from jax.random import split

    global _JAX_RANDOM_KEY
    if _JAX_RANDOM_KEY is None:
        jax_random_seed()
    _JAX_RANDOM_KEY, subkey = split(_JAX_RANDOM_KEY)  # expect: JIT202
    return subkey


def jax_random_uniform(low=0.0, high=1.0, size=None, **kwargs):
    from jax.random import uniform

    if size is None:
        size = ()
    return uniform(
        jax_random_get_key(), shape=size, minval=low, maxval=high, **kwargs
    )


def jax_random_normal(loc=0.0, scale=1.0, size=None, **kwargs):
    from jax.random import normal

    if size is None:
        size = ()
    x = normal(jax_random_get_key(), shape=size, **kwargs)
    if scale != 1.0:
        x *= scale
    if loc != 0.0:
        x += loc
    return x


@jax.jit
def sampler():
    return jax_random_normal()
    # return jax.random.normal(key=ar.autoray.jax_random_get_key())


if __name__ == "__main__":
    draws = []
    for _ in range(10):
        draws.append(float(sampler()))
        print(draws[-1])
    # observed: line 32 splits the global key once, at trace: all ten draws are equal
    assert len(set(draws)) == 1, draws
    # observed: line 32 leaves a tracer in the global key
    assert isinstance(_JAX_RANDOM_KEY, jax.core.Tracer), _JAX_RANDOM_KEY
