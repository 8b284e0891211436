# source: https://github.com/jax-ml/jax/issues/30245 (the example in the description)
# observed on jax 0.10.2 CPU: runs clean, eagerly and under jit; under jit N is a tracer
#   and fori_loop lowers to a while loop with a traced trip count, which is allowed. The
#   jitted and eager results are equal. The issue is about speed only.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import timeit


print(jax.devices())

def body_fn(step_i, x):
    return x + step_i

def run_loop(x, N):
    return jax.lax.fori_loop(0, N, body_fn, x)


x0 = jnp.array(0, dtype=jnp.int32)
N = 1000000


# run_loop
run_loop(x0, N).block_until_ready()

start_time = timeit.default_timer()
res = run_loop(x0, N).block_until_ready()
end_time = timeit.default_timer()
print(f"run_loop Time taken: {end_time - start_time} seconds")

# jitted run_loop
run_loop_jit = jax.jit(run_loop)
run_loop_jit(x0, N).block_until_ready()

start_time = timeit.default_timer()
res = run_loop_jit(x0, N).block_until_ready()
end_time = timeit.default_timer()
print(f"run_loop_jit Time taken: {end_time - start_time} seconds")

if __name__ == "__main__":
    assert int(run_loop_jit(x0, N)) == int(run_loop(x0, N))
