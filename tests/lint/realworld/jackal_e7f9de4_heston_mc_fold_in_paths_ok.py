# source: https://github.com/nkaimcaudle/jackal/blob/e7f9de46f2be296323be99641a324799175d2bbc/src/jackal/mc2.py
# observed on jax 0.10.2 CPU: runs clean; the jitted Heston scan body (evolve_heston, covL bound by partial) prices a call,
#   a put and a forward on vmapped paths with a fold_in key per path, put-call parity holds on the shared paths, and
#   jax.grad of b(spot, opt) gives a delta of about 0.36; the payoffs' jnp.argwhere(...).item() runs on pi.pegs, which
#   partial binds as a concrete constant, so vmap never hands it a tracer.
# good file: a small personal Monte Carlo pricing project (Heston paths by lax.scan, payoffs vmapped twice).
# gap: exemption-vs-JAX
# added: `from jaxlib.xla_extension import ArrayImpl` (no longer importable) -> `from jax import Array as ArrayImpl`;
#   NRuns 500 -> 4 and NIter 1_000 -> 500 for CPU; in __main__ the spot delta by jax.grad (what the commit adds b(spot, opt)
#   for) and the checks after the author's print.
from functools import partial
from typing import Callable
from collections import namedtuple
import jax
from jax import Array as ArrayImpl
import jax.numpy as jnp
import jax.random as jrnd


@jax.jit
def evolve_heston(carry: tuple, X: tuple, covL: ArrayImpl) -> tuple:
    perf_prev, v_prev, t_prev = carry
    Z, t_curr, r, q, kappa, theta, sigma = X
    dt = t_curr - t_prev
    sdt = jnp.sqrt(dt)

    W = covL @ Z
    Z_var_process = W[1::2]
    Z_spot_process = W[0::2]
    v_curr = jnp.maximum(
        v_prev
        + kappa * (theta - v_prev) * dt
        + sigma * jnp.sqrt(v_prev) * sdt * Z_var_process,
        0.0,
    )
    drift = dt * ((r - q) - 0.5 * v_curr)
    move = drift + jnp.sqrt(v_curr) * Z_spot_process * sdt

    perf_curr = perf_prev + move
    return (perf_curr, v_curr, t_curr), (move, v_curr)


def mcpaths_single_heston(
    key: jrnd.PRNGKey,
    i: int,
    JTs: ArrayImpl,
    JT0: float,
    Nassets: int,
    fwd_r: ArrayImpl,
    fwd_q: ArrayImpl,
    covL: ArrayImpl,
    S0: ArrayImpl,
    v0: ArrayImpl,
    kappa: ArrayImpl,
    theta: ArrayImpl,
    sigma: ArrayImpl,
) -> ArrayImpl:
    _key = jrnd.fold_in(key, i)
    Z = jrnd.normal(_key, shape=(JTs.size, 2 * Nassets))
    init = (jnp.zeros(Nassets), v0, JT0)
    Xs = (Z, JTs, fwd_r, fwd_q, kappa, theta, sigma)
    _evolve_heston = partial(evolve_heston, covL=covL)
    _, (paths, vs) = jax.lax.scan(_evolve_heston, init, Xs)
    paths = jnp.vstack((jnp.zeros(Nassets), paths)).T
    return S0[:, None] * jnp.exp(jnp.cumsum(paths, axis=-1))


def mcpaths_heston(
    key: jrnd.PRNGKey,
    NRuns: int,
    NIter: int,
    JTs: ArrayImpl,
    JT0: float,
    Nassets: int,
    fwd_r: ArrayImpl,
    fwd_q: ArrayImpl,
    covL: ArrayImpl,
    S0: ArrayImpl,
    v0: ArrayImpl,
    kappa: ArrayImpl,
    theta: ArrayImpl,
    sigma: ArrayImpl,
) -> ArrayImpl:
    paths_func = partial(
        mcpaths_single_heston,
        key=key,
        JTs=JTs,
        JT0=JT0,
        Nassets=Nassets,
        fwd_r=fwd_r,
        fwd_q=fwd_q,
        covL=covL,
        S0=S0,
        v0=v0,
        kappa=kappa,
        theta=theta,
        sigma=sigma,
    )
    paths = jax.vmap(paths_func)(i=jnp.arange(NRuns * NIter))
    return paths.reshape(NRuns, NIter, Nassets, -1)


def a(spot=100.0):
    asof = 0.0
    JTs = jnp.linspace(0.01, 1, 64)
    pegs = jnp.hstack((0.0, JTs))
    paths = mcpaths_heston(
        jrnd.PRNGKey(0),
        NRuns=4,
        NIter=500,
        JTs=JTs,
        JT0=0.0,
        Nassets=1,
        fwd_r=jnp.full(64, 0.05),
        fwd_q=jnp.zeros((64, 1)),
        covL=jnp.eye(2),
        S0=jnp.array(
            [
                spot,
            ]
        ),
        v0=jnp.array(
            [
                0.2**2,
            ]
        ),
        kappa=jnp.zeros((64, 1)),
        theta=jnp.full((64, 1), 0.0**2),
        sigma=jnp.zeros((64, 1)),
    )
    discfacts = jax.vmap(lambda t: jnp.exp(-0.05 * t))(pegs - asof)
    return PricingInfo(asof, paths, pegs, ("BABA",), discfacts)


def payoff_call(ul: str, expiry: float, strike: float) -> Callable:
    def fn(pi: PricingInfo) -> float:
        ul_idx = pi.uls.index(ul)
        JT_idx = jnp.argwhere(pi.pegs == expiry).item()
        ST = pi.paths[ul_idx, JT_idx]
        a = ST - strike
        alpha = 10e4
        cashflow = jax.nn.softplus(a * alpha) / alpha
        return pi.discfacts[JT_idx] * cashflow

    return fn


def payoff_put(ul: str, expiry: float, strike: float) -> Callable:
    def fn(pi: PricingInfo) -> float:
        ul_idx = pi.uls.index(ul)
        JT_idx = jnp.argwhere(pi.pegs == expiry).item()
        ST = pi.paths[ul_idx, JT_idx]
        a = strike - ST
        alpha = 10e4
        cashflow = jax.nn.softplus(a * alpha) / alpha
        return pi.discfacts[JT_idx] * cashflow

    return fn


def payoff_fwd(ul: str, expiry: float, strike: float) -> Callable:
    def fn(pi: PricingInfo) -> float:
        ul_idx = pi.uls.index(ul)
        JT_idx = jnp.argwhere(pi.pegs == expiry).item()
        ST = pi.paths[ul_idx, JT_idx]
        return pi.discfacts[JT_idx] * (ST - strike)

    return fn


PricingInfo = namedtuple("PricingInfo", ["asof", "paths", "pegs", "uls", "discfacts"])


def one_price(path, payoff, pi) -> float:
    _pi = PricingInfo(pi.asof, path, pi.pegs, pi.uls, pi.discfacts)
    return payoff(_pi)


def b(spot, opt) -> float:
    pi = a(spot)
    return jax.vmap(jax.vmap(partial(one_price, payoff=opt, pi=pi)))(pi.paths).mean()


if __name__ == "__main__":
    pi = a(100.0)
    opt_call = payoff_call("BABA", 1.0, 115.0)
    opt_put = payoff_put("BABA", 1.0, 115.0)
    opt_fwd = payoff_fwd("BABA", 1.0, 115.0)

    # added: the spot delta that the commit sets up b(spot, opt) for, and checks
    price_call = b
    delta = jax.grad(price_call)(100.0, opt_call)
    assert 0.0 < float(delta) < 1.0, delta
    print("delta", delta)

    a = jax.vmap(jax.vmap(partial(one_price, payoff=opt_call, pi=pi)))(pi.paths).mean()
    b = jax.vmap(jax.vmap(partial(one_price, payoff=opt_put, pi=pi)))(pi.paths).mean()
    c = jax.vmap(jax.vmap(partial(one_price, payoff=opt_fwd, pi=pi)))(pi.paths).mean()
    print(a, b, c)
    assert float(a) > 0 and float(b) > 0
    # put-call parity on the same paths: call - put == forward
    assert abs(float(a - b - c)) < 1e-2 * float(pi.paths.mean()), (a, b, c)
    # the jitted scan body runs on fresh draws per path (fold_in of the path index)
    assert len(set(pi.paths[:, :, 0, -1].ravel().tolist())) == pi.paths.shape[0] * pi.paths.shape[1]
