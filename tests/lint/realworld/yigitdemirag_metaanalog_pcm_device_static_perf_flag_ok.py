# source: https://github.com/YigitDemirag/meta-analog/blob/54e7886733d96d0b4d8a2e7d434a2cd42c8c0d93/analog.py
#   (the differentiable phase-change-memory device model of a MAML training of spiking
#   networks with memristive synapses; commit a1a0eb0 "added static argnums for perf
#   argument" made `perf` static in write and read)
# observed on jax 0.10.2 CPU: write/read/reset run under jit as train.py calls them (perf
#   passed by keyword resolves to the static position 4/3; lax.cond takes the Python bool);
#   the functions assign into the `device` dict they receive, which under jit is a fresh
#   dict rebuilt from the pytree, so the caller's dict is unchanged; perf=True gives the
#   noiseless read, and reads at new (traced) times reuse the compiled program.
#   Added: the __main__ block (device shapes and times from train.py's defaults). JAX's key-reuse checker names the __main__ block's reuse of k_w and k_r (lines 107, 111, 116: tolerated, the harness's, not the author's).
# gap: exemption-vs-JAX
import jax.numpy as jnp
import jax.random as random
from jax import jit
from jax.lax import cond
from jax.tree_util import tree_map
from functools import partial

G0 = 0.1        # (µS) Initial device conductance
GMIN = 0.1      # (µS) Minimum device conductance
GMAX = 12.0     # (µS) Maximum device conductance
n_bits = 4      # Approximate PCM bit resolution

@partial(jit, static_argnums=(4))
def write(key, device, mask, tp, perf=False):
    ''' Simulates a single SET pulse.
    '''

    # Programming noise
    mu_dgn = - 0.084 * device['G'] + 0.892
    std_dgn = 0.09 * device['G'] + 0.575
    dgn = mu_dgn + std_dgn * random.normal(key, shape=device['G'].shape)

    device['G'] = cond(perf,
                       lambda G: jnp.clip(G + mask['G'] * GMAX/(2**n_bits), GMIN, GMAX),
                       lambda G: jnp.clip(G + mask['G'] * dgn, GMIN, GMAX),
                       device['G'])
    device['tp'] = mask['tp'] * tp * jnp.ones_like(device['tp'])
    return device


@partial(jit, static_argnums=(3))
def read(key, device, t, perf=False):
    ''' Reads the conductance of device at given time.
    '''
    t0 = 38.6
    v = 0.04
    m3 = 0.03
    c3 = 0.13

    # Temporal conductance drift
    Gd = device['G'] * jnp.power((t - device['tp'])/t0, -v)

    # 1/f read noise
    std_nG = m3 * Gd + c3
    nG = random.normal(key, shape=device['G'].shape) * std_nG

    Gn = cond(perf,
              lambda G: jnp.clip(G, GMIN, GMAX),
              lambda G: jnp.clip(G + nG, GMIN, GMAX),
              device['G'])
    return Gn

@jit
def reset(key, device, tp):
    ''' Simulates a single RESET pulse.
    '''
    device['G'] = G0 + random.normal(key, shape=device['G'].shape) * G0 * 0.1
    device['G'] = device['G'].clip(GMIN, GMAX)
    device['tp'] = tp * jnp.ones_like(device['G'])
    return device


def create_devs(key, shape):
    ''' Creates device array with given shape.
    '''
    devices = reset(key, dict({'G': jnp.zeros(shape),
                               'tp': jnp.zeros(shape)}), tp=0.0)
    return devices


def zero_time_dim(dstate):
    ''' Reset the time dimension of device state.
    '''
    dstate = tree_map(lambda dstate: {'G': jnp.clip(dstate['G'], GMIN, GMAX),
                                      'tp': jnp.zeros_like(dstate['tp'])},
                      dstate,
                      is_leaf=lambda x: isinstance(x, dict))
    return dstate

if __name__ == "__main__":
    import jax

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    key = random.PRNGKey(23)
    k_dev, k_w, k_r = random.split(key, 3)
    devs = create_devs(k_dev, (2, 40, 40))
    pos = tree_map(lambda G: G[0], devs)
    assert set(pos) == {'G', 'tp'}
    up_mask = {'G': (random.uniform(k_w, (40, 40)) > 0.5).astype(jnp.float32),
               'tp': jnp.ones((40, 40))}
    G_before = pos['G']
    written = write(k_w, pos, up_mask, tp=101.0, perf=False)  # tolerate: JIT502
    assert pos['G'] is G_before            # the caller's dict is not mutated
    assert jnp.all(written['tp'] == 101.0 * up_mask['tp'])
    g_noisy = read(k_r, written, t=151.0, perf=False)
    g_exact = read(k_r, written, t=151.0, perf=True)  # tolerate: JIT502
    assert g_exact.shape == (40, 40) and not jnp.allclose(g_noisy, g_exact)
    assert jnp.all((g_noisy >= GMIN) & (g_noisy <= GMAX))
    n = len(compiles)
    for t in (152.0, 153.0, 154.0):
        read(k_r, written, t=t, perf=False)  # tolerate: JIT502
    assert len(compiles) == n, compiles     # float times are traced, no recompilation
    zeroed = zero_time_dim([devs, devs])
    assert jnp.all(zeroed[0]['tp'] == 0)
