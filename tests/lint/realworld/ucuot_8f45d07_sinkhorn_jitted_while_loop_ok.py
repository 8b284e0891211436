# source: https://github.com/ucu-computational-ot/ot-algorithm-comparison/blob/8f45d07515c0d2378ca6a84f5bc3a43335e99346/uot/algorithms/sinkhorn.py
#   (a student team's benchmark of optimal-transport solvers: a log-domain Sinkhorn jitted whole, its
#   stopping test in lax.while_loop and its error check every tenth iteration in lax.cond; an earlier
#   version of the file called .item() on the cost and ran a fixed fori_loop)
# observed on jax 0.10.2 CPU: runs clean under jit: epsilon, precision and max_iters are traced and used
#   only inside lax control flow, so jax_sinkhorn called for two problems and two epsilons compiles
#   sinkhorn once, and the plans match the marginals to the requested precision.
# gap: exemption-vs-JAX
# added: the imports of ot (POT) and ott and the two wrappers around them (pot_sinkhorn, ott_jax_sinkhorn,
#   sink) dropped; a __main__ block with two small point clouds.
import jax
import numpy as np
import jax.numpy as jnp

import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp

@jax.jit
def coupling_tensor(u: jnp.ndarray,
                    v: jnp.ndarray,
                    cost: jnp.ndarray,
                    epsilon: float) -> jnp.ndarray:
    return jnp.exp((u[:, None] + v[None, :] - cost) / epsilon)

@jax.jit
def tensor_marginals(matrix: jnp.ndarray):
    row_marginal = jnp.sum(matrix, axis=1)      # sum over columns
    column_marginal = jnp.sum(matrix, axis=0)   # sum over rows
    return (row_marginal, column_marginal)

@jax.jit
def compute_error(u: jnp.ndarray,
                  v: jnp.ndarray,
                  a: jnp.ndarray,
                  b: jnp.ndarray,
                  cost: jnp.ndarray,
                  epsilon: float) -> float:
    P = coupling_tensor(u, v, cost, epsilon)
    row_marginal, col_marginal = tensor_marginals(P)
    return jnp.max(
        jnp.array([
            jnp.linalg.norm(a - row_marginal),
            jnp.linalg.norm(b - col_marginal)
        ])
    ) 


@jax.jit
def sinkhorn(a: jnp.ndarray,
             b: jnp.ndarray,
             cost: jnp.ndarray,
             epsilon: float = 1e-3,
             precision: float = 1e-4,
             max_iters: int = 10_000):
    
    n = a.shape[0]
    m = b.shape[0]

    # Initialize dual variables
    u = jnp.zeros(n)
    v = jnp.zeros(m)

    # Define the loop condition
    def cond_fn(carry):
        u_, v_, i_, err_ = carry
        return jnp.logical_and(err_ > precision, i_ < max_iters)

    # Define one iteration body
    def body_fn(carry):
        u_, v_, i_, e = carry

        u_upd = u_ + epsilon * jnp.log(a) - epsilon * logsumexp((u_[:, None] + v_[None, :] - cost) / epsilon, axis=1)
        v_upd = v_ + epsilon * jnp.log(b) - epsilon * logsumexp((u_upd[:, None] + v_[None, :] - cost) / epsilon, axis=0)

        err_upd = jax.lax.cond(
            i_ % 10 == 0,
            lambda: compute_error(u_upd, v_upd, a, b, cost, epsilon),
            lambda: e
        )

        return (u_upd, v_upd, i_ + 1, err_upd)

    # Run the loop
    init_err = compute_error(u, v, a, b, cost, epsilon)
    u_final, v_final, i_final, final_err = jax.lax.while_loop(
        cond_fn,
        body_fn,
        (u, v, jnp.array(0), init_err)
    )

    return u_final, v_final

def jax_sinkhorn(a, b, C, epsilon=1e-1):
    u_final, v_final = sinkhorn(a, b, C, epsilon)
    u_final.block_until_ready()
    v_final.block_until_ready()
    P = coupling_tensor(u_final, v_final, C, epsilon)
    return P, jnp.sum(P * C)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    rng = np.random.default_rng(0)
    results = []
    for epsilon in (1e-1, 5e-2):
        x = jnp.asarray(rng.uniform(size=(30, 2)), dtype=jnp.float32)
        y = jnp.asarray(rng.uniform(size=(30, 2)) + 0.3, dtype=jnp.float32)
        C = jnp.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)
        a = jnp.ones(30) / 30
        b = jnp.ones(30) / 30
        P, cost = jax_sinkhorn(a, b, C, epsilon=epsilon)
        assert np.allclose(P.sum(axis=1), a, atol=1e-3), P.sum(axis=1)
        assert np.allclose(P.sum(axis=0), b, atol=1e-3), P.sum(axis=0)
        results.append(float(cost))
    assert results[0] != results[1]
    assert compiles.count("jit(sinkhorn)") == 1, compiles
    print("OK: costs", results, "compiles", compiles)
