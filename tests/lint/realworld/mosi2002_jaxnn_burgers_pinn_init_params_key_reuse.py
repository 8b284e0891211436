# source: https://github.com/mosi2002/Jax_Neural_network/blob/1d4531b91231ebab6b0c818bd00f46da62ec145f/JAX_NN.ipynb
#   (a PINN for the viscous Burgers equation: an MLP from init_params, a PDE residual by nested
#   jax.grad, an optax Adam step jitted as `update` and a training loop; code cells 1-10)
# observed on jax 0.10.2 CPU: init_params draws each layer's W and B from the same `key`, so
#   every bias vector is the uniform draw behind the first row of its weight matrix
#   (B == (W[0] - lb) / (ub - lb) in all seven layers); training then runs clean.
#   Changed: N_r 10_000 -> 500 and epochs 20_000 -> 200 to keep the run short; the training
#   loop (cells 9-10) moved into __main__; `!pip install optax`, `%%time` and the matplotlib
#   imports and plotting cells (11-13) left out. Added: the check in __main__.
# gap: other
#Imports
import jax
import jax.numpy as jnp
import numpy as np
import optax

N_0 = 100
N_b = 100
N_r = 500

tmin,tmax=0. ,1.
xmin,xmax = -1.,1.

'''boundary conditions'''


# U[0,x] = -sin(pi*x)
t_0 = jnp.ones([N_0,1],dtype='float32')*0.
x_0 = np.random.uniform(low=xmin,high=xmax,size=(N_0,1))
ic_0 = -jnp.sin(jnp.pi*x_0)
IC_0 = jnp.concatenate([t_0,x_0,ic_0],axis=1)

# U[t,-1] = 0
t_b1 = np.random.uniform(low=tmin,high=tmax,size=(N_b,1))
x_b1 = jnp.ones_like(t_b1) *-1
bc_1 = jnp.zeros_like(t_b1)
BC_1 = jnp.concatenate([t_b1,x_b1,bc_1],axis=1)

# U[t,1] = 0
t_b2 = np.random.uniform(low=tmin,high=tmax,size=(N_b,1))
x_b2 = jnp.ones_like(t_b2)
bc_2 = jnp.zeros_like(t_b2)
BC_2 = jnp.concatenate([t_b2,x_b2,bc_2],axis=1)

conds = [IC_0,BC_1,BC_2]

#collocation points
t_c = np.random.uniform(low=tmin,high=tmax,size=(N_r,1))
x_c = np.random.uniform(low=xmin,high=xmax,size=(N_r,1))
colloc = jnp.concatenate([t_c,x_c],axis=1)


def PDE_loss(t,x,u):
  u_x=lambda t,x:jax.grad(lambda t,x:jnp.sum(u(t,x)),1)(t,x)
  u_xx=lambda t,x:jax.grad(lambda t,x : jnp.sum(u_x(t,x)),1)(t,x)
  u_t=lambda t,x:jax.grad(lambda t,x:jnp.sum(u(t,x)),0)(t,x)
  return u_t(t,x) + u(t,x)*u_x(t,x) - (0.01/jnp.pi)*u_xx(t,x)

def init_params(layers):
  keys = jax.random.split(jax.random.PRNGKey(0),len(layers)-1)
  params = list()
  for key,n_in,n_out in zip(keys,layers[:-1],layers[1:]):
    lb, ub = -(1 / jnp.sqrt(n_in)), (1 / jnp.sqrt(n_in)) # xavier initialization lower and upper bound
    W = lb + (ub-lb) * jax.random.uniform(key,shape=(n_in,n_out))
    B = jax.random.uniform(key,shape=(n_out,))  # expect: JIT502
    params.append({'W':W,'B':B})
  return params

def fwd(params,t,x):
  X = jnp.concatenate([t,x],axis=1)
  *hidden,last = params
  for layer in hidden :
    X = jax.nn.tanh(X@layer['W']+layer['B'])
  return X@last['W'] + last['B']

@jax.jit
def MSE(true,pred):
  return jnp.mean((true-pred)**2)


def loss_fun(params,colloc,conds):
  t_c,x_c =colloc[:,[0]],colloc[:,[1]]
  ufunc = lambda t,x : fwd(params,t,x)
  loss =jnp.mean(PDE_loss(t_c,x_c,ufunc) **2)

  for cond in conds :
    t_b,x_b,u_b = cond[:,[0]],cond[:,[1]],cond[:,[2]]
    loss += MSE(u_b,ufunc(t_b,x_b))
  return  loss

@jax.jit
def update(opt_state,params,colloc,conds):
  # Get the gradient w.r.t to MLP params
  grads=jax.jit(jax.grad(loss_fun,0))(params,colloc,conds)

  #Update params
  updates, opt_state = optimizer.update(grads, opt_state)
  params = optax.apply_updates(params, updates)

  #Update params
  # return jax.tree_multimap(lambda params,grads : params-LR*grads, params,grads)
  return opt_state,params


if __name__ == "__main__":
  # construct the MLP of  6 hidden layers of 8 neurons for each layer
  params = init_params([2] + [8]*6+[1])

  # observed: line 65 draws B from the key W was drawn from: B is the draw behind W's first row
  layers = [2] + [8]*6 + [1]
  for layer, n_in in zip(params, layers[:-1]):
    lb, ub = -(1 / np.sqrt(n_in)), (1 / np.sqrt(n_in))
    np.testing.assert_allclose(layer['B'], (layer['W'][0] - lb) / (ub - lb), rtol=1e-5, atol=1e-6)

  lr = optax.piecewise_constant_schedule(1e-2,{10_000:5e-3,30_000:1e-3,50_000:5e-4,70_000:1e-4})
  optimizer = optax.adam(lr)
  opt_state = optimizer.init(params)

  epochs = 200
  for _ in range(epochs):
    opt_state,params = update(opt_state,params,colloc,conds)

    # print loss and epoch info
    if _ %(100) ==0:
      print(f'Epoch={_}\tloss={loss_fun(params,colloc,conds):.3e}')
