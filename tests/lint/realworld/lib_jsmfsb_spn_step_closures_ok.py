# source: https://github.com/darrenjw/jax-smfsb/blob/01b011400aa37239126837b579538df2c0d3b20d/src/jsmfsb/spn.py
#   (the Spn class of jsmfsb: the step_gillespie, step_poisson, step_euler and step_cle
#   factories; their docstrings shortened, __str__ and the spatial 1d/2d steppers left out)
# observed on jax 0.10.2 CPU: runs clean. Each factory returns a jitted `step(key, x0, t0,
#   deltat)` closing over the stoichiometry and the hazard function; the loop over time is a
#   lax.while_loop whose predicate compares the traced time with the traced end time, the key
#   is split inside the loop body and carried, and rejected hazards go through jnp.where. The
#   SIR model of the class docstring keeps its 200 individuals under step_gillespie (jitted,
#   and vmapped over 8 keys with distinct outcomes), and step_poisson, step_euler and step_cle
#   run under jit. Added: the __main__ block.
# gap: other
import numpy as np
import jax
from jax import jit
import jax.numpy as jnp
import jax.lax as jl

# Spn class definition, including methods


class Spn:
    """Class for stochastic Petri net models."""

    def __init__(self, p, t, pre, post, h, m):
        """Constructor method for Spn objects"""
        self.p = p  # species names
        self.t = t  # reaction names
        self.pre = jnp.array(pre).astype(jnp.float32)
        self.post = jnp.array(post).astype(jnp.float32)
        self.h = h  # hazard function
        self.m = jnp.array(m).astype(jnp.float32)  # initial marking

    def step_gillespie(self, min_haz=1e-10, max_haz=1e07):
        """Create a function for advancing the state of a SPN by using the
        Gillespie algorithm"""
        sto = (self.post - self.pre).T
        u, v = sto.shape

        @jit
        def advance(state):
            key, xo, x, t = state
            h = self.h(x, t)
            h0 = jnp.sum(h)
            key, k1, k2 = jax.random.split(key, 3)
            t = jnp.where(h0 > max_haz, 1e30, t)
            t = jnp.where(h0 < min_haz, 1e30, t + jax.random.exponential(k1) / h0)
            j = jax.random.choice(k2, v, p=h / h0)
            xn = jnp.add(x, sto[:, j])
            return (key, x, xn, t)

        @jit
        def step(key, x0, t0, deltat):
            t = t0
            x = x0
            termt = t0 + deltat
            key, x, xn, t = jl.while_loop(
                lambda state: state[3] < termt, advance, (key, x, x, t)
            )
            return x

        return step

    def step_poisson(self, dt=0.01):
        """Create a function for advancing the state of an SPN by using a
        simple approximate Poisson time stepping method"""
        sto = (self.post - self.pre).T
        u, v = sto.shape

        @jit
        def advance(state):
            key, x, t = state
            key, k1 = jax.random.split(key)
            h = self.h(x, t)
            r = jax.random.poisson(k1, h * dt)
            x = jnp.add(x, sto.dot(r))
            # TODO: sort out negative values
            # x = jnp.where(x < 0, -x, x)
            t = t + dt
            return (key, x, t)

        @jit
        def step(key, x0, t0, deltat):
            x = x0
            t = t0
            termt = t0 + deltat
            key, x, t = jl.while_loop(
                lambda state: state[2] < termt, advance, (key, x, t)
            )
            return x

        return step

    def step_euler(self, dt=0.01):
        """Create a function for advancing the state of an SPN by using a simple
        continuous deterministic Euler integration method"""
        sto = (self.post - self.pre).T

        @jit
        def advance(state):
            key, x, t = state
            key, k1 = jax.random.split(key)
            h = self.h(x, t)
            x = jnp.add(x, sto.dot(h * dt))
            x = jnp.where(x < 0, -x, x)
            t = t + dt
            return (key, x, t)

        @jit
        def step(key, x0, t0, deltat):
            x = x0
            t = t0
            termt = t0 + deltat
            key, x, t = jl.while_loop(
                lambda state: state[2] < termt, advance, (key, x, t)
            )
            return x

        return step

    def step_cle(self, dt=0.01):
        """Create a function for advancing the state of an SPN by using a simple
        Euler-Maruyama integration method for the associated CLE"""
        sto = (self.post - self.pre).T
        v = sto.shape[1]
        sdt = np.sqrt(dt)

        @jit
        def advance(state):
            key, x, t = state
            key, k1 = jax.random.split(key)
            h = self.h(x, t)
            dw = jax.random.normal(k1, [v]) * sdt
            x = jnp.add(x, sto.dot(h * dt + jnp.sqrt(h) * dw))
            x = jnp.where(x < 0, -x, x)
            t = t + dt
            return (key, x, t)

        @jit
        def step(key, x0, t0, deltat):
            x = x0
            t = t0
            termt = t0 + deltat
            key, x, t = jl.while_loop(
                lambda state: state[2] < termt, advance, (key, x, t)
            )
            return x

        return step


if __name__ == "__main__":
    sir = Spn(["S", "I", "R"], ["S->I", "I->R"],
              [[1, 1, 0], [0, 1, 0]], [[0, 2, 0], [0, 0, 1]],
              lambda x, t: jnp.array([0.3*x[0]*x[1]/200, 0.1*x[1]]),
              [197, 3, 0])
    step_sir = sir.step_gillespie()
    x = step_sir(jax.random.key(42), sir.m, 0.0, 20.0)
    assert x.shape == (3,) and float(jnp.sum(x)) == 200.0
    keys = jax.random.split(jax.random.key(0), 8)
    xs = jax.vmap(lambda k: step_sir(k, sir.m, 0.0, 20.0))(keys)
    assert xs.shape == (8, 3) and bool(jnp.all(jnp.sum(xs, axis=1) == 200.0))
    assert len({tuple(row.tolist()) for row in xs}) > 1
    for stepper in (sir.step_poisson(0.1), sir.step_euler(0.1), sir.step_cle(0.1)):
        y = stepper(jax.random.key(1), sir.m, 0.0, 5.0)
        assert y.shape == (3,) and bool(jnp.all(jnp.isfinite(y)))
