# source: https://github.com/xiaochuany/blog/blob/3a08c210dbaf211a7cdad7091adbf97e5786be6b/docs/posts/2025-01-08-jax.md (blog post "Intro to JAX", sections "Random numbers" and "`jit` if you can": the key example and the function the post marks NOT WORKING)
# observed on jax 0.10.2 CPU: the post warns "NEVER reuse a key. Split them." and then draws
#   out1 from `key` and splits the same `key` into the ten keys of out2 (the values printed
#   match the post's output); with jax_debug_key_reuse on, the split raises KeyReuseError
#   ("Previously-consumed key passed to random_split"). f(3) raises TracerBoolConversionError
#   at `if x > 0`, which the post's try/except prints.
# gap: other
# (added: `import jax.numpy as jnp` before the jit section, which the post imported in an
#   earlier block, and the __main__ block; the post's output comments kept; its other
#   sections, on arrays, vmap, fibonacci/Newton loops, profiling and type hints, left out)
import jax
import jax.random as jr
import jax.numpy as jnp

key = jr.key(42)
out1 = jr.normal(key, (10,))
out2 = jax.vmap(jr.normal)(jr.split(key, 10)) # vmap adds batch dimension at leading axis by default  # expect: JIT502
out3 = jax.vmap(jr.t)(
    key = jr.split(jr.key(21),10),
    df = jnp.arange(10)+1 # degree of freedom of 10 t-distributions
)

print(out1)
# [-0.02830462  0.46713185  0.29570296  0.15354592 -0.12403282  0.21692315
#  -1.440879    0.7558599   0.52140963  0.9101704 ]
print(out2)
# [ 0.07592554  0.60576403  0.4323065  -0.2818947   0.6549178  -0.2166012
#  -0.25440374  0.2886397   0.14384735 -1.3462586 ]
print(out3)
# [ 0.6342837   0.6981538   1.959329    0.35705897  0.95073795 -2.2646627
#   0.93203527  0.50947154  1.1138752  -0.03552625]


# NOT WORKING!
from jax import jit

@jit
def f(x):
    if x > 0:  # expect: JIT101
        return x
    else:
        return jnp.stack([x,x])

try: f(3)
except Exception as e: print(e)
# TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].


if __name__ == "__main__":
    import traceback

    # observed: line 17 splits the key out1 was drawn from: replayed under
    # jax_debug_key_reuse, the split raises KeyReuseError
    jax.config.update("jax_debug_key_reuse", True)
    try:
        k = jr.key(42)
        jr.normal(k, (10,))
        jax.vmap(jr.normal)(jr.split(k, 10))  # tolerate: JIT502
        raise AssertionError("the reused key was not detected")
    except jax.errors.KeyReuseError as e:
        assert str(e).startswith("Previously-consumed key passed to random_split"), e
    finally:
        jax.config.update("jax_debug_key_reuse", False)

    # observed: line 39 raises TracerBoolConversionError under jit
    try:
        f(3)  # tolerate: JIT101
        raise AssertionError("no error")
    except jax.errors.TracerBoolConversionError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 39, frames
