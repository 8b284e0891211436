# source: https://github.com/samuelstevens/sax/blob/1328e2bfb6af8e3c48246ef16a1a082f07b0dd37/sax/explore.py
# observed on jax 0.10.2 CPU: inference (eqx.filter_jit) keeps, for every SAE feature, the
#   top-k most activating examples seen so far: a lax.scan over the batch pushes each
#   example's negated activations into sorted score rows with vmapped jnp.searchsorted and
#   jnp.insert at traced positions, with the running offset `start` an array; over 4 batches
#   of one shape it compiles once and its top-k scores and indices equal a NumPy argsort
# gap: exemption-vs-JAX
# added: stand-ins for `import beartype` (beartype.beartype returns its argument; beartype
#   is not installed) and for jaxtyping.jaxtyped (returns its argument: jaxtyping 0.3.11's
#   raises AttributeError '__globals__' on the eqx.filter_jit of inference); a small ReLU
#   SAE module (the shape of sax/nn.py's ReluSAE: __call__ returns (x_hat, f_x)); the
#   __main__ block.
import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int


class beartype:  # stand-in: beartype is not installed
    @staticmethod
    def beartype(obj):
        return obj


def jaxtyped(typechecker=None):  # stand-in: jaxtyping 0.3.11's cannot wrap an eqx.filter_jit
    return lambda obj: obj


@jaxtyped(typechecker=beartype.beartype)
def push(
    scores: Float[Array, "n_features top_k"],
    indices: Int[Array, "n_features top_k"],
    incoming_scores: Float[Array, " n_features"],
    incoming_index: Int[Array, ""],
) -> tuple[Float[Array, "n_features top_k"], Int[Array, "n_features top_k"]]:
    at = jax.vmap(jnp.searchsorted)(scores, incoming_scores)
    scores = jax.vmap(jnp.insert)(scores, at, incoming_scores)[:, :-1]
    indices = jax.vmap(jnp.insert, in_axes=(0, 0, None))(indices, at, incoming_index)[
        :, :-1
    ]
    return scores, indices


@jaxtyped(typechecker=beartype.beartype)
@eqx.filter_jit
def inference(
    sae: eqx.Module,
    batch: Float[Array, "batch_size n_features"],
    scores: Float[Array, "n_neurons top_k"],
    indices: Int[Array, "n_neurons top_k"],
    start: Int[Array, ""],
) -> tuple[Float[Array, "n_neurons top_k"], Int[Array, "n_neurons top_k"]]:
    _, f_x = jax.vmap(sae)(batch)

    example_norms = jnp.linalg.norm(batch, axis=1, keepdims=True)
    batch = batch / example_norms

    batch_size, _ = batch.shape

    @jaxtyped(typechecker=beartype.beartype)
    def body(
        carry: tuple[Float[Array, "n_neurons top_k"], Int[Array, "n_neurons top_k"]],
        f_x_i: tuple[Float[Array, " n_neurons"], Int[Array, ""]],
    ) -> tuple[
        tuple[Float[Array, "n_neurons top_k"], Int[Array, "n_neurons top_k"]], None
    ]:
        f_x, i = f_x_i
        scores, indices = carry
        scores, indices = push(scores, indices, -f_x, start + i)
        return (scores, indices), None

    (scores, indices), _ = jax.lax.scan(
        body, (scores, indices), xs=(f_x, jnp.arange(batch_size))
    )
    return scores, indices


class ReluSAE(eqx.Module):  # stand-in with the shape of sax/nn.py's ReluSAE
    w_enc: Float[Array, "d_hidden d_in"]
    b_enc: Float[Array, " d_hidden"]
    w_dec: Float[Array, "d_in d_hidden"]
    b_dec: Float[Array, " d_in"]

    def __init__(self, d_in, d_hidden, *, key):
        k1, k2 = jax.random.split(key)
        self.w_enc = jax.random.normal(k1, (d_hidden, d_in))
        self.b_enc = jnp.zeros((d_hidden,))
        self.w_dec = jax.random.normal(k2, (d_in, d_hidden))
        self.b_dec = jnp.zeros((d_in,))

    def __call__(self, x):
        f_x = jax.nn.relu(self.w_enc @ x + self.b_enc)
        return self.w_dec @ f_x + self.b_dec, f_x


if __name__ == "__main__":
    import numpy as np

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    d_in, n_neurons, top_k, batch_size, n_batches = 6, 10, 3, 8, 4
    key_sae, key_data = jax.random.split(jax.random.key(0))
    sae = ReluSAE(d_in, n_neurons, key=key_sae)
    data = jax.random.normal(key_data, (n_batches * batch_size, d_in))

    scores = jnp.full((n_neurons, top_k), jnp.inf)
    indices = jnp.full((n_neurons, top_k), -1)
    for b in range(n_batches):
        batch = data[b * batch_size:(b + 1) * batch_size]
        scores, indices = inference(sae, batch, scores, indices, jnp.array(b * batch_size))
    assert compiles.count("jit(inference)") == 1, compiles

    _, f_x = jax.vmap(sae)(data)
    f_x = np.asarray(f_x)
    for n in range(n_neurons):
        order = np.argsort(-f_x[:, n], kind="stable")[:top_k]
        np.testing.assert_allclose(np.asarray(scores[n]), -f_x[order, n], rtol=1e-6)
        # ties (several zero activations) may keep a different but equal-scoring example
        np.testing.assert_allclose(-f_x[np.asarray(indices[n]), n], -f_x[order, n], rtol=1e-6)
    print("top-k scores of feature 0:", scores[0], "examples:", indices[0])
