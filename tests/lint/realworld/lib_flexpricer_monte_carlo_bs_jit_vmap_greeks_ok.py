# source: https://github.com/albertium/FlexPricer/blob/b4e5d8b4e3184716973ed79c16a813fe838b1399/monte_carlo.py
#   (an option-pricing project: a jitted Monte Carlo Black-Scholes call price whose
#   price, delta and vega across 200 strikes come from vmap(value_and_grad(...)) of it)
# observed on jax 0.10.2 CPU: runs clean; the Python loop over the rows of the traced
#   innovations array unrolls over its static leading dimension (15 steps), and
#   vmap(value_and_grad(jit(price_bs))) over the strikes gives prices, deltas and vegas of
#   shape (200,). Changed: the plotly figure is replaced by a print of the first values and
#   the path count m is lowered from 100000 to 20000 (CPU time); the plotly imports are
#   dropped.
# gap: exemption-vs-JAX
import jax.numpy as np
import jax as jx
import time


@jx.jit
def price_bs(s: float, k: float, r: float, q: float, sig: float, t: float, innovations: np.ndarray) -> float:
    n, m = innovations.shape
    dt = t / n
    total_vol = sig * np.sqrt(dt)
    var = sig ** 2
    spots = s * np.ones(m)
    for innovation in innovations:
        spots *= np.exp(-0.5 * var * dt + total_vol * innovation)

    return np.mean(np.maximum(spots - k, 0))


def main():
    s = 100.0
    k = 100.0
    r = 0.0
    q = 0.0
    sig = 0.2
    t = 0.5
    n, m = 15, 20000
    key = jx.random.PRNGKey(0)
    innovations = jx.random.normal(key, (n, m), dtype=np.float32)
    strikes = np.linspace(50, 150, 200)

    start = time.time()
    jacob_fn = jx.vmap(jx.value_and_grad(price_bs, (0, 4)), in_axes=(None, 0, None, None, None, None, None))
    prices, (deltas, vegas) = jacob_fn(s, strikes, r, q, sig, t, innovations)
    print(f'It takes {time.time() - start:.2f}s')

    print(prices[:3], deltas[:3], vegas[:3])
    assert prices.shape == deltas.shape == vegas.shape == (200,)


if __name__ == '__main__':
    main()
