# source: https://github.com/Carrioli/jax_DL/blob/44748f70d6ed9c0015a74a3cd8fb65db0cb45640/conv_net.py
#   (a personal repository of "scratch implementations" of U-net, ViT and a ConvNet in JAX,
#   trained on the histopathologic-cancer-detection images)
# observed on jax 0.10.2 CPU: init_params draws dense4's weights and bias from keys[10] and
#   keys[11], the keys dense3's weights and bias were already drawn from. lecun_normal draws
#   the same truncated normals for the same key (one per flat position), so dense4's w is
#   dense3's first 256 weights rescaled (by sqrt(256/128)) and dense4's b dense3's first two
#   biases rescaled (by sqrt(128/2)): the classifier head is initialised from copies of the
#   layer before it. jax_debug_key_reuse with typed keys rejects line 57.
# gap: other
# added/replaced: `load_data.LoadDataset` and torch's DataLoader/random_split are replaced by
#   small stand-ins over random NumPy images of the same layout (N, 3, 32, 32) with 0/1
#   labels (torch is not installed); the __main__ block trains on 1000 such images for 2
#   epochs (the author: the full dataset for 30 epochs, 8 loader workers) and ends with the
#   added checks; `Dataset` is no longer imported; the size print reads len(train_ds[1]);
#   the commented-out norm layers of init_params and the optax schedule are dropped.
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import grad, jit, lax, nn, random, value_and_grad, vmap
from jax.nn import relu, relu6, selu
from optax import lion
from tqdm import tqdm


def init_params():
    master_key = random.PRNGKey(42)
    num_keys = 30
    keys = [random.PRNGKey(k) for k in random.randint(master_key, shape=(num_keys,), minval = -2**31, maxval = 2**31-1)]
    initializer = nn.initializers.lecun_normal()

    params = {
        'conv1': {
            'w': initializer(keys[0], (64, 3, 2, 2)), # out_c, in_c, h, w
            'b': initializer(keys[1], (64, 16, 16))
        },
        'conv2': {
            'w': initializer(keys[2], (128, 64, 2, 2)),
            'b': initializer(keys[3], (128, 7, 7))
        },
        'conv3': {
            'w': initializer(keys[4], (128, 128, 2, 2)),
            'b': initializer(keys[5], (128, 3, 3))
        },
        'dense1': {
            'w': initializer(keys[6], (512, 512)),
            'b': initializer(keys[7], (512, 1)).squeeze() # initialized as 2D because of initializer, then squeeze
        },'dense2': {
            'w': initializer(keys[8], (512, 256)),
            'b': initializer(keys[9], (256, 1)).squeeze()
        },'dense3': {
            'w': initializer(keys[10], (256, 128)),
            'b': initializer(keys[11], (128, 1)).squeeze()
        },'dense4': {
            'w': initializer(keys[10], (128, 2)),  # expect: JIT502
            'b': initializer(keys[11], (2, 1)).squeeze()  # expect: JIT502
        }
    }
    return params


def batched_model(params, x):
    x = lax.conv(x, params['conv1']['w'], (2, 2), 'VALID') + params['conv1']['b']
    x = activation(x)
    x = hk.max_pool(value = x, window_shape = (2, 2), strides=(1, 1), padding='VALID')

    x = lax.conv(x, params['conv2']['w'], (2, 2), 'VALID') + params['conv2']['b']
    x = activation(x)
    x = hk.max_pool(value = x, window_shape = (2, 2), strides=(1, 1), padding='VALID')

    x = lax.conv(x, params['conv3']['w'], (2, 2), 'VALID') + params['conv3']['b']
    x = activation(x)
    x = hk.max_pool(value = x, window_shape = (2, 2), strides=(1, 1), padding='VALID')
    
    x = jnp.reshape(x, (x.shape[0], -1)) # flatten layer, 2D output

    x = x @ params['dense1']['w'] + params['dense1']['b']
    x = activation(x)

    x = x @ params['dense2']['w'] + params['dense2']['b']
    x = activation(x)

    x = x @ params['dense3']['w'] + params['dense3']['b']
    x = activation(x)

    x = x @ params['dense4']['w'] + params['dense4']['b']
    x = nn.log_softmax(x)
    return x


def batched_loss_f(params, x, y_true):
    y_pred = batched_model(params, x)
    y_true_one_hot = nn.one_hot(y_true, num_classes = 2, dtype = int)
    return optax.softmax_cross_entropy(logits = y_pred, labels = y_true_one_hot).mean() # loss is already vectorized 

@jax.jit
def update(params, opt_state, x, y_true):
    loss, grads = value_and_grad(batched_loss_f, argnums = 0)(params, x, y_true)
    updates, new_opt_state = optimizer.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return loss, new_params, new_opt_state

@jax.jit
def eval(params, x_batch, y_batch):
    y_pred_batch = batched_model(params, x_batch)
    accuracy = jnp.mean(jnp.argmax(y_pred_batch, -1) == y_batch)
    return accuracy


# stand-ins for load_data.LoadDataset and torch.utils.data (added)
class LoadDataset:
    def __init__(self, img_dir, labels_csv, dimension, sample_fraction, augment):
        rs = np.random.RandomState(0)
        self.x = rs.rand(1000, 3, dimension, dimension).astype(np.float32)
        self.y = rs.randint(0, 2, size=1000)

    def __len__(self):
        return len(self.y)


def random_split(ds, lengths):
    idx = np.random.RandomState(1).permutation(len(ds))
    a, b = idx[:lengths[0]], idx[lengths[0]:]
    return (ds.x[a], ds.y[a]), (ds.x[b], ds.y[b])


class DataLoader:
    def __init__(self, data, batch_size, **kwargs):
        self.x, self.y = data
        self.batch_size = batch_size

    def __len__(self):
        return len(self.y) // self.batch_size

    def __iter__(self):
        for i in range(len(self)):
            s = slice(i * self.batch_size, (i + 1) * self.batch_size)
            yield self.x[s], self.y[s]


if __name__ == '__main__':
    # constants
    batch_size  = 200
    num_epochs  = 2
    train_ratio = 0.8

    # get data
    sub_path = './'
    ds = LoadDataset(sub_path + 'train', sub_path + 'train_labels.csv', dimension=32, sample_fraction=1.0, augment=True)
    num_train = int(train_ratio*len(ds))
    num_test = len(ds) - num_train
    train_ds, test_ds = random_split(ds, [num_train, num_test])
    train_dl = DataLoader(train_ds, batch_size=batch_size, shuffle=True, drop_last=True, num_workers=8, prefetch_factor=15)
    test_dl  = DataLoader(test_ds , batch_size=batch_size, shuffle=True, drop_last=True, num_workers=8, prefetch_factor=15)

    # init
    params = init_params()
    lr = 2e-5
    optimizer = optax.lion(learning_rate = lr)
    opt_state = optimizer.init(params)
    activation = relu6

    num_params = format(sum(jax_array.size for jax_array in jax.tree_util.tree_flatten(params)[0]), ',')
    print(f'Learning rate {lr}')
    print(f'Batch size {batch_size}')
    print(f'Number of parametes: {num_params}')
    print(f'Training on {len(train_ds[1])} examples and {len(train_dl)} batches of size {batch_size}')

    # train
    bar = tqdm(total = num_epochs * len(train_dl), ncols = 150, leave = True)
    bar.colour = '#0000ff'
    for epoch in range(num_epochs):
        bar.set_postfix(epoch = f'{epoch + 1} out of {num_epochs}')
        epoch_loss = 0.0
        for (batch_img, batch_label) in iter(train_dl):
            batch_loss, params, opt_state = update(params, opt_state, jnp.array(batch_img), jnp.array(batch_label)) # batches need to be converted to jnp array
            epoch_loss += batch_loss
            bar.update(1)
        # eval for each epoch
        accuracies = [eval(params, jnp.array(x_batch), jnp.array(y_batch)) for (x_batch, y_batch) in iter(test_dl)]
        tqdm.write(f'Epoch: {epoch + 1}, average epoch loss: {epoch_loss/len(train_dl):.6f}. Test accuracy: {sum(accuracies)/len(accuracies)}')

    # added checks
    fresh = init_params()
    w3, w4 = np.asarray(fresh['dense3']['w']), np.asarray(fresh['dense4']['w'])
    b3, b4 = np.asarray(fresh['dense3']['b']), np.asarray(fresh['dense4']['b'])
    # observed: line 57 draws dense4's w from keys[10], dense3's key: it is dense3's first 256 weights times sqrt(256/128)
    assert np.allclose(w4.ravel() * np.sqrt(128), w3.ravel()[:256] * np.sqrt(256), atol=1e-6), (w4.ravel()[:4], w3.ravel()[:4])
    # observed: line 58 draws dense4's b from keys[11], dense3's key: it is dense3's first 2 biases times sqrt(128/2)
    assert np.allclose(b4 * np.sqrt(2), b3[:2] * np.sqrt(128), atol=1e-6), (b4, b3[:2])
    print("dense4 w[:4]:", w4.ravel()[:4], "dense3 w[:4] * sqrt(1/2):", w3.ravel()[:4] * np.sqrt(0.5))
