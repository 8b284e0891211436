# source: https://github.com/BoltMaxwell/low-precision-sgld-jax/blob/b1fda7eb2f95ad1c0a4640e668e75efe307e3f68/lpsgld_jax/gaussian.py
#   (a JAX port of low-precision SGLD by an individual: the standard-Gaussian toy sampler in
#   lpsgld_jax/gaussian.py, with the fixed-point quantizer from lpsgld_jax/quant.py and the
#   variance-corrected quantizer Q_vc from lpsgld_jax/vc.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; run() is jitted with the variant name and the step
#   count static, so each variant's scan compiles once and a repeated call reuses it; every
#   scan step splits the carried key into fresh subkeys for the gradient noise, the
#   stochastic rounding and the Langevin noise; the Python `if rounding == ...` tests in the
#   quantizer read static strings; all three chains stay finite and move.
# gap: exemption-vs-JAX
# (changes: quant.py is trimmed to _round_int and fixed_point_quantize (the block and float
#  quantizers and the format specs are not used here) and vc.py is inlined, their relative
#  imports dropped (gaussian.py's `fixed_point_quantize as fq` becomes an assignment);
#  main's --steps default 1_000_000 becomes 20_000, and main returns the trajectories where
#  it called the matplotlib/scipy _plot (dropped) for --plot; the __main__ block counts
#  compilations)
import argparse
import functools

import jax
import jax.numpy as jnp
import numpy as np


# lpsgld_jax/quant.py
def _round_int(t, rounding, key):
    """Round to integers: nearest, or stochastic (floor(t + U[0,1)))."""
    if rounding == "nearest":
        return jnp.round(t)
    if rounding == "stochastic":
        if key is None:
            raise ValueError("stochastic rounding requires a random key")
        return jnp.floor(t + jax.random.uniform(key, t.shape, dtype=t.dtype))
    raise ValueError(f"invalid rounding {rounding!r}")


def fixed_point_quantize(x, wl, fl, rounding="stochastic", key=None):
    sigma = 2.0 ** (-fl)
    t_min = -(2.0 ** (wl - fl - 1))
    t_max = 2.0 ** (wl - fl - 1) - sigma
    q = _round_int(x / sigma, rounding, key) * sigma
    return jnp.clip(q, t_min, t_max)


fq = fixed_point_quantize  # gaussian.py: from .quant import fixed_point_quantize as fq


# lpsgld_jax/vc.py
def _sample(key, var, D):
    """Discrete noise in {+D, -D, 0} with variance ``var`` (P(+D)=P(-D)=var/(2 D^2))."""
    p1 = var / (2 * D**2)
    u = jax.random.uniform(key, jnp.shape(var))
    return jnp.where(u < p1, D, jnp.where(u < 2 * p1, -D, 0.0))


def _sample_mu(key, mu, var_fix, D):
    """Mean-correcting discrete noise for the residual regime (``mu = |residual|``)."""
    p1 = (var_fix + mu**2 + mu * D) / (2 * D**2)
    p2 = (var_fix + mu**2 - mu * D) / (2 * D**2)
    u = jax.random.uniform(key, jnp.shape(mu))
    return jnp.where(u < p1, D, jnp.where(u < p1 + p2, -D, 0.0))


def Q_vc(key, mu, var, wl, fl):
    """Variance-corrected fixed-point quantization of ``mu`` targeting variance ``var``."""
    D = 2.0 ** (-fl)
    var_fix = D**2 / 4.0
    kg, ksmu, kqmu, ks = jax.random.split(key, 4)

    # regime A: var > var_fix
    x = mu + jnp.sqrt(jnp.maximum(var - var_fix, 0.0)) * jax.random.normal(kg, jnp.shape(mu))
    quant_x = fixed_point_quantize(x, wl, fl, "nearest")
    res_a = x - quant_x
    theta_a = quant_x + jnp.sign(res_a) * _sample_mu(ksmu, jnp.abs(res_a), var_fix, D)

    # regime B: var <= var_fix
    quant_mu = fixed_point_quantize(mu, wl, fl, "stochastic", kqmu)
    res_b = mu - quant_mu
    p1 = jnp.abs(res_b) / D
    var_s = (1.0 - p1) * res_b**2 + p1 * (-res_b + jnp.sign(res_b) * D) ** 2
    theta_b = quant_mu + _sample(ks, jnp.maximum(var - var_s, 0.0), D)

    theta = jnp.where(var > var_fix, theta_a, theta_b)
    t_max = 2.0 ** (wl - fl - 1) - D
    return jnp.clip(theta, -(2.0 ** (wl - fl - 1)), t_max)


# lpsgld_jax/gaussian.py
WL, FL = 8, 3
ALPHA = 2e-3
SIGMA = 0.1
VAR = 2 * ALPHA


def _sgrad(key, theta):
    """Stochastic gradient of 0.5*theta^2 (the standard normal potential)."""
    return theta + SIGMA * jax.random.normal(key, ())


def _step_f(carry, _):
    theta, key = carry
    key, kqt, kg, kqg, kn = jax.random.split(key, 5)
    g = _sgrad(kg, fq(theta, WL, FL, "stochastic", kqt))
    theta = theta - ALPHA * fq(g, WL, FL, "stochastic", kqg) + jnp.sqrt(VAR) * jax.random.normal(kn, ())
    return (theta, key), theta


def _step_naive(carry, _):
    theta, key = carry
    key, kg, kqg, kn, kq = jax.random.split(key, 5)
    g = fq(_sgrad(kg, theta), WL, FL, "stochastic", kqg)
    y = theta - ALPHA * g + jnp.sqrt(VAR) * jax.random.normal(kn, ())
    theta = fq(y, WL, FL, "stochastic", kq)
    return (theta, key), theta


def _step_vc(carry, _):
    theta, key = carry
    key, kg, kqg, kvc = jax.random.split(key, 4)
    g = fq(_sgrad(kg, theta), WL, FL, "stochastic", kqg)
    theta = Q_vc(kvc, theta - ALPHA * g, VAR, WL, FL)
    return (theta, key), theta


_STEPS = {"f": _step_f, "naive": _step_naive, "vc": _step_vc}


@functools.partial(jax.jit, static_argnums=(0, 2))
def run(variant, key, n_steps):
    (_, _), traj = jax.lax.scan(_STEPS[variant], (jnp.array(0.0), key), None, length=n_steps)
    return traj


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", action="store_true")
    args = p.parse_args()

    trajs = {}
    for i, variant in enumerate(("f", "naive", "vc")):
        traj = np.asarray(jax.block_until_ready(run(variant, jax.random.key(args.seed + i), args.steps)))
        trajs[variant] = traj
        burn = traj[len(traj) // 10:]  # drop 10% burn-in
        print(f"{variant:5s}: mean {burn.mean():+.4f}  std {burn.std():.4f}  "
              f"(target N(0,1): mean 0, std 1)")

    return trajs


if __name__ == "__main__":
    import logging
    import sys

    compiles = []

    class _Count(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("Finished XLA compilation of jit(run)"):
                compiles.append(record.getMessage())

    jax.config.update("jax_log_compiles", True)
    logging.getLogger("jax").addHandler(_Count())
    logging.getLogger("jax").setLevel(logging.WARNING)

    sys.argv = sys.argv[:1]
    trajs = main()
    assert len(compiles) == 3, compiles  # one per static variant
    again = run("vc", jax.random.key(2), 20_000)
    assert len(compiles) == 3, compiles  # same static arguments: cached
    assert bool(jnp.all(again == trajs["vc"]))  # same key, same chain
    for variant, traj in trajs.items():
        assert traj.shape == (20_000,) and np.all(np.isfinite(traj))
        assert len(np.unique(traj)) > 10, variant  # the chain moves
    print("ok")
