# source: https://github.com/google/flax/blob/1a1100add9978b23af695918bd3d21b627161833/docs/notebooks/jax_for_the_impatient.ipynb
#   (Flax's "JAX for the Impatient" tutorial notebook: the sections "Gradients and autodiff",
#   "Accelerating code with jit & ops vectorization" and "Full example: linear regression")
# observed on jax 0.10.2 CPU: after `key = random.PRNGKey(0)` every draw of the gradient,
#   jvp, jit and vmap cells takes that same key, and with JAX's (default) partitionable
#   threefry a draw of n numbers is the first n numbers of a larger draw from the same key:
#   x equals v[:4] extended by one, the million-element v starts with x, batched_x is
#   mat[:5] and single is mat[0]. In the linear regression, k1 draws the true W and is then
#   split again for the sample and noise keys; with `jax_debug_key_reuse` on and a typed
#   key, that split raises KeyReuseError "Previously-consumed key passed to random_split"
#   (__main__). The earlier sections (NumPy API, immutability with the removed
#   jax.ops.index_update, the PRNG demonstration) and the pytree section (the removed
#   tree_multimap) are left out; the %timeit cells run their statement once. Added: the
#   imports of the notebook's first cell, `v_grad_cell = v` to keep the gradient cell's v,
#   and the __main__ block.
# gap: other
import jax
from jax import numpy as jnp, random

import numpy as np # We import the standard NumPy library 

key = random.PRNGKey(0)
def f(x):
  return jnp.dot(x.T,x)/2.0

v = jnp.ones((4,))
f(v)

v = random.normal(key,(4,))
print("Original v:")
print(v)
print("Gradient of f taken at point v")
print(jax.grad(f)(v)) # should be equal to v !
v_grad_cell = v

def f(x):
  return jnp.multiply(x,x)/2.0

x = random.normal(key, (5,))  # expect: JIT502
v = jnp.ones(5)
print("(x,f(x))")
print((x,f(x)))
print("jax.jvp(f, (x,),(v,))")
print(jax.jvp(f, (x,),(v,)))

(val, jvp_fun) = jax.vjp(f,x)
print("x = ", x)
print("v^T Jf(x) = ", jvp_fun(jnp.ones((5,)))[0])

def selu(x, alpha=1.67, lmbda=1.05):
  return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

v = random.normal(key, (1000000,))  # expect: JIT502
selu(v).block_until_ready()

selu_jit = jax.jit(selu)
selu_jit(v).block_until_ready()

mat = random.normal(key, (15, 10))  # expect: JIT502
batched_x = random.normal(key, (5, 10)) # Batching on first dimension  # expect: JIT502
single = random.normal(key, (10,))  # expect: JIT502

def apply_matrix(v):
  return jnp.dot(mat, v)

print("Single apply shape: ", apply_matrix(single).shape)
print("Batched example shape: ", jax.vmap(apply_matrix)(batched_x).shape)

key = random.PRNGKey(0)

# Create the predict function from a set of parameters
def make_predict(W,b):
  def predict(x):
    return jnp.dot(W,x)+b
  return predict

# Create the loss from the data points set
def make_mse(x_batched,y_batched):
  def mse(W,b):
    # Define the squared loss for a single pair (x,y)
    def squared_error(x,y):
      y_pred = make_predict(W,b)(x)
      return jnp.inner(y-y_pred,y-y_pred)/2.0
    # We vectorize the previous to compute the average of the loss on all samples.
    return jnp.mean(jax.vmap(squared_error)(x_batched,y_batched), axis=0)
  return jax.jit(mse) # And finally we jit the result.

# Set problem dimensions
nsamples = 20
xdim = 10
ydim = 5

# Generate random ground truth W and b
k1, k2 = random.split(key)
W = random.normal(k1, (ydim, xdim))
b = random.normal(k2, (ydim,))
true_predict = make_predict(W,b)

# Generate samples with additional noise
ksample, knoise = random.split(k1)  # expect: JIT502
x_samples = random.normal(ksample, (nsamples, xdim))
y_samples = jax.vmap(true_predict)(x_samples) + 0.1*random.normal(knoise,(nsamples, ydim))

# Generate MSE for our samples
mse = make_mse(x_samples,y_samples)

# Initialize estimated W and b with zeros.
What = jnp.zeros_like(W)
bhat = jnp.zeros_like(b)

alpha = 0.3 # Gradient step size
print('Loss for "true" W,b: ', mse(W,b))
for i in range(101):
  # We perform one gradient update
  What, bhat = What - alpha*jax.grad(mse,0)(What,bhat), bhat - alpha*jax.grad(mse,1)(What,bhat)
  if (i%5==0):
    print("Loss step {}: ".format(i), mse(What,bhat))

if __name__ == "__main__":
    import ast
    import traceback

    # observed: line 39 draws x from the key v was drawn from: x[:4] is v
    assert (x[:4] == v_grad_cell).all()
    # observed: line 53 draws the million numbers from it again: they start with x
    assert (v[:5] == x).all()
    # observed: line 59 and line 60 draw mat and batched_x from it: batched_x is mat[:5]
    assert (batched_x == mat[:5]).all()
    # observed: line 61 draws single from it too: single is mat[0]
    assert (single == mat[0]).all()

    # observed: line 100 splits k1, which drew W: the linear regression cell is run again
    # from this file (same line numbers) with a typed key under the key-reuse checker
    tree = ast.parse(open(__file__).read())
    cell = [n for n in tree.body if 94 <= n.lineno <= 100]
    namespace = {"random": random, "make_predict": make_predict, "key": random.key(0),
                 "xdim": xdim, "ydim": ydim}
    jax.config.update("jax_debug_key_reuse", True)
    try:
        exec(compile(ast.Module(body=cell, type_ignores=[]), __file__, "exec"), namespace)
    except Exception as e:
        assert "Previously-consumed key passed to random_split" in str(e), e
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 100, frames
    else:
        raise AssertionError("no KeyReuseError")
