# source: https://github.com/HugoPhi/jaxdls/blob/4abf3f1d8c0bb1eaa6a183b0b1aee250702f214c/knn_cifar10.ipynb
#   (commit "accelerate KNN by lax, jit, vmap" of a personal JAX deep-learning project)
# observed on jax 0.10.2 CPU: KNN.predict fills the test-by-train distance matrix with a
#   lax.scan over batches of the training set, writing each block with
#   lax.dynamic_update_slice at the traced column offset `ix` that the scan carries; the
#   jitted double-vmap `distance` is called inside the scan body on the traced batch; the
#   per-row vote slices the argsort with the Python int self.k and counts with
#   jnp.bincount(length=self.n). It runs, and predictions equal a NumPy k-NN on the same
#   data.
# gap: exemption-vs-JAX
# added: random CIFAR-10-shaped data (2000 training and 50 test images, 10 classes) in
#   place of the kagglehub download and unpickling cell; the __main__ block (with a NumPy
#   reference). The notebook's timing cell is kept in __main__.
import jax.numpy as jnp
import numpy as np
from jax import random
key = random.PRNGKey(42)

_rs = np.random.RandomState(0)
TRAIN = 2000
TEST = 50
x_train = jnp.array(_rs.randint(0, 256, size=(TRAIN, 32, 32, 3))).reshape(-1, 32 * 32 * 3) / 255.
y_train = jnp.array(_rs.randint(0, 10, size=TRAIN))
x_test = jnp.array(_rs.randint(0, 256, size=(TEST, 32, 32, 3))).reshape(-1, 32 * 32 * 3) / 255.
y_test = jnp.array(_rs.randint(0, 10, size=TEST))

import jax.numpy as jnp
from jax import jit, vmap, lax

distance = jit(vmap(
                    vmap(
                        lambda x, y: jnp.sum(jnp.abs(x - y)), in_axes=(None, 0)
                    ), in_axes=(0, None)
                ))


class KNN:
    def __init__(self, k, num_class):
        self.k = k
        self.n = num_class

    def train(self, x_train, y_train):
        self.x = jnp.array(x_train)
        self.y = jnp.array(y_train)

    def predict(self, x_test, batch_size=1000):

        dismat = jnp.zeros((x_test.shape[0], self.x.shape[0]))

        # # Loop version
        # for i in range(0, self.x.shape[0], batch_size):
        #     s = time.time()
        #     dismat = dismat.at[:, i:i+batch_size].set(
        #         distance(x_test, self.x[i:i+batch_size])
        #     )
        #     print(f'{time.time() - s}')

        def step(carry, x_t):
            mat, ix = carry

            dis_batch = distance(x_test, x_t)
            new_mat = lax.dynamic_update_slice(mat, dis_batch, (0, ix))
            return (new_mat, ix + x_t.shape[0]), ()

        batches = jnp.array([self.x[ix: ix+batch_size] for ix in range(0, self.x.shape[0], batch_size)])

        (dismat, _), _ = lax.scan(step, (dismat, 0), batches)

        def proba(d):
            kns = self.y[jnp.argsort(d)[:self.k]]
            cnt = jnp.bincount(kns, length=self.n)
            return jnp.argmax(cnt / self.k)

        get_proba = vmap(proba, in_axes=(0,))

        res = get_proba(dismat)
        return res


knn = KNN(k=10, num_class=10)
knn.train(x_train, y_train)


if __name__ == "__main__":
    import time

    s = time.time()
    y_pred = knn.predict(x_test)
    print(jnp.mean(y_test==y_pred))
    print()
    print(f'time: {time.time() - s} s')

    xt, xr, yr = np.asarray(x_test), np.asarray(x_train), np.asarray(y_train)
    d = np.stack([np.abs(xr - row).sum(-1) for row in xt])
    ref = np.array([np.argmax(np.bincount(yr[np.argsort(row, kind="stable")[:10]], minlength=10)) for row in d])
    agree = np.mean(ref == np.asarray(y_pred))
    assert agree > 0.95, agree
