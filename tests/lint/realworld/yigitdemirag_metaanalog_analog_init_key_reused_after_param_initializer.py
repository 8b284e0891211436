# source: https://github.com/YigitDemirag/meta-analog/blob/54e7886733d96d0b4d8a2e7d434a2cd42c8c0d93/utils.py
#   (utils of a MAML training of spiking LIF networks with memristive (PCM) synapses)
# observed on jax 0.10.2 CPU: analog_init hands `key` to param_initializer, which splits it
#   into (key_h0, key_h1, key_h2) and draws the weights, and then splits the same `key` again
#   for the G+ conductances. The split of a key gives the same first children whatever the
#   count, so the first three G+ draws reuse key_h0, key_h1 and key_h2; G_pos[0] and w0 have
#   the same shape and come from identical uniform bits:
#   G+ of the first layer is an exact affine function of its ideal weight (__main__).
#   Added: GMAX/GMIN inlined from the repository's analog.py (the module imported them from
#   there), a stand-in for einops' `repeat` (not installed) for the one pattern used, and the
#   __main__ block.
# gap: other
import jax 
from jax import jit
import jax.random as random
import jax.numpy as jnp
from jax.tree_util import tree_map
from functools import partial

GMIN = 0.1      # (µS) Minimum device conductance  (from analog.py)
GMAX = 12.0     # (µS) Maximum device conductance  (from analog.py)


def repeat(x, pattern, t):
    # stand-in for einops.repeat(x, 'b n d -> b n t d', t=t)
    assert pattern == 'b n d -> b n t d'
    b, n, d = x.shape
    return jnp.broadcast_to(x[:, :, None, :], (b, n, t, d))


BETA = 1

@jax.custom_jvp
def gr_than(x, thr=1.0):
    ''' Heaviside spiking implementation
    '''
    return (x > thr).astype(jnp.float32)


@gr_than.defjvp
def gr_jvp(primals, tangents):
    ''' Twice-differentiable fast sigmoid function to implement
        surrogate gradient learning.

        Gradient scale factor is a critical  hyperparameter that
        needs to be optimized for the task.
    '''
    x, thr = primals
    x_dot, y_dot = tangents
    primal_out = gr_than(x, thr)
    tangent_out = (x_dot / (BETA * jnp.absolute(x - thr) + 1) ** 2) + y_dot
    return primal_out, tangent_out

@jax.custom_jvp
def ls_than(x, thr):
    ''' Less than implementation
    '''
    return (x < thr).astype(jnp.float32)

@ls_than.defjvp
def lt_jvp(primals, tangents):
    ''' Straight-through estimator for lt() operation
    '''
    x, thr = primals
    x_dot, y_dot = tangents
    primal_out = ls_than(x, thr)
    tangent_out = (x_dot / -(BETA * jnp.absolute(x - thr) + 1) ** 2) + y_dot
    return primal_out, tangent_out

@partial(jit, static_argnums=(1,2))
def sample_sinusoid_task(key, batch_size, num_samples_per_task):
    key_A, key_phi, key_s, key_q = random.split(key, 4)
    A_list = random.uniform(key_A, [batch_size], minval=0.1, maxval=5)
    phi_list = random.uniform(key_phi, [batch_size], minval=0, maxval=jnp.pi)
    xS = random.uniform(key_s, [batch_size, num_samples_per_task, 1], minval=-5, maxval=5)
    xQ = random.uniform(key_q, [batch_size, num_samples_per_task, 1], minval=-5, maxval=5)
    
    yS = jnp.zeros((batch_size, num_samples_per_task, 1))
    yQ = jnp.zeros((batch_size, num_samples_per_task, 1))
    for i, (A, phi) in enumerate(zip(A_list, phi_list)):
        yS = yS.at[i].set(A * jnp.sin(xS[i] + phi))
        yQ = yQ.at[i].set(A * jnp.sin(xQ[i] + phi)) 

    xS, yS, xQ, yQ = tree_map(lambda x: repeat(x, 'b n d -> b n t d', t=100), 
                                                  [xS, yS, xQ, yQ])
    return xS, yS, xQ, yQ

@partial(jit, static_argnums=(1,2,3,4,5,6))
def param_initializer(key, n_inp, n_h0, n_h1, n_out, tau_mem, tau_out):
    ''' Initialize parameters
    '''
    key_h0, key_h1, key_h2 = random.split(key, 3)
    alpha = jnp.exp(-1e-3/tau_mem) 
    kappa = jnp.exp(-1e-3/tau_out)

    # Weights
    w0 = random.uniform(key_h0, [n_inp, n_h0], minval=-jnp.sqrt(6/(n_inp+n_h0)), 
                                               maxval= jnp.sqrt(6/(n_inp+n_h0))) * 0.1
    w1 = random.uniform(key_h1, [n_h0, n_h1],  minval=-jnp.sqrt(6/(n_h0+n_h1)),
                                               maxval= jnp.sqrt(6/(n_h0+n_h1))) * 1
    w2 = random.uniform(key_h2, [n_h1, n_out], minval=-jnp.sqrt(6/(n_h1+n_out)),
                                               maxval= jnp.sqrt(6/(n_h1+n_out))) * 0.01
    # Biases
    b0 = jnp.zeros(n_h0)
    b1 = jnp.zeros(n_h1)

    neuron_dyn = [jnp.zeros(n_h0), jnp.zeros(n_h0), jnp.zeros(n_h1), 
                  jnp.zeros(n_h1), jnp.zeros(n_out)]
    net_params = [[w0, b0, w1, b1, w2], [alpha, kappa], neuron_dyn]
    return net_params

@partial(jit, static_argnums=(1,2,3,4,5,6))
def analog_init(key, n_inp, n_h0, n_h1, n_out, tau_mem, tau_out):
    """
    Maps ideal FP32 weights to G+ and G- differential memristor
    conductances such that W = (G+ - G-) / (GMAX - GMIN) by 
    initializing G+ and calculating G-. 
    This initialization matters only for offline SW training.
    """
    net_params = param_initializer(key, n_inp, n_h0, n_h1, n_out, tau_mem, tau_out)

    G_pos = [random.uniform(l_key, shape=l_W.shape, minval=7, maxval=12) 
             for l_key, l_W 
             in zip(random.split(key, len(net_params[0])), net_params[0])]  # expect: JIT502

    G_neg = [Gp - W * (GMAX-GMIN) for Gp, W in zip(G_pos, net_params[0])]

    devices = [dict({'G' : jnp.stack([Gp, Gn]),
                     'tp': 0.0 * jnp.stack([Gp, Gp])}) for Gp, Gn in zip(G_pos, G_neg)]

    return [devices, net_params[1], net_params[2]]

@jax.custom_jvp
def add_noise(weight, key, noise_std):
    ''' Adds noise only for inference
    '''
    weight = weight + random.normal(key, weight.shape) * jnp.max(weight) * noise_std
    weight = jnp.clip(weight, GMIN, GMAX)
    return weight
 
@add_noise.defjvp
def add_noise_jvp(primals, tangents):
    weight, key, noise_std = primals
    x_dot, _, _ = tangents
    primal_out = add_noise(weight, key, noise_std)
    tangent_out = x_dot
    return primal_out, tangent_out


if __name__ == "__main__":
    # the repository's defaults: seed 23, n_inp 1, n_h0 40, n_h1 40, n_out 1
    key = random.PRNGKey(23)
    sX, sY, qX, qY = sample_sinusoid_task(key, 4, 20)
    assert sX.shape == (4, 20, 100, 1)
    devices, net_const, net_dyn = analog_init(key, 1, 40, 40, 1, 10e-3, 1e-3)  # tolerate: JIT502
    w0, b0, w1, b1, w2 = param_initializer(key, 1, 40, 40, 1, 10e-3, 1e-3)[0]  # tolerate: JIT502
    G_pos0 = devices[0]['G'][0]
    # observed: line 124 splits the key that param_initializer already split for the
    # weights: G+ of layer 0 is drawn from key_h0's bits, the same bits as w0
    a = jnp.sqrt(6 / (1 + 40))
    u_w = (w0 / 0.1 + a) / (2 * a)
    u_g = (G_pos0 - 7) / 5
    assert jnp.allclose(u_w, u_g, atol=1e-5), (u_w, u_g)
    assert abs(jnp.corrcoef(w0.ravel(), G_pos0.ravel())[0, 1] - 1.0) < 1e-5
    # the surrogate gradient and the noise function run under grad
    g = jax.grad(lambda x: gr_than(x, 1.0).sum())(jnp.linspace(0., 2., 5))
    assert g.shape == (5,)
    noisy = add_noise(devices[0]['G'], random.PRNGKey(1), 0.05)
    assert noisy.shape == devices[0]['G'].shape
