# source: https://github.com/fnestaas/research_ds/blob/a7ddd4ea6e5131d5f20d3c6b907b893df77305cf/first_test.py
# observed on jax 0.10.2 CPU: IsoODE draws _Q and _N from the same key, so the two "independent" random matrices are identical (_N == _Q) and the ODE starts from N = Q
# gap: other
# (excerpt: the model classes of the script; its data generation, dataloader and training loop are left out. jnp.reshape(..., newshape=...) renamed to shape=, which jax 0.10 requires; diffrax.PIDController() given rtol=1e-3, atol=1e-6, which current diffrax requires; __main__ builds the model with a key as main() does and runs it under eqx.filter_jit)
import time

import jax 
import jax.numpy as jnp
import jax.nn as jnn
import jax.random as jrandom 

import diffrax
import equinox as eqx

class IsoODE(eqx.Module):
    _Q: jnp.ndarray 
    _N: jnp.ndarray 
    d: int

    def __init__(self, d, key=None, std=1, mean=0, **kwargs):
        super().__init__(**kwargs)
        self._Q = mean + std*jrandom.normal(key=key, shape=(d, d))
        self._N = mean + std*jrandom.normal(key=key, shape=(d, d))  # expect: JIT502
        self.d = d

    def __call__(self, W):
        Q = jnp.matmul(jnp.transpose(self._Q), self._Q)
        N = jnp.matmul(jnp.transpose(self._N), self._N)
        A = jnp.matmul(jnp.transpose(W), jnp.matmul(Q, W))
        return A * N - jnp.transpose(A * N)

class DynX():
    def __init__(self) -> None:
        self.f = lambda x: jnp.abs(x)

    def __call__(self, x):
        return self.f(x)

class Func(eqx.Module):
    b: IsoODE
    f: DynX
    d: int

    def __init__(self, b, f, **kwargs):
        super().__init__(**kwargs)
        # dynamics by which W_t should evolve
        self.b = b
        self.d = b.d # dimension of x_t
        # dynamics by which x_t should evolve
        self.f = f

    def __call__(self, t, y, args):
        
        x = y[:self.d]
        W = jnp.reshape(y[self.d:], shape=(self.d, self.d))
        return jnp.concatenate([self.f(jnp.matmul(W, x)), jnp.reshape(jnp.matmul(self.b(W), W), shape=(self.d*self.d))], axis=0)

class NeuralODE(eqx.Module):
    func: Func

    def __init__(self, data_size, key, **kwargs):
        super().__init__(**kwargs)
        b = IsoODE(data_size, key=key, **kwargs)
        f = DynX()
        self.func = Func(b, f, **kwargs)

    def __call__(self, ts, y0): 
        solution = diffrax.diffeqsolve(
            diffrax.ODETerm(self.func),
            diffrax.Tsit5(),
            t0=ts[0],
            t1=ts[-1],
            dt0=ts[1] - ts[0],
            y0=y0,
            stepsize_controller=diffrax.PIDController(rtol=1e-3, atol=1e-6),
            saveat=diffrax.SaveAt(ts=ts),
        )
        return solution.ys


if __name__ == "__main__":
    key = jrandom.PRNGKey(5678)
    data_key, model_key, loader_key = jrandom.split(key, 3)
    data_size = 2
    model = NeuralODE(data_size, key=model_key)

    b = model.func.b
    print("_Q =", b._Q)
    print("_N =", b._N)
    assert jnp.array_equal(b._Q, b._N), "expected the two draws to coincide"

    ts = jnp.linspace(0, 1, 10)
    y0 = jnp.concatenate([jnp.array([0.3, -0.2]), jnp.eye(data_size).reshape(-1)])
    ys = eqx.filter_jit(lambda m, t, y: m(t, y))(model, ts, y0)
    assert ys.shape == (10, data_size + data_size**2) and bool(jnp.all(jnp.isfinite(ys)))
    print("OK: IsoODE._N is an exact copy of IsoODE._Q")
# observed: line 23 _N drawn with the key already used for _Q just above: jnp.array_equal(_Q, _N) is True
