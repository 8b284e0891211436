# source: https://github.com/google/jaxopt/issues/214
# observed on jax 0.10.2 CPU (jaxopt 0.8.5): `test()` raises TracerArrayConversionError:
#   `lbfgsb.run(...)` inside the jitted `test` reaches jaxopt's SciPy wrapper, which converts
#   the (now traced) bounds with `onp.asarray` to hand them to scipy.optimize ("Because
#   `ScipyBoundedMinimize` calls to NumPy-code (i.e., non-native JAX code), it cannot be
#   jitted", the maintainer). Added: imports; the report's snippet ends at the `run` call,
#   so `return res` and the call `test()` are added.
# gap: other
# unverifiable: needs jaxopt, which the test extra does not install (verified when collected, on jax 0.10.2 with jaxopt installed)
import jax
import jax.numpy as jnp
import jaxopt
import numpy as np
from jax import jit

t=np.array([-1.26027397, -0.79178082, -0.21643836,  0.13424658, 0.4       ,
        0.63013699,  0.87945205,  1.28219178,  1.70410959, 2.17260274,
        2.69041096,  3.18356164,  3.68767123,  4.18082192, 4.69863014,
        5.17808219])

R=np.array([17.69069002, 17.89783266, 18.03628099, 17.32367147, 16.54036741,
       15.60960639, 15.32250416, 14.78162801, 14.69544146, 14.84802999,
       14.52303434, 14.30856416, 13.54537271, 12.94627482, 13.5084652 ,
       13.69047547])
@jit
def func(p,t):
    return jnp.where(t<=0,p[0]+p[1]*t,p[0]+p[1]*t-p[2]*(1-jnp.exp(-t/p[3])))

@jit
def lik(p,t,R):
    resid = func(p,t)-R
    return 0.5*jnp.sum(resid ** 2)

def get_infos(res, model, t,R):
    params = res.params
    fun_min= res.state.fun_val
    jacob_min=jax.jacfwd(model)(params, t,R)
    inv_hessian_min=jax.scipy.linalg.inv(jax.hessian(model)(params, t,R))
    return params,fun_min,jacob_min,inv_hessian_min

@jit
def test():
    lbfgsb = jaxopt.ScipyBoundedMinimize(fun=lik, method="SLSQP")
    init_params = jnp.array([18.,2.,10.,1.])
    res = lbfgsb.run(init_params, bounds=([-jnp.inf,0,-jnp.inf,-jnp.inf],[jnp.inf]*4),  # expect: JIT402
                 t=t, R=R)
    return res

test()
