# source: https://github.com/jax-ml/jax/issues/2515
# observed on jax 0.10.2 CPU: my_dev_likelihood builds `jit(grad(_Likelihood))` afresh on
#   every call (grad returns a new function object each time), so each of its calls
#   traces and compiles again; Likelihood's `jit(_Likelihood)` of the same top-level
#   function hits the cache. The report's unused iminuit and matplotlib imports are left
#   out; the loop runs with a fixed seed, and N (the sample size, unrolled by the Python
#   loop over `w`) is 20 instead of 100 to keep each compilation short.
# gap: per-call-recompile
from numpy import random
from jax.numpy import sqrt, pi, exp, log
from jax import jit, grad
random.seed(0)
sigma = 5.0
mu = 100.0
N = 20
tries = 2
s0 = sigma + random.randn(tries) * 0.5
s1 = mu + random.randn(tries) * 10.0
def _Likelihood(s, m, w):
    sum = 0
    for _x in w:
        term = -log(1 / (s * sqrt(2. * pi)) * exp(- ((_x - m) / s)**2 / 2.))
        sum += term
    return sum

def Likelihood(pars):
    return jit(_Likelihood)(pars[0], pars[1], x)

def my_dev_likelihood(pars):
    return jit(grad(_Likelihood))(pars[0], pars[1], x)  # expect: JIT301

for ss, mm in zip(s0, s1):
    x = random.randn(N) * sigma + mu
    my_pars1 = (ss, mm)
    my_pars2 = (ss+0.1, mm+0.1)
    my_dev_likelihood(my_pars1)
    my_dev_likelihood(my_pars2)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    before = len(compiles)
    for _ in range(3):
        Likelihood(my_pars1)
    assert len(compiles) - before <= 1, compiles
    before = len(compiles)
    for _ in range(2):
        my_dev_likelihood(my_pars1)
    # observed: line 30 compiles again on each of the 2 calls
    assert len(compiles) - before == 2, compiles
