# source: https://github.com/google-deepmind/dm-haiku/issues/214 (the reporter's minimal
#   reproduction)
# observed on jax 0.10.2 CPU (dm-haiku 0.0.17): `forward_fn_init(rng, 1)` raises
#   UnexpectedTracerError: during init, `m(batch)` inside the `jax.lax.scan` body creates the
#   Linear's parameters while scan traces `scanner_fn` and stores them in Haiku's state,
#   outside the scan ("The function being traced when the value leaked was scanner_fn ...
#   created on line ...:27 ... (get_parameter)"); Haiku's own `hk.scan` is the wrapper for
#   this. Added: the try/except around the reporter's last call and the checks after it.
# gap: other
import haiku as hk
import jax
import jax.numpy as jnp

def build_forward_fn():
    def forward_fn(_,
                   is_training = True):
        # Define a model
        m = hk.Linear(300)

        # Prepare some data to scan over
        data = jnp.arange(0, 256).astype('float32')
        data = jnp.expand_dims(data, axis=0)
        data = jnp.stack([data, data])
        data = jnp.expand_dims(data, axis=0)

        def scanner_fn(carry, batch):
            out = m(batch)  # expect: JIT202
            return carry, out

        jax.lax.scan(scanner_fn, 0, data)

    return forward_fn

if __name__ == '__main__':
    forward_fn = build_forward_fn()
    forward_fn = hk.transform(forward_fn)
    forward_fn_init = jax.jit(forward_fn.init)
    rng = jax.random.PRNGKey(100)
    error = None
    try:
        forward_fn_init(rng, 1)
    except jax.errors.UnexpectedTracerError as e:
        error = str(e)
    # observed: line 27 creates the Linear's parameters inside the scan body and leaves their
    #   tracers in Haiku's state: init raises UnexpectedTracerError naming that line
    assert error is not None
    assert f"{__file__}:27:" in error, error
