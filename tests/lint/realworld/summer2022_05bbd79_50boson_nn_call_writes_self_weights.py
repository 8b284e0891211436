# source: https://github.com/hershkumar/summer2022/blob/05bbd79eefb91e462051744f76e758d36cfd4bb4/neural/50-boson.py
#   (a student's neural-network variational Monte Carlo for 50 bosons in a harmonic trap:
#   the NeuralNetwork class jits its methods with a static `self`, and __call__ stores the
#   weights it unflattens from `params` on `self`)
# observed on jax 0.10.2 CPU: __call__ runs once per trace with self static, so the write
#   `self.weights, self.biases = self.unflatten_params(params)` stores the tracers of that
#   trace on the network: after psi(...) nn.weights holds DynamicJaxprTracers (leaked), not
#   the parameters, and later calls with other params never write at all. sigma_term and
#   Hpsi_without_delta unroll their pair loops over the 50 particles into 1275 abs
#   equations each (Hpsi_without_delta sits under vmap, jit(grad) and jacfwd in every VMC
#   step: one step of 20 samples took about a minute on CPU, nearly all of it compiling).
#   Changed: the network structure [50, 100, 200, 300, 300, 200, 100, 50] is
#   shrunk to [8, 8] to keep the run short (num_particles stays 50). Left out: the unused
#   imports (matplotlib, gvar, IPython, tqdm, cProfile, pickle), accept_ratio (it calls the
#   commented-out sample_body_accept), ugradient, the binning/autocorrelation/step-size
#   helpers, train (it writes energies.csv and a params file) and the notebook cells that
#   train, plot and bin. Added: the __main__ block. flatten_params (lines 88-90, tolerated) keeps the weights its first trace read: called again after psi it still returns the initial parameters.
# gap: stale-state-attributes
import numpy as np
import jax.numpy as jnp
import jax
from jax import grad, hessian, jit, vmap
from jax.nn import celu
from functools import partial
import jax.example_libraries.optimizers as jax_opt

# TODO: plot relative error against the number of parameters

num_particles = 50
N = num_particles
structure = [8, 8]  # changed: the author's [50, 100, 200, 300, 300, 200, 100, 50]
# structure = [35,35]
num_nodes = np.sum(structure)
m = 1
hbar = 1
omega = 1
harmonic_omega = 1
g = -0.03
sigma = -g / 2
C = 10
FILENAME = "energies.csv"
PARAMS_FILE = "50_params.npy"
INITIAL_SAMPLE = jnp.array(np.random.uniform(-2, 2, N))


class NeuralNetwork:
    def __init__(self, input_size, hidden_sizes, output_size):
        self.input_size = input_size
        self.hidden_sizes = hidden_sizes
        self.output_size = output_size

        # Initialize weights and biases for each layer
        self.weights = []
        self.biases = []
        if hidden_sizes != [0]:
            sizes = [input_size] + hidden_sizes + [output_size]
        else:
            sizes = [input_size, output_size]

        for i in range(len(sizes) - 1):
            w = np.random.randn(sizes[i], sizes[i + 1]) * np.sqrt(2 / sizes[i])
            b = np.random.randn(1, sizes[i + 1])
            self.weights.append(w)
            self.biases.append(b)

    @partial(jit, static_argnums=(0,))
    def transform(self, coords):
        # if running into NaNs, try to increase this
        ret = jnp.zeros(num_particles)
        for i in range(num_particles):
            ret = ret.at[i].set(jnp.sum(jnp.power(coords / C, i + 1)))
        return ret

    @partial(jit, static_argnums=(0,))
    def __call__(self, x, params):
        x = self.transform(x)
        self.weights, self.biases = self.unflatten_params(params)  # expect: JIT202
        a = x
        for i in range(len(self.weights) - 1):
            z = jnp.dot(a, self.weights[i]) + self.biases[i]
            a = celu(z)
        a = jnp.dot(a, self.weights[-1]) + self.biases[-1]
        return a[0][0]

    @partial(jit, static_argnums=(0,))
    def flatten_params(self):
        params = jnp.array([])
        for i in range(len(self.weights)):  # tolerate: JIT201
            params = jnp.concatenate((params, self.weights[i].flatten()))  # tolerate: JIT201
            params = jnp.concatenate((params, self.biases[i].flatten()))  # tolerate: JIT201
        return jnp.array(params)

    @partial(jit, static_argnums=(0,))
    def unflatten_params(self, params):
        weights = []
        biases = []
        start = 0
        for i in range(len(self.weights)):
            end = start + self.weights[i].size
            weights.append(
                jnp.reshape(jnp.array(params[start:end]), self.weights[i].shape)
            )
            start = end
            end = start + self.biases[i].size
            biases.append(
                jnp.reshape(jnp.array(params[start:end]), self.biases[i].shape)
            )
            start = end
        return weights, biases


# initialize the network
nn = NeuralNetwork(num_particles, structure, 1)

# symmetrization transformation
# I1 = x_1/C + x_2/C + ... + x_N/C
# I2 = (x_1/C)^2 + (x_2/C)^2 + ... + (x_N/C)^2
# ...
# IN = (x_1/C)^N + (x_2/C)^N + ... + (x_N/C)^N


@jit
def A(coords, params):
    return nn(coords, params) + omega * jnp.sum(coords**2)


@jit
def psi(coords, params):
    return jnp.exp(-A(coords, params))


@jit
def mcstep_E(xis, limit, positions, params):
    params = jax.device_put(params, device=jax.devices("cpu")[0])

    newpositions = jnp.array(positions) + xis

    prob = psi(newpositions, params) ** 2.0 / psi(positions, params) ** 2.0

    def truefunc(p):
        return [newpositions, True]

    def falsefunc(p):
        return [positions, False]

    return jax.lax.cond(prob >= limit, truefunc, falsefunc, prob)


def sample(
    params,
    Nsweeps,
    Ntherm,
    keep,
    stepsize,
    positions_initial=INITIAL_SAMPLE,
    progress=False,
):
    sq = []
    sq_prime = []
    counter = 0
    num_total = Nsweeps * keep + Ntherm + 1
    params = jax.device_put(params, device=jax.devices("cpu")[0])

    randoms = np.random.uniform(-stepsize, stepsize, size=(num_total, N))
    limits = np.random.uniform(0, 1, size=num_total)

    positions_prev = positions_initial

    for i in range(num_total):
        new, moved = mcstep_E(randoms[i], limits[i], positions_prev, params)

        if moved == True:
            counter += 1

        if i % keep == 0 and i >= Ntherm:
            # sq = np.vstack((sq, np.array(new)))
            sq.append(new)

        positions_prev = new
    # generate the primed samples by going through every sample and making sample[N_up] = sample[0]
    sq_prime = sq.copy()
    for i in range(len(sq)):
        a = np.array(sq[i])
        a[1] = a[0]
        sq_prime[i] = jnp.array(a)

    return jnp.array(sq), jnp.array(sq_prime), counter / num_total


# first derivative of the neural network with respect to the coordinates
# in Andy's notation this is dA/dx
dA_dx = jit(grad(A, 0))  # type: ignore

# second derivative of the neural network with respect to the coordinates
# in Andy's notation this is d^2A/dx^2
A_hessian = jax.jacfwd(dA_dx, 0)  # type: ignore


@jit
def d2A_dx2(coords, params):
    # return jnp.diagonal(A_hessian(transform(coords), params))
    return jnp.diag(A_hessian(coords, params))


@jit
def Hpsi(coords, coords_prime, params, alpha):
    return Hpsi_without_delta(coords, params) + delta_potential(
        coords, coords_prime, params, alpha
    )


@jit
def sigma_term(coords):
    N = num_particles
    sigma_term = 0
    for i in range(N):
        for j in range(i, N):  # expect: JIT303
            sigma_term += sigma * jnp.abs(coords[i] - coords[j])


@jit
def Hpsi_without_delta(coords, params):
    # sigma term
    N = num_particles
    sigma_term = 0
    for i in range(N):
        for j in range(i, N):  # expect: JIT303
            sigma_term += sigma * jnp.abs(coords[i] - coords[j])
    # return jnp.sum((m*.5*omega**2*coords**2)) - hbar**2 / (2*m) * jnp.sum(ddpsi(coords, params) ) * 1/psi(coords, params) + sigma_term
    return (
        1
        / (2 * m)
        * (jnp.sum(d2A_dx2(coords, params)) - jnp.sum(dA_dx(coords, params) ** 2))
        + m * 0.5 * harmonic_omega**2 * jnp.sum(coords**2)
        + sigma_term
    )


@jit
def second_term(coords, params):
    return dnn_dtheta(coords, params) * Hpsi_without_delta(coords, params)


vsecond_term = jit(vmap(second_term, in_axes=(0, None), out_axes=0))


@jit
def third_term(coords, coords_prime, params, y_max):
    return dnn_dtheta(coords_prime, params) * delta_potential(
        coords, coords_prime, params, y_max
    )


vthird_term = jit(vmap(third_term, in_axes=(0, 0, None, None), out_axes=0))


@jit
def delta_potential(coords, coords_prime, params, alpha):
    N = num_particles
    # compute e^(-2 NN(params_prime))
    # ratio = jnp.exp(-2 * A(coords_prime, params) + 2 * A(coords, params))
    ratio = (psi(coords_prime, params) ** 2) / (psi(coords, params) ** 2)
    delta_dist = (1 / (jnp.sqrt(jnp.pi) * alpha)) * jnp.exp(
        -(coords[1] ** 2) / (alpha**2)
    )
    return g * N * (N - 1) / 2 * ratio * delta_dist


vdelta_potential = jit(vmap(delta_potential, in_axes=(0, 0, None, None), out_axes=0))
venergy = jit(vmap(Hpsi, in_axes=(0, 0, None, None), out_axes=0))
vHpsi_without_delta = jit(vmap(Hpsi_without_delta, in_axes=(0, None), out_axes=0))


# derivative of the neural network with respect to every parameter
# in Andy's notation this is dA/dtheta
dnn_dtheta = jit(grad(A, 1))
vdnn_dtheta = vmap(dnn_dtheta, in_axes=(0, None), out_axes=0)

vboth = vmap(jnp.multiply, in_axes=(0, 0), out_axes=0)


def gradient(
    params, num_samples=10**3, thermal=200, skip=50, variation_size=1.0, verbose=False
):
    # get the samples
    samples, samples_prime, _ = sample(
        params, num_samples, thermal, skip, variation_size
    )

    y_max = jnp.max(jnp.abs(jnp.array(samples[:, 1])))
    alpha = y_max / (jnp.sqrt(-jnp.log(jnp.sqrt(jnp.pi) * 10 ** (-10))))

    psiHpsi = venergy(samples, samples_prime, params, alpha)

    # delta function additions
    dA_dtheta = vdnn_dtheta(samples, params)

    dA_dtheta_avg = 1 / num_samples * jnp.sum(dA_dtheta, 0)

    second_term = 1 / num_samples * jnp.sum(vsecond_term(samples, params), 0)
    third_term = (
        1 / num_samples * jnp.sum(vthird_term(samples, samples_prime, params, alpha), 0)
    )
    uncert = jnp.std(psiHpsi) / jnp.sqrt(num_samples)

    energy = 1 / num_samples * jnp.sum(psiHpsi)

    if verbose:
        print(energy)

    gradient_calc = 2 * energy * dA_dtheta_avg - 2 * second_term - 2 * third_term
    return gradient_calc, energy, uncert


def step(params_arg, step_num, N, thermal, skip, variation_size):
    gr = gradient(params_arg, N, thermal, skip, variation_size)
    opt_state = opt_init(params_arg)
    new = opt_update(step_num, gr[0], opt_state)
    return get_params(new), gr[1], gr[2]


if __name__ == "__main__":
    start_params = nn.flatten_params()
    print("number of parameters", len(start_params))
    opt_init, opt_update, get_params = jax_opt.adam(10 ** (-3))

    x0 = jnp.array(np.random.uniform(-2, 2, N))
    psi(x0, start_params)
    # observed: line 77 after one psi(...) the network's weights are the tracers of
    # __call__'s trace, not arrays: the write ran at trace time and leaked them
    assert all(isinstance(w, jax.core.Tracer) for w in nn.weights), nn.weights
    assert all(isinstance(b, jax.core.Tracer) for b in nn.biases)
    leaked = nn.weights[0]
    psi(x0, 2.0 * start_params)
    assert nn.weights[0] is leaked  # a cached call with other params writes nothing

    # observed: line 217 sigma_term's pair loop is unrolled into 50 * 51 / 2 abs equations
    jaxpr = jax.make_jaxpr(sigma_term)(x0)
    n_abs = sum(e.primitive.name == "abs" for e in jaxpr.jaxpr.eqns[0].params["jaxpr"].eqns)
    assert n_abs == 1275, n_abs
    # observed: line 227 Hpsi_without_delta's copy of the loop unrolls the same way
    jaxpr = jax.make_jaxpr(Hpsi_without_delta)(x0, start_params)
    n_abs = sum(e.primitive.name == "abs" for e in jaxpr.jaxpr.eqns[0].params["jaxpr"].eqns)
    assert n_abs == 1275, n_abs

    # the sampler as gradient() runs it (fewer samples; a full VMC step compiles the
    # unrolled Hpsi_without_delta under vmap, grad and jacfwd for about a minute on CPU)
    samples, samples_prime, acc = sample(start_params, 20, 10, 2, 0.16)
    assert samples.shape == (21, N), samples.shape
    assert all(isinstance(w, jax.core.Tracer) for w in nn.weights)
