# source: https://github.com/deepmodeling/jax-fem/blob/ee8a03250ee651bec2a9cecbfeb4092500a51d9b/jax_fem/experimental/when_to_jit.py
#   (jax-fem's experiment "when to jit", commit ee8a032, verbatim; its three timing loops,
#   at module level in the script, run in the __main__ block, which also counts XLA
#   compilations per loop through jax.monitoring)
# observed on jax 0.10.2 CPU: f1 and f3 compile once for their ten calls; f2 jits its local
#   `f` afresh on every call, so each of its ten calls traces and compiles again (and each
#   takes the compile time instead of the run time).
# gap: per-call-recompile
import jax.numpy as np
import jax
import time

x = np.ones((1000, 1000), dtype=np.float32)  


@jax.jit
def f(x):
    return x.T @ (x - x.mean(axis=0))

def f1(x):
    return f(x)


def f2(x):
    def f(x): 
        return x.T @ (x - x.mean(axis=0))
    f = jax.jit(f)  # expect: JIT301
    return f(x)


@jax.jit
def g(x):
    return x.T @ (x - x.mean(axis=0))

def f3(x, h):
    return h(x)


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    print(f"\nTest f1...")
    for i in range(10):
        start = time.time()
        a = f1(x).block_until_ready()
        print(time.time() - start)
    f1_compiles, compiles[:] = len(compiles), []

    print(f"\nTest f2...")
    for i in range(10):
        start = time.time()
        a = f2(x).block_until_ready()
        print(time.time() - start)
    f2_compiles, compiles[:] = len(compiles), []

    print(f"\nTest f3...")
    for i in range(10):
        start = time.time()
        a = f3(x, g).block_until_ready()
        print(time.time() - start)
    f3_compiles = len(compiles)

    # observed: line 27 jits a new local function on every call of f2: ten calls, ten compiles
    assert (f1_compiles, f2_compiles, f3_compiles) == (1, 10, 1), (
        f1_compiles, f2_compiles, f3_compiles)
