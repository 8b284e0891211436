# source: https://github.com/gordicaleksa/get-started-with-JAX/blob/326e79534bb6ed6fd98fa1542827d882599e1d68/Tutorial_3_JAX_Neural_Network_from_Scratch_Colab.ipynb
#   (a popular JAX video-tutorial notebook, "MLP training on MNIST": cells 2, 3 without its
#   "# test" lines, 4 without its tests, 5's data preparation and 6)
# observed on jax 0.10.2 CPU: runs clean. MLP_predict is written for one image and batched
#   with vmap(in_axes=(None, 0)); update is jitted once at module level with its learning
#   rate a Python default argument, so every batch of 128 images reuses one compilation;
#   the parameters are initialised once from split keys. The torchvision
#   MNIST dataset and the PyTorch DataLoader are replaced by stand-ins: 1024 training and
#   256 test images of random pixels with random labels, served in batches of 128 as NumPy
#   arrays (what custom_collate_fn returns), and `MNIST.classes` by a list of ten labels.
#   `jax.tree_multimap` (removed) is spelled `jax.tree.map`. Added: the stand-ins and the
#   __main__ block.
# gap: per-call-recompile
import types

import numpy as np
import jax.numpy as jnp
from jax.scipy.special import logsumexp
import jax
from jax import jit, vmap, pmap, grad, value_and_grad

seed = 0
mnist_img_size = (28, 28)

def init_MLP(layer_widths, parent_key, scale=0.01):

    params = []
    keys = jax.random.split(parent_key, num=len(layer_widths)-1)

    for in_width, out_width, key in zip(layer_widths[:-1], layer_widths[1:], keys):
        weight_key, bias_key = jax.random.split(key)
        params.append([
                       scale*jax.random.normal(weight_key, shape=(out_width, in_width)),
                       scale*jax.random.normal(bias_key, shape=(out_width,))
                       ]
        )

    return params

key = jax.random.PRNGKey(seed)

def MLP_predict(params, x):
    hidden_layers = params[:-1]

    activation = x
    for w, b in hidden_layers:
        activation = jax.nn.relu(jnp.dot(w, activation) + b)

    w_last, b_last = params[-1]
    logits = jnp.dot(w_last, activation) + b_last

    # log(exp(o1)) - log(sum(exp(o1), exp(o2), ..., exp(o10)))
    # log( exp(o1) / sum(...) )
    return logits - logsumexp(logits)

# test batched function
batched_MLP_predict = vmap(MLP_predict, in_axes=(None, 0))

# stand-ins for torchvision's MNIST and the DataLoader with custom_collate_fn
MNIST = types.SimpleNamespace(classes=[str(i) for i in range(10)])
_rs = np.random.RandomState(0)
_train_x = _rs.randint(0, 256, size=(1024, 28, 28)).astype(np.uint8)
_train_y = _rs.randint(0, 10, size=1024)
_test_x = _rs.randint(0, 256, size=(256, 28, 28)).astype(np.uint8)
_test_y = _rs.randint(0, 10, size=256)
train_loader = [(np.ravel(_train_x[i:i + 128].astype(np.float32)).reshape(128, -1), _train_y[i:i + 128])
                for i in range(0, 1024, 128)]

# optimization - loading the whole dataset into memory
train_images = jnp.array(_train_x).reshape(len(_train_x), -1)
train_lbls = jnp.array(_train_y)

test_images = jnp.array(_test_x).reshape(len(_test_x), -1)
test_lbls = jnp.array(_test_y)

num_epochs = 5

def loss_fn(params, imgs, gt_lbls):
    predictions = batched_MLP_predict(params, imgs)

    return -jnp.mean(predictions * gt_lbls)

def accuracy(params, dataset_imgs, dataset_lbls):
    pred_classes = jnp.argmax(batched_MLP_predict(params, dataset_imgs), axis=1)
    return jnp.mean(dataset_lbls == pred_classes)

@jit
def update(params, imgs, gt_lbls, lr=0.01):
    loss, grads = value_and_grad(loss_fn)(params, imgs, gt_lbls)

    return loss, jax.tree.map(lambda p, g: p - lr*g, params, grads)

# Create a MLP
MLP_params = init_MLP([np.prod(mnist_img_size), 512, 256, len(MNIST.classes)], key)

for epoch in range(num_epochs):

    for cnt, (imgs, lbls) in enumerate(train_loader):

        gt_labels = jax.nn.one_hot(lbls, len(MNIST.classes))
        
        loss, MLP_params = update(MLP_params, imgs, gt_labels)
        
        if cnt % 50 == 0:
            print(loss)

    print(f'Epoch {epoch}, train acc = {accuracy(MLP_params, train_images, train_lbls)} test acc = {accuracy(MLP_params, test_images, test_lbls)}')


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    imgs, lbls = train_loader[0]
    for _ in range(3):
        loss, MLP_params = update(MLP_params, imgs, jax.nn.one_hot(lbls, len(MNIST.classes)))
    assert compiles == [], compiles
    assert update._cache_size() == 1
    assert [w.shape for w, b in MLP_params] == [(512, 784), (256, 512), (10, 256)]
    assert bool(jnp.isfinite(loss))
