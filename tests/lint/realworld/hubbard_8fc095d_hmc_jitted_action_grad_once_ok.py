# source: https://github.com/hyunwoooh5/Hubbard/blob/8fc095d8df1a39ed041c9b2284a867b2d8f1e415/mc/hmc.py
#   (Monte Carlo for the Hubbard model: an early Hybrid Monte Carlo iterator that jits the
#   action and its gradient once and runs the leapfrog and the accept/reject on the host)
# observed on jax 0.10.2 CPU: HMC jits `action` and `grad(action)` once in __init__; every
#   trajectory calls the same two compiled functions (one compile each for the whole run),
#   the momenta and the acceptance uniform come from NumPy on the host, outside any trace,
#   and the Python `if` compares concrete values. On a Gaussian action the chain accepts
#   most trajectories and reproduces <x^2> = 1. Added: the Gaussian action, the initial
#   state and the __main__ block.
# gap: other
import numpy as np
import jax
import jax.numpy as jnp

class HMC:
    def __init__(self, action, init, L=100, dt=0.4):
        self.action = jax.jit(action)
        self._grad = jax.jit(jax.grad(action))
        self.state = init
        self.L = L
        self.dt = dt
        
        self._shape = init.shape
        self._len = np.prod(self._shape, dtype=int)
        # TODO it sure would be nice to allow arbitrary mass matrices
        #self._mass = np.eye(self._len)

        self._steps_proposed = 0
        self._steps_accepted = 0

    def __iter__(self):
        return self

    def __next__(self):
        # Initial position
        x = self.state
        # Initial momentum
        p = np.random.normal(size=self._shape)
        # Initial Hamiltonian
        H0 = np.sum(p**2) / 2 + self.action(x)

        # Leapfrog integration
        for l in range(self.L):
            p -= self.dt/2 * self._grad(x)
            x += self.dt * p
            p -= self.dt/2 * self._grad(x)
            pass

        # Accept/reject
        self._steps_proposed += 1
        H = np.sum(p**2) / 2 + self.action(x)
        if np.random.uniform() < np.exp(H0-H):
            self._steps_accepted += 1
            self.state = x

        return self.state

    def acceptance_rate(self):
        return self._steps_accepted / self._steps_proposed

    def calibrate(self):
        pass

class NUTS:
    def __init__(self):
        pass

    def step(self):
        pass

    def calibrate(self):
        pass


def action(x):  # added: a free Gaussian field, S = x^2 / 2 per site
    return jnp.sum(x ** 2) / 2


if __name__ == "__main__":
    np.random.seed(0)
    chain = HMC(action, jnp.zeros(8), L=10, dt=0.3)
    samples = [next(chain) for _ in range(400)]
    xs = np.asarray(jnp.stack(samples[50:]))
    print("acceptance", chain.acceptance_rate(), "<x^2>", (xs ** 2).mean())
    assert chain.acceptance_rate() > 0.8
    assert abs((xs ** 2).mean() - 1.0) < 0.15, (xs ** 2).mean()
    # one compile each for the action and its gradient over 400 trajectories
    assert chain.action._cache_size() == 1 and chain._grad._cache_size() == 1
