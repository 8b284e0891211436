# source: https://github.com/mlysy/pfjax/blob/19f9d6bb94c6a16a0aa6a54c74626a123da55f07/docs/notebooks/JumpDiff.ipynb
#   (the jump-diffusion notebook at commit 19f9d6b "Fix key issue and tidy up notebook")
# observed on jax 0.10.2 CPU: euler_sim_jump splits its key between the diffusion and the
#   jump, and `jump` splits its key three ways, so the jump indicator and the two jump sizes
#   are independent draws; the jitted scan of `state_sample` and a vmap of one Euler step
#   over 4000 keys run clean. Left out: pandas/seaborn/matplotlib imports, `import pfjax`,
#   the plotting cells and the bridge-proposal cells; `pf.simulate(jdmodel, ...)` is replaced
#   by a jitted call of `jdmodel.state_sample` in the added __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import jax.scipy as jsp
import jax.random as random
from jax import lax

def euler_sim_jump(key, x, dt, drift_diff, jump, theta):
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
    key_diff, key_jump = random.split(key)    
    diff_process = drift_diff(key_diff, x, theta, dt)
    jump_process = jump(key_jump, x, theta, dt)
    return jnp.append(diff_process + jump_process, jump_process)

class SDEModel_tmp(object):
    
    def __init__(self, dt, n_res, meas_model="Error-free"):
        self._dt = dt
        self._n_res = n_res
        self._meas_model = meas_model
        
        def euler_sim(self, key, x, dt, theta):
            return euler_sim_jump(key, x, dt, self.drift_diff, self.jump, theta)
        
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
    
    def drift_diff(self, key, x, theta, dt):
        mu = jnp.array([theta[1]+theta[2]*x[0], theta[0]])
        Sigma = jnp.array([[x[0]*(theta[3]**2),0],[0,x[0]]])
        diff_process = jax.random.multivariate_normal(key, mean= x[:2] + mu*dt, cov=Sigma*dt)
        return diff_process
    
    def jump(self, key, x, theta, dt):
        keys = random.split(key, 3)
        is_jump = jax.random.bernoulli(keys[0,], p=theta[4]*dt)
        jump_process = jnp.where(is_jump==1.0, 
                                 jnp.array([theta[7]*jax.random.exponential(keys[1,]), 
                                            theta[5] + theta[6]*jax.random.normal(keys[2,])]),
                                 jnp.array([0.0,0.0]))
        return jump_process
    
    def get_x(self, x):
        X = x[:2]
        jump = x[2:]
        return X, jump
    
    def get_theta(self, theta):
        X_params = theta[:4]
        jump_params = theta[4:]
        #al, th, ka, sig_z, la, mu_x, sig_x, mu_z = theta
        return X_params, jump_params
    
    def meas_sample(self, key, x_curr, theta):
        return x_curr[-1][1]

key = random.PRNGKey(5)

dt = 1
n_res = 5
n_obs = 100
theta = jnp.array([0.08, 0.02, -0.03, 0.12, 0.05, -3.1, 2.7, 1.7])
x_init = jnp.block([[jnp.zeros((n_res-1, 4))],
                    [jnp.array([2.0, 100.0,0,0])]])

jdmodel = JumpDiff(dt, n_res)


if __name__ == "__main__":
    import numpy as np

    x_state = jax.jit(jdmodel.state_sample)(key, x_init, theta)
    print(x_state.shape)

    keys = random.split(random.PRNGKey(123), 4000)
    step = jax.jit(jax.vmap(lambda k: jdmodel.euler_sim(k, x_init[-1], dt / n_res, theta)))
    out = np.asarray(step(keys))
    jumped = out[:, 2] != 0.0
    print("jumps:", int(jumped.sum()))
    assert jumped.sum() > 0
