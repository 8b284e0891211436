# source: https://github.com/IanQS/lif_numpy_to_jax/blob/28e3846f29d11c1ade870dd02f36026160f1ed78/exercises/extras_when_not_to_jit.ipynb
#   (a JAX course notebook "When should we NOT jit?", Scenario 2: Boolean indexing, cell 3;
#   added: the imports, which the notebook leaves out)
# observed on jax 0.10.2 CPU: the eager call returns the filtered array; `jax.jit(is_nan_filter)`
#   raises NonConcreteBooleanIndexError at the boolean-mask index (the cell's try/except prints
#   it). The cell's own jit-compatible version with `jnp.where` runs under jit.
# gap: other
import jax
import jax.numpy as jnp

to_filter = jnp.asarray([1, 2, 3, jnp.nan, 10, 20])

def is_nan_filter(to_filter_jnp):
    ########################################
    # Your code here
    ########################################
    return to_filter_jnp[to_filter_jnp != jnp.nan]  # expect: JIT403

jitted_func = jax.jit(is_nan_filter)

print(is_nan_filter(to_filter))
try:
    print(jitted_func(to_filter))
except Exception as e:
    print(e)


def is_nan_jit_compatible(to_filter_jnp, replace_with):
    ########################################
    # Your code here
    ########################################
    nan_mask = ~jnp.isnan(to_filter_jnp)
    return jnp.where(nan_mask, to_filter_jnp,replace_with)

jitted_func = jax.jit(is_nan_jit_compatible)
print(jitted_func(to_filter, 0))


if __name__ == "__main__":
    import traceback

    # observed: line 17 raises NonConcreteBooleanIndexError under jit (the cell catches it)
    try:
        jax.jit(is_nan_filter)(to_filter)
    except jax.errors.NonConcreteBooleanIndexError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 17, frames
    else:
        raise AssertionError("no error")
