# source: https://github.com/Mr-Markovian/JAXed-EnKF/blob/7e572fb915122d5d90824c193c257b8cd982b0c1/jax_enkf.py
#   (with rk4_solver of ode_solvers.py and L63 of testbed_models.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; an ensemble Kalman filter on Lorenz-63. The jitted
#   `analysis` reads the NumPy globals H and R (np.transpose(H) acts on a NumPy constant, not a
#   tracer, and neither global changes after the functions are traced); `forecast` unrolls the
#   iters_delta_t = 5 RK4 steps of the jitted solver (a Python int bound); the perturbed
#   observations are drawn on the host with np.random.multivariate_normal outside jit, fresh at
#   every assimilation step. analysis compiles once for the whole run, and the filter
#   pulls the ensemble mean from 5.7 to about 0.1 of the truth.
# gap: exemption-vs-JAX
# renamed: `from jax import partial` (removed from JAX) -> functools.partial
# added: rk4_solver and L63 inlined from the repository's ode_solvers.py and testbed_models.py;
#   a synthetic truth run and observations and a biased initial ensemble stand in for the .npy
#   files the script loads from the author's disk (os.chdir dropped); num_assimilations
#   50000 -> 200; the run loop moved into the __main__ block, and the os.mkdir/np.save of the
#   results replaced by a check that the filter tracks the truth and compiled once.
from functools import partial
from jax import vmap,jit
import jax.numpy as jnp
import numpy as np
import os
mvr=np.random.multivariate_normal


def solver(rhs_function,time_step,x_initial):
    """Returns x_k+1 from x_k via rk4 scheme
    rhs_function of the ode, intial condition, time step, time index for time dependence"""
    x_o=x_initial
    k1= rhs_function(x_initial)
    #print(k1.shape)
    k2= rhs_function(x_initial+k1*time_step/2.0)
    k3= rhs_function(x_initial+k2*time_step/2.0)
    k4= rhs_function(x_initial+k3*time_step)
    return x_o+(k1 + 2*k2 + 2*k3 + k4)*time_step/6.0

#Lorenz-63 with default values: sigma=10, rho=28, beta=8/3
def L63(x,sigma=10.,rho=28.,beta=8./3):
    "Function to be used for compuation of ode in scipy.integrate.solve_ivp"
    return jnp.array([sigma*(x[1]-x[0]),x[0]*(rho-x[2])-x[1],x[0]*x[1]-beta*x[2]])

# All the assimilation setup make a filter object with all the details as attributed.

# use the model imported above
model_dim=3
num_clv=3

#model parameters if needed
rho = 28.0
sigma = 10.0
beta = 8.0/3

#fixing the parameters in your model's rhs, if it has any
model=partial(L63,sigma=10.0,rho=28.0,beta=8./3)

parameters={}
# Parameters to be controlled from here...
parameters['ebias']=6.0
parameters['ecov']=4.0
parameters['observables']=1
parameters['model_dim']=model_dim
parameters['obs_gap']=0.01
parameters['solver_time_step']=0.002
parameters['mu']     =1.0
parameters['N']      =40
parameters['alpha']  =1.0             
parameters['loc']    ='False'
parameters['loc_fun']='none'
parameters['l_scale']=0
parameters['num_assimilations']=200

#assign the parameters for the assimilation to variables
ebias=parameters['ebias']
ecov=parameters['ecov']
m=parameters['observables']
n=parameters['model_dim']
#Observation Operator for observing y 
H=np.zeros((m,n))
H[0,1]=1     # for y, choose the location for
delta_t=parameters['obs_gap']
dt_solver=parameters['solver_time_step']
mu=parameters['mu']
iters_delta_t=int(delta_t/dt_solver)
R= mu*np.eye(m)
alpha=parameters['alpha']
ensemble_size=parameters['N']
num_assimilations=parameters['num_assimilations']

# the above model must be vectorized so that we can give multiple initial conditions
@jit
def model_vectorized(X_):
    "model vectorization using vmap, we can compute multiple forward passes"
    # The second argument below will take the RHS of dynamical equation.
    Y_= vmap(model,in_axes=(1),out_axes=(1))(X_) 
    return Y_

my_solver=jit(partial(solver,rhs_function=model_vectorized,time_step=dt_solver))

@jit
def forecast(last_analysis_ensemble):
    #forecast_ensemble=lax.fori_loop(0,iters_delta_t,my_solver,last_analysis_ensemble)
    forecast_ensemble=last_analysis_ensemble
    for i in range(iters_delta_t):
        forecast_ensemble=my_solver(x_initial=forecast_ensemble)
    return forecast_ensemble

@jit
def analysis(forecast_ensemble,perturbed_obs,alpha):
    P_f_H_T=jnp.cov(alpha*forecast_ensemble,rowvar=True)@np.transpose(H)
    Kalman_gain=P_f_H_T@jnp.linalg.inv(H@P_f_H_T+R)
    innovations=perturbed_obs-H@forecast_ensemble
    analysis_ensemble=forecast_ensemble+(Kalman_gain@innovations)
    return analysis_ensemble


if __name__ == "__main__":
    # stand-in for the .npy files: a truth run of L63 observed in y with noise of variance mu
    rng = np.random.default_rng(47)
    truth = np.zeros((num_assimilations, model_dim))
    x = np.array([[1.0], [1.0], [1.0]])
    for _ in range(200):  # spin up onto the attractor
        x = np.asarray(forecast(x))
    for i in range(num_assimilations):
        truth[i] = x[:, 0]
        x = np.asarray(forecast(x))
    observations = truth @ H.T + rng.normal(0.0, np.sqrt(mu), (num_assimilations, m))
    Initial_ensemble = (truth[0] + ebias)[:, None] + np.sqrt(ecov) * rng.standard_normal((model_dim, ensemble_size))
    np.random.seed(3)

    # We create a stamp for this filter run using model detaisl and all the parameters above 

    # Allocate arrays for storing the ensembles
    store_predicted_ensemble=np.zeros((num_assimilations,model_dim,ensemble_size))
    store_filtered_ensemble=np.zeros_like(store_predicted_ensemble)

    # Running enkf below
    ensemble=Initial_ensemble
    for i in range(num_assimilations-1):
        ensemble_predicted=forecast(ensemble)
        ensemble_observation=mvr(observations[i+1],R,ensemble_size).T
        ensemble_filtered=analysis(ensemble_predicted,ensemble_observation,alpha)
        store_predicted_ensemble[i]=ensemble_predicted
        store_filtered_ensemble[i]=ensemble_filtered
        ensemble=ensemble_filtered

    print('Job done, storing the ensembles now')
    print(store_filtered_ensemble.shape)
    err_start = np.abs(Initial_ensemble.mean(axis=1) - truth[0]).mean()
    err_end = np.abs(store_filtered_ensemble[-50:-1].mean(axis=2) - truth[-49:]).mean()
    print('mean abs error: start', err_start, 'last 50 steps', err_end)
    assert err_end < err_start / 2
    assert analysis._cache_size() == 1
