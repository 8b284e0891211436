# source: https://github.com/PredictiveIntelligenceLab/Physics-informed-DeepONets/blob/77e7c747d653b34e79e43df7d88bad87de5c27d8/Eikonal/PI_DeepOnet_Eikonal_circle.ipynb
# observed on jax 0.10.2 CPU: generate_res_training_data draws the circle's radius with
#   random.uniform(key) and then the PDE collocation points with random.uniform(key, (P, 2))
#   from the same key, so the first collocation point of every sample is not random at all:
#   its x coordinate is exactly -1 + 2 * r, a point fixed by the radius of that sample's
#   circle (equal random draws; every other coordinate reuses the same stream too).
# gap: other
# added: the notebook's cells are kept as written (its data generator, its three data
#   functions and the two training-data cells); the imports of the first cell are cut down to
#   what these cells use, `data.Dataset` (torch, not installed) is replaced by `object`, and
#   N_train is 8 instead of 1000 so the example runs in seconds; the `__main__` block is added.
import numpy as onp
import jax.numpy as np
from jax import random, vmap, jit
from functools import partial


# Data generator
class DataGenerator(object):
    def __init__(self, u, y, s, 
                 batch_size=64, rng_key=random.PRNGKey(1234)):
        'Initialization'
        self.u = u # input sample
        self.y = y # location
        self.s = s # labeled data evulated at y (solution measurements, BC/IC conditions, etc.)
        
        self.N = u.shape[0]
        self.batch_size = batch_size
        self.key = rng_key

    def __getitem__(self, index):
        'Generate one batch of data'
        self.key, subkey = random.split(self.key)
        inputs, outputs = self.__data_generation(subkey)
        return inputs, outputs

    @partial(jit, static_argnums=(0,))
    def __data_generation(self, key):
        'Generates data containing batch_size samples'
        idx = random.choice(key, self.N, (self.batch_size,), replace=False)
        s = self.s[idx,:]
        y = self.y[idx,:]
        u = self.u[idx,:]
        # Construct batch
        inputs = (u, y)
        outputs = s
        return inputs, outputs


# Geneate training data corresponding to zero boundary condition
def generate_bcs_training_data(key, m=100, P=100):
    # Sample a radius from an uniform distribution
    r = random.uniform(key)
    # Parameterzing the circle with polar coordinates
    fn_theta = lambda theta:  np.hstack([r * np.cos(theta), r * np.sin(theta)])
    # Discretize the parameter space 
    theta = np.linspace(0, 2 * np.pi, m)

    # Input sample 
    u =  vmap(fn_theta)(theta).reshape(1, -1)  # shape = (1, 2m)   (x1, y1, x2, y2, ...) 

    # Fixed sensors
    y1 = r * np.cos(theta)[:, None]
    y2 = r * np.sin(theta)[:, None]
    y =  np.hstack([y1, y2])  # shape = (m, 2)

    # Tile inputs
    u = np.tile(u, (P, 1))  # shape = (P, 2m) in this example P = m
    s = np.zeros((P, 1))

    return u, y, s 

# Geneate training data corresponding to PDE residual
def generate_res_training_data(key, m=100, P=1000):
    # Sample a radius from an uniform distribution
    r = random.uniform(key)
    # Parameterzing the circle with polar coordinates
    fn_theta = lambda theta:  np.hstack([r * np.cos(theta), r * np.sin(theta)])
    # Discretize the parameter space 
    theta = np.linspace(0, 2 * np.pi, m)

    # Input sample 
    u =  vmap(fn_theta)(theta).reshape(1, -1)  # shape = (1, 2m)   (x1, y1, x2, y2, ...) 
    # Collocation points in [-1, 1] x [-1, 1]
    y = - 1 + 2 * random.uniform(key, (P,2))  # expect: JIT502
    
    # Tile inputs
    u = np.tile(u, (P,1))  # shape = (P, 2m) 
    s = np.zeros((P, 1))

    return u, y, s 

# Geneate test data 
def generate_test_data(key, m=100, P=100):
    r = random.uniform(key)

    fn_theta = lambda theta:  np.hstack([r * np.cos(theta), r * np.sin(theta)])

    theta = np.linspace(0, 2 * np.pi, m)

    u =  vmap(fn_theta)(theta).reshape(1, -1)  # shape = (1, 2m)   (x1, y1, x2, y2, ...) 

    y1 = np.linspace(-1,1, P)
    y2 = np.linspace(-1,1, P)

    y1, y2 = np.meshgrid(y1, y2)
    y = np.hstack((y1.flatten()[:, None], y2.flatten()[:, None]))  # shape = (P, 2)

    # Tile inputs
    u = np.tile(u, (P**2, 1))  # shape = (P, 2m) in this example P = m

    # Exact solution
    def signed_dist(y1, y2):
      dist = np.sqrt(y1**2 +y2**2) - r
      return dist

    s = signed_dist(y[:,0:1], y[:,1:2])
    return r, u, y, s 

# Training data for boundary loss
N_train = 8
m = 100 # number of input sensors
P_train = 100   # number of output sensors
key = random.PRNGKey(0) # use different key for generating test data 
keys = random.split(key, N_train)
gen_fn = jit(lambda key: generate_bcs_training_data(key, m, P_train))
u_train, y_train, s_train = vmap(gen_fn)(keys)
u_train = u_train.reshape(N_train * P_train,-1)
y_train = y_train.reshape(N_train * P_train,-1)
s_train = s_train.reshape(N_train * P_train,-1)


# # Training data for residual loss
m = 100 # number of input sensors
P_r_train = 1000   # number of output sensors
key = random.PRNGKey(0) # use different key for generating test data 
keys = random.split(key, N_train)
gen_fn = jit(lambda key: generate_res_training_data(key, m, P_r_train))
u_r_train, y_r_train, s_r_train = vmap(gen_fn)(keys)
u_r_train = u_r_train.reshape(N_train * P_r_train,-1)
y_r_train = y_r_train.reshape(N_train * P_r_train,-1)
s_r_train = s_r_train.reshape(N_train * P_r_train,-1)


if __name__ == "__main__":
    # the radius of sample i is u[0] (r * cos(0)); its first collocation point is row i * P
    radii = u_r_train[::P_r_train, 0]
    first_x = y_r_train[::P_r_train, 0]
    # observed: line 85 puts the first collocation point of every circle at x = -1 + 2r
    assert bool(np.allclose(first_x, -1 + 2 * radii, atol=1e-6))
    # the boundary data drew the same radii, as the notebook means it to (same keys)
    assert bool(np.allclose(u_train[::P_train, 0], radii))
    bcs_dataset = DataGenerator(u_train, y_train, s_train, 64)
    (u_b, y_b), s_b = bcs_dataset[0]
    assert u_b.shape == (64, 2 * m) and y_b.shape == (64, 2)
