# source: https://github.com/Mr-Markovian/Covariant_lyapunov_Vectors/blob/03e11bda0d71f0b1abac52edfc22fc32c26990da/codes/clv_calculation/L63/generate_initial_condition_on_att.py
# observed on jax 0.10.2 CPU: runs correctly; the jitted vmapped Lorenz-63 RK4 step and
#   integrate_forward (whose Python loop over iters_delta_t unrolls one RK4 step at trace time)
#   are compiled once and reused for every step of the trajectory, which matches a step-by-step
#   eager integration; iters_delta_t and dt_solver are module constants never rebound.
# gap: other
# (kept as written, except: `from jax import partial` -> functools.partial and
#  `from jax.config import config` -> jax.config (APIs that no longer exist); ode_solvers.rk4_solver
#  (codes/clv_calculation/L63/ode_solvers.py) and testbed_models.L63
#  (codes/clv_calculation/testbed_models.py) inlined; T_stop 100.0 -> 2.0; the unused matplotlib
#  import and the os.chdir/np.save of the result left out; added: the __main__ block)
from functools import partial
from jax import vmap,jit 
import jax
import jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
import numpy as np


# ---- ode_solvers.py ----
def solver(rhs_function,x_initial,time_step):
    "Returns x_k+1 from x_k via rk4 scheme"
    x_o=x_initial
    k1= rhs_function(x_initial)
    k2= rhs_function(x_initial+k1*time_step/2.0)
    k3= rhs_function(x_initial+k2*time_step/2.0)
    k4= rhs_function(x_initial+k3*time_step)
    return x_o+(k1 + 2*k2 + 2*k3 + k4)*time_step/6.0


# ---- testbed_models.py ----
#Lorenz-63 with default values: sigma=10, rho=28, beta=8/3
def L63(x,sigma=10.,rho=28.,beta=8./3):
    "Function to be used for compuation of ode in scipy.integrate.solve_ivp"
    return jnp.array([sigma*(x[1]-x[0]),x[0]*(rho-x[2])-x[1],x[0]*x[1]-beta*x[2]])


# ---- generate_initial_condition_on_att.py ----
seed_num=3
np.random.seed(seed_num)

# these parameters now give you the mode, which is only a function of x, the state vector
model=L63
model_dim=3
num_initials=1

# Generate intial conditions from a gaussian with variance =epsilon  
epsilon=0.00001
X_o=np.random.multivariate_normal(np.zeros(model_dim),epsilon*np.eye(model_dim),size=num_initials).T

T_start=0.0
T_stop=2.0
dt=0.01
dt_solver=0.01
iters_delta_t=int(dt/dt_solver)
Trajs=np.zeros((int((T_stop-T_start)/dt),model_dim,num_initials))

@jit
def model_vectorized(X_):
    "model vectorization using vmap, we can compute multiple forward passes"
    # The second argument below will take the RHS of dynamical equation.
    f_X= vmap(model,in_axes=(1),out_axes=(1))(X_) 
    return f_X    

# fix the rhs of your ode and the runge-kutta time step in the solver using partial function
my_solver=jit(partial(solver,rhs_function=model_vectorized,time_step=dt_solver))

@jit
def integrate_forward(X_):
    #forecast_ensemble=lax.fori_loop(0,iters_delta_t,my_solver,last_analysis_ensemble)
    X=X_
    for i in range(iters_delta_t):
        X=my_solver(x_initial=X)
    return X

#X_now=np.expand_dims(X_o,axis=1)
X_now=X_o
Trajs[0]=X_now
for i in range(1,Trajs.shape[0]):
    X_next=integrate_forward(X_now)
    Trajs[i]=X_next
    X_now=X_next

#Save the last point of the solution
print(Trajs[-1,:,0].shape)
print('job done')


if __name__ == "__main__":
    # integrate_forward was traced once for all 199 steps (its two cache entries: the NumPy
    # X_o of the first call and the device arrays it returns); further steps compile nothing
    from jax import monitoring
    compiles = []
    monitoring.register_event_duration_secs_listener(
        lambda name, d, **kw: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None)
    X_more = X_now
    for _ in range(50):
        X_more = integrate_forward(X_more)
    assert compiles == [], compiles
    assert integrate_forward._cache_size() <= 2, integrate_forward._cache_size()
    # the jitted trajectory equals an eager step-by-step RK4 integration of the same ODE
    with jax.disable_jit():
        x = jnp.asarray(X_o)
        for i in range(1, Trajs.shape[0]):
            x = solver(lambda X: vmap(L63, in_axes=1, out_axes=1)(X), x, dt_solver)
    assert np.allclose(Trajs[-1], np.asarray(x), rtol=1e-8, atol=1e-10), (Trajs[-1], x)
    assert np.isfinite(Trajs).all() and np.abs(Trajs[-1]).max() > 1e-3
    print("OK: one compile, trajectory matches eager RK4")
