# source: https://github.com/mlysy/pfjax/blob/c7c28c3286d32d903407714b49a8e32178903d9c/docs/notebooks/JumpDiff.ipynb
#   (the jump-diffusion notebook before commit 19f9d6b "Fix key issue and tidy up notebook")
# observed on jax 0.10.2 CPU: euler_sim_jump hands the one `key` to multivariate_normal,
#   bernoulli, exponential and normal. bernoulli, exponential and normal all turn the same
#   32 random bits into their draw, so a jump happens only when those bits are small, and the
#   two jump sizes are increasing functions of one uniform: over 4000 keys the jumping steps'
#   exponential and normal sizes have identical ranks, and every normal size lies in its
#   lower 4% tail (p = 0.2 * 0.2) (__main__). Left out: pandas/seaborn/matplotlib imports, `import pfjax`,
#   the plotting cells and the bridge-proposal cells; `pf.simulate(jdmodel, ...)` is replaced
#   by a jitted call of `jdmodel.state_sample` in the added __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import jax.scipy as jsp
import jax.random as random
from jax import lax

key = random.PRNGKey(0)

def euler_sim_jump(key, x, dt, drift, diff, jump, theta):
    """
    Simulate SDE with dense diffusion using Euler-Maruyama discretization.
    Args:
        key: PRNG key.
        x: Initial value of the SDE.  A vector of size `n_dims`.
        dt: Interobservation time.
        drift: Drift function having signature `drift(x, theta)` and returning a vector of size `n_dims`.
        diff: Diffusion function having signature `diff(x, theta)` and returning a vector of size `n_dims`.
        theta: Parameter value.
    Returns:
        Simulated SDE values. A vector of size `n_dims`.
    """
    
    diff_process = jax.random.multivariate_normal(
        key,
        mean= x[0:2] + drift(x[0:2], theta) * dt,
        cov=diff(x[0:2], theta) * dt
    )
    vz_param, vx_param, lam = jump(theta)
    isjump = jax.random.bernoulli(key, p=lam*dt)  # expect: JIT502
    jumpsize = jnp.where(isjump==1.0, 
                         jnp.array([vz_param*jax.random.exponential(key),   # expect: JIT502
                                    vx_param[0]+vx_param[1]*jax.random.normal(key)]),  # expect: JIT502
                         jnp.array([0.0,0.0]))
    jump_process = jumpsize * isjump
    
    return jnp.append(diff_process + jump_process, jumpsize)

class SDEModel_tmp(object):
    
    def __init__(self, dt, n_res, meas_model="Error-free"):
        self._dt = dt
        self._n_res = n_res
        self._meas_model = meas_model
        
        def euler_sim(self, key, x, dt, theta):
            return euler_sim_jump(key, x, dt, self.drift, self.diff, self.jump, theta)
        
        setattr(self.__class__, 'euler_sim', euler_sim)
    
    def state_sample(self, key, x_prev, theta):
        def fun(carry, t):
            key, subkey = random.split(carry["key"])
            x = self.euler_sim(
                key=subkey, x=carry["x"],
                dt=self._dt/self._n_res, theta=theta
            )
            res = {"x": x, "key": key}
            return res, x
        init = {"x": x_prev[-1], "key": key}
        last, full = lax.scan(fun, init, jnp.arange(self._n_res))
        return full

class JumpDiff(SDEModel_tmp):
    
    def __init___(self, dt, n_res, bootstrap=False):
        self._dt = dt
        self._n_res = n_res
        
    def drift(self, x, theta):
        mu = jnp.array([theta[1]+theta[2]*x[0], theta[0]])
        return mu
    
    def diff(self, x, theta):
        Sigma = jnp.array([[x[0]*(theta[3]**2),0],[0,x[0]]])
        return Sigma
    
    def jump(self, theta):
        vx_param = jnp.array([theta[5], theta[6]])
        vz_param = theta[7]
        lam = theta[4]
        return vz_param, vx_param, lam
    
    def meas_sample(self, key, x_curr, theta):
        return x_curr[-1][1]

key = random.PRNGKey(1)

dt = 1
n_res = 5
n_obs = 100
theta = jnp.array([0.08, 0.02, -0.03, 0.12, 0.2, -3.1, 2.7, 1.7])
x_init = jnp.block([[jnp.zeros((n_res-1, 4))],
                    [jnp.array([2.0, 100.0,0,0])]])

jdmodel = JumpDiff(dt, n_res)


if __name__ == "__main__":
    import numpy as np

    x_state = jax.jit(jdmodel.state_sample)(key, x_init, theta)
    print(x_state.shape)

    # one Euler step from the same state under 4000 independent keys
    keys = random.split(random.PRNGKey(123), 4000)
    step = jax.jit(jax.vmap(lambda k: jdmodel.euler_sim(k, x_init[-1], dt / n_res, theta)))
    out = np.asarray(step(keys))
    jumped = out[:, 2] != 0.0
    vz, vx = out[jumped, 2], out[jumped, 3]
    print("jumps:", int(jumped.sum()))
    # observed: line 40, line 42 and line 43 draw from the key multivariate_normal consumed:
    # the jump indicator and both jump sizes come from the same bits, so the sizes of
    # the steps that jump have identical ranks and the normal size always lies in its lower tail
    assert jumped.sum() > 50
    assert (np.argsort(vz) == np.argsort(vx)).all()
    p = float(theta[4]) * dt / n_res
    tail = float(theta[5] + theta[6] * jax.scipy.stats.norm.ppf(p + 1e-6))
    assert (vx <= tail).all()
