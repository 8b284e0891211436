# source: https://github.com/jax-ml/jax/issues/282 (the first script of the report)
# observed on jax 0.10.2 CPU: with --jit, each of the 16 iterations defines and jits a new
#   `f`, so every iteration traces and compiles again (16 compilations), each keeping its
#   own copy of the closed-over x. To run here: `parse_args()` is given ['--jit'], and the
#   1 GiB x is shrunk (repeat 256 -> 4); the compile counter in __main__ is added.
# gap: per-call-recompile
#!/usr/bin/env python3
import argparse
import jax
import jax.numpy as np
import numpy as onp


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--jit', action='store_true')
    args = parser.parse_args(['--jit'])

    x = onp.random.rand(1024, 1024).astype(onp.float32)
    x = onp.repeat(x, 4, axis=0)
    x = jax.device_put(x)
    # x is 1 GiB large

    v = onp.random.rand(1024).astype(onp.float32)
    v = jax.device_put(v)

    for i in range(16):
        print(f'{i + 1}. iteration')

        def f(v):
            return np.dot(x, v)

        if args.jit:
            f = jax.jit(f)  # expect: JIT301

        f(v)


if __name__ == '__main__':
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    main()
    # observed: line 34 compiles once per iteration
    assert len(compiles) >= 16, compiles
