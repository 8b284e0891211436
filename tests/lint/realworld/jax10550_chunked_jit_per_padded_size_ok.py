# source: https://github.com/jax-ml/jax/issues/10550 (the reporter's chunked_jit, the code
#   of the description; the timing lines after `start = time.tim...`, cut off in the
#   thread, are a stand-in that times one call; imports of numpy, jax, jax.numpy and time
#   added)
# observed on jax 0.10.2 CPU: runs clean. `jax.jit(f)` is built once per padded size and
#   kept in `n_to_f`, so f is traced once for each of the three sizes (128, 256, 512) over
#   nine calls; the prints in f are the reporter's trace-time markers (tolerated), the
#   others run in Python outside the trace.
# gap: per-call-recompile
import time

import jax
import jax.numpy as jnp
import numpy as np

perturb_size = False

def chunked_jit(f):
    n_to_f = {}
    def wrapper(x):
        b = x.shape[0]
        
        # get the next biggest power of 2
        n = 2 ** int(np.ceil(np.log2(b)))
        
        x_pad = jnp.pad(x, [(0, n - b), (0, 0)])
        print(f'Padded shape is: {x_pad.shape}')
        if n not in n_to_f:
            n_to_f[n] = jax.jit(f)
        else:
            print(f'Using compiled func for: {x_pad.shape}')

        compiled_f = n_to_f[n]
        y_pad = compiled_f(x_pad)
        return y_pad[:b]

    wrapper.n_to_f = n_to_f
    return wrapper
    
@chunked_jit
def f(x):
    print(f'Compiling for shape: {x.shape}')  # tolerate: JIT203
    return jnp.linalg.norm(x, axis=-1)

for _ in range(3):
    for n in [100, 200, 400]:
        if perturb_size:
            n = int(n * (1 + np.random.uniform(-0.2, 0.2)))
        x_np = np.random.randn(n, 3)
        x = jax.device_put(x_np)

        x.block_until_ready()
        start = time.time()
        y = f(x).block_until_ready()
        print(n, time.time() - start)


if __name__ == "__main__":
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for _ in range(3):
            for n in [100, 200, 400]:
                x = jax.device_put(np.random.randn(n, 3))
                y = f(x)
                assert y.shape == (n,)
                assert np.allclose(y, np.linalg.norm(np.asarray(x), axis=-1), rtol=1e-5)
    # the nine calls above reuse the three jitted functions built by the loop at import
    assert out.getvalue().count("Compiling for shape") == 0, out.getvalue()
    assert sorted(f.n_to_f) == [128, 256, 512]
