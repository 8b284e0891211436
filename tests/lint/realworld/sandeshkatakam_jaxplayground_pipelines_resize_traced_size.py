# source: https://github.com/sandeshkatakam/jax-playground/blob/734d39cb1dfe26cb0b084ae9ccc00a88019ec21a/jax_data_pipelines_advanced.ipynb
#   (a learner's practice notebook on input pipelines in JAX: batching, augmentation,
#   padding; code cells 2-14, up to the jitted nearest-neighbour resize)
# observed on jax 0.10.2 CPU: `resize_nearest` is jitted with every argument traced, so
#   `new_h` reaches `jnp.linspace(0, h - 1, new_h)` as a tracer and the call
#   `resize_nearest(cropped, 16, 16)` raises ConcretizationTypeError (linspace's `num`
#   must be a concrete int) at the `ys` line; the `xs` line repeats it with `new_w`. The
#   notebook's later cells (brightness, padding, masks, a flax MLP and its training loop)
#   are left out: the cell raises before them. Changed: the cells' markers are written
#   `# In[ ]:` (the notebook stores no execution counts). Nothing added.
# gap: other
# In[ ]:
import jax
import jax.numpy as jnp
from jax import random, jit, vmap
import numpy as np
import math

print('JAX version:', jax.__version__)
print('Device:', jax.devices()[0])


# In[ ]:
def normalize_batch(x, mean, std, eps=1e-6):
    return (x - mean) / (std + eps)

x = jnp.array([[1., 2., 3.], [4., 5., 6.]])
mean = jnp.mean(x, axis=0, keepdims=True)
std = jnp.std(x, axis=0, keepdims=True)
print(normalize_batch(x, mean, std))


# In[ ]:
# Synthetic tabular data: binary classification
key = random.PRNGKey(0)
N, D = 4096, 64
key, k1, k2 = random.split(key, 3)
X = random.normal(k1, (N, D))
true_w = random.normal(k2, (D,))
logits = X @ true_w
y = (jax.nn.sigmoid(logits) > 0.5).astype(jnp.float32)

print('X shape:', X.shape, 'y shape:', y.shape)


# In[ ]:
def train_val_split(X, y, val_frac=0.2):
    n = X.shape[0]
    n_val = int(n * val_frac)
    return (X[:-n_val], y[:-n_val]), (X[-n_val:], y[-n_val:])

(X_train, y_train), (X_val, y_val) = train_val_split(X, y)
print(X_train.shape, X_val.shape)


# In[ ]:
def make_batches(key, X, y, batch_size=128, shuffle=True):
    n = X.shape[0]
    idx = jnp.arange(n)
    if shuffle:
        idx = random.permutation(key, idx)
    for start in range(0, n - batch_size + 1, batch_size):
        b = idx[start:start+batch_size]
        yield X[b], y[b]

key, k = random.split(key)
xb, yb = next(make_batches(k, X_train, y_train, 256))
print(xb.shape, yb.shape)


# In[ ]:
# Exercise cell

def standardize_from_train(X_train, X_other, eps=1e-6):
    # TODO
    mean = jnp.mean(X_train, axis=0, keepdims=True)
    std = jnp.std(X_train, axis=0, keepdims=True)
    return (X_other - mean) / (std + eps)

X_val_std = standardize_from_train(X_train, X_val)
print('val mean (approx):', jnp.mean(X_val_std, axis=0)[:5])


# In[ ]:
# Fake image batch (for demonstration)
key, k = random.split(key)
N_img, H, W, C = 128, 32, 32, 3
images = random.uniform(k, (N_img, H, W, C))
print(images.shape)


# In[ ]:
def random_horizontal_flip(key, imgs, p=0.5):
    n = imgs.shape[0]
    flip_mask = random.bernoulli(key, p=p, shape=(n, 1, 1, 1))
    flipped = imgs[:, :, ::-1, :]
    return jnp.where(flip_mask, flipped, imgs)

@jit
def center_crop(imgs, crop_h=28, crop_w=28):
    h, w = imgs.shape[1], imgs.shape[2]
    sh = (h - crop_h) // 2
    sw = (w - crop_w) // 2
    return imgs[:, sh:sh+crop_h, sw:sw+crop_w, :]

key, k = random.split(key)
aug = random_horizontal_flip(k, images)
cropped = center_crop(aug)
print('aug:', aug.shape, 'cropped:', cropped.shape)


# In[ ]:
@jit
def resize_nearest(imgs, new_h, new_w):
    # lightweight educational resize: nearest-neighbor
    n, h, w, c = imgs.shape
    ys = jnp.floor(jnp.linspace(0, h - 1, new_h)).astype(jnp.int32)  # expect: JIT404
    xs = jnp.floor(jnp.linspace(0, w - 1, new_w)).astype(jnp.int32)  # tolerate: JIT404
    return imgs[:, ys[:, None], xs[None, :], :]

small = resize_nearest(cropped, 16, 16)
print(small.shape)
