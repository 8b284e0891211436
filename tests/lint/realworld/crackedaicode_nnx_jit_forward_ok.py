# source: https://crackedaicode.com/problems/nnx-jit
#   ("The canonical incantation" of the page, as posted)
# observed on jax 0.10.2 CPU: runs clean: nnx.jit splits the module into its graph
#   definition (static) and its state (traced), so the second call with the same model and
#   input shape hits the cache: no compilation on the second call, and the output equals the eager
#   model(x). Added: the imports, values for in_features, out_features, seed and x, and the
#   __main__ block.
# gap: exemption-vs-JAX
import jax.numpy as jnp
from flax import nnx

in_features, out_features, seed = 3, 4, 0
x = jnp.ones((2, in_features))

model = nnx.Linear(in_features, out_features, rngs=nnx.Rngs(seed))

@nnx.jit
def forward(model, x):
    return model(x)

out = forward(model, x)   # first call: trace + compile
out = forward(model, x)   # subsequent: cache hit

if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    x2 = jnp.full((5, in_features), 2.0)
    a = forward(model, x2)   # a new input shape: one compilation
    n = len(compiles)
    b = forward(model, x2)   # the same model and shape: no compilation
    assert n >= 1 and len(compiles) == n, compiles
    assert jnp.allclose(a, model(x2)) and jnp.allclose(out, model(x))
