# source: https://github.com/jax-ml/jax/issues/2479 (the code of the 2020-03-22 comment)
# observed on jax 0.10.2 CPU: `jitf = jit(likelihood)` hits jit's cache from the first
#   iteration on every later one, so the fitted objective keeps the `x` (a global NumPy
#   array) of the first trace while `x` is redrawn each iteration: jitf and likelihood
#   disagree after the loop, and the "times 1"/"times 2" fits minimise the old data.
#   `jit(grad(likelihood))` is a new function each iteration, so it is traced and compiled
#   again every time (it is also why `print(x[0])` runs once per later iteration).
#   iminuit's removed `Minuit.from_array_func` is replaced by a small stand-in minimiser
#   (`Minuit` below) with the same calls; imports and the compile counter are added.
# gap: stale-state-attributes
import jax.monitoring
import numpy as onp
from jax import grad, jit
import jax.numpy as np

compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, _secs, **_kw: compiles.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)


class Minuit:
    """Stand-in for iminuit's Minuit (from_array_func, migrad, values, errors, fitarg)."""

    @classmethod
    def from_array_func(cls, fcn, start, error, errordef, grad):
        self = cls()
        self.fcn, self.grad, self.x = fcn, grad, onp.asarray(start, dtype=float)
        return self

    def migrad(self):
        for _ in range(20):
            self.fcn(self.x)
            self.x = self.x - 1e-4 * onp.asarray(self.grad(self.x))
        self.fitarg = {"x0": self.x[0], "x1": self.x[1]}
        self.values = {"x0": self.x[0], "x1": self.x[1]}
        self.errors = {"x0": 0.1, "x1": 0.1}


def gao(m,w):
    return np.exp(-(x-m)**2/(2*w*w))/(np.sqrt(2*np.pi)*w)  # expect: JIT201

def likelihood(arg):
    print(x[0])  # tolerate: JIT203, JIT201
    m,w = np.split(arg,2)
    s = np.log(gao(m,w))
    return -np.sum(s)
    
x = onp.random.normal(4.,0.7,1000)
args = np.asarray([4.,0.7])

# def df(arg):
#     return devf(arg)[0],devf(arg)[1]

kwargs = {}
kwargs['fix_x1'] = False
mean = []
width = []
em = []
ew = []
ranm = onp.random.randint(50,80,size=500) - 50
per_iteration = []
for i in range(3):
    before = len(compiles)
    print("times",i)
    k = ranm[i] / 100
    args = np.asarray([5.+k,0.6+k])
    x = onp.random.normal(4.,0.7,1000)
    jitf = jit(likelihood)
    devf = jit(grad(likelihood))  # expect: JIT301
    m = Minuit.from_array_func(jitf, args, error=(0.1, 0.1), errordef=0.5, grad=devf)
    m.migrad()
    m.fitarg
    value = m.values
    error = m.errors
    mean.append(value['x0'])
    width.append(value['x1'])
    em.append(error['x0'])
    ew.append(error['x1'])
    per_iteration.append(len(compiles) - before)


if __name__ == "__main__":
    # observed: line 42 is read once, at the first trace: jitf still uses the first x
    assert not onp.allclose(jitf(args), likelihood(args)), (jitf(args), likelihood(args))
    # observed: line 71 makes a new jitted gradient per iteration, compiled each time
    assert all(n >= 1 for n in per_iteration[1:]), per_iteration
