# source: https://github.com/gcucurull/jax-gcn/blob/9588c9521106743122ba7c165c95eb97bd3c8f84/train.py
#   (with models.py at the same commit; the next commit, c7432f0, "change random key at each
#   iteration, otherwise dropout uses always the same mask", is the fix)
# observed on jax 0.10.2 CPU: a two-layer GCN (Kipf & Welling) on a citation graph, trained
#   with a jitted stax-style update. rng_key = PRNGKey(0) initialises the parameters
#   (init_fun splits it for the layers) and is then put, unchanged, into every epoch's
#   training batch, where the Dropout layer draws its mask with random.bernoulli(rng, ...).
#   Every epoch drops the same units, and the dropout key is the key the initialisation
#   already consumed. The __main__ block records (through jax.debug.callback) the key each
#   dropout draw gets inside the jitted update: all 150 are PRNGKey(0).
# gap: other
# added: imports; models.py's Dropout, GraphConvolution and GCN inlined above train.py's
#   code; a stand-in for utils.load_data (which reads Cora from data/): a random symmetric,
#   row-normalised 60-node graph with 20 features and 3 classes, and the index sets as
#   NumPy arrays (load_data's lists of ints cannot index a JAX array on current JAX, the
#   error of the repository's PR #1); train.py's __main__ code moved into main(); the
#   __main__ block that records the dropout keys.
# replaced: jax.experimental.stax/optimizers by jax.example_libraries.stax/optimizers; the
#   removed five-argument lax.cond(pred, true_operand, true_fun, false_operand, false_fun)
#   by lax.cond(pred, true_fun, false_fun, operand).
import argparse
import math
import time

import numpy as onp
import jax
import jax.numpy as np
from jax import jit, grad, lax, random
from jax.example_libraries import optimizers
from jax.example_libraries.stax import Relu, LogSoftmax
from jax.nn.initializers import uniform


def Dropout(rate):
    """
    Layer construction function for a dropout layer with given rate.
    This Dropout layer is modified from stax.experimental.Dropout, to use
    `is_training` as an argument to apply_fun, instead of defining it at
    definition time.
    """
    def init_fun(rng, input_shape):
        return input_shape, ()
    def apply_fun(params, inputs, is_training, **kwargs):
        rng = kwargs.get('rng', None)
        if rng is None:
            msg = ("Dropout layer requires apply_fun to be called with a PRNG key "
                   "argument. That is, instead of `apply_fun(params, inputs)`, call "
                   "it like `apply_fun(params, inputs, rng)` where `rng` is a "
                   "jax.random.PRNGKey value.")
            raise ValueError(msg)
        keep = random.bernoulli(rng, rate, inputs.shape)
        outs = np.where(keep, inputs / rate, 0)
        # if not training, just return inputs and discard any computation done
        return lax.cond(is_training, lambda ops: ops[0], lambda ops: ops[1], (outs, inputs))
    return init_fun, apply_fun


def GraphConvolution(out_dim):
    """
    Layer constructor function for a Graph Convolution layer similar to https://arxiv.org/abs/1609.02907
    """
    def init_fun(rng, input_shape):
        output_shape = input_shape[:-1] + (out_dim,)
        k1, k2 = random.split(rng)
        stdv = 1. / math.sqrt(out_dim)
        W_init, b_init = uniform(stdv), uniform(stdv)
        W = W_init(k1, (input_shape[-1], out_dim))
        b = b_init(k2, (out_dim,))
        return output_shape, (W, b)

    def apply_fun(params, x, adj, **kwargs):
        W, b = params
        support = np.dot(x, W) + b
        out = np.matmul(adj, support)
        return out

    return init_fun, apply_fun

def GCN(nhid, nclass, dropout):
    """
    This function implements the GCN model that uses 2 Graph Convolutional layers.
    The code is adapted from jax.experimental.stax.serial to be able to use
    the adjacency matrix as an argument to the GC layers but not the others.
    """
    gc1_init, gc1_fun = GraphConvolution(nhid)
    relu_init, relu_fun = Relu
    drop_init, drop_fun = Dropout(dropout)
    gc2_init, gc2_fun = GraphConvolution(nclass)
    ls_init, ls_fun = LogSoftmax

    init_funs = [gc1_init, relu_init, drop_init, gc2_init, ls_init]
    nlayers = len(init_funs)

    def init_fun(rng, input_shape):
        params = []
        for init_fun in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init_fun(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, x, adj, is_training=False, **kwargs):
        rng = kwargs.pop('rng', None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers

        x = gc1_fun(params[0], x, adj, rng=rng)
        x = relu_fun(params[1], x, rng=rng)
        x = drop_fun(params[2], x, is_training=is_training, rng=rng)
        x = gc2_fun(params[3], x, adj, rng=rng)
        x = ls_fun(params[4], x, rng=rng)
        return x

    return init_fun, apply_fun


def load_data():
    # stand-in for utils.load_data (Cora): a random row-normalised graph
    rs = onp.random.RandomState(0)
    n, f, c = 60, 20, 3
    a = (rs.rand(n, n) < 0.08).astype(onp.float32)
    a = onp.maximum(a, a.T) + onp.eye(n, dtype=onp.float32)
    adj = a / a.sum(1, keepdims=True)
    features = rs.rand(n, f).astype(onp.float32)
    features = features / features.sum(1, keepdims=True)
    labels = onp.eye(c, dtype=onp.int32)[rs.randint(0, c, size=n)]
    idx_train = onp.arange(20)
    idx_val = onp.arange(20, 40)
    idx_test = onp.arange(40, 60)
    return adj, features, labels, idx_train, idx_val, idx_test


def loss(params, batch):
    """
    The idxes of the batch indicate which nodes are used to compute the loss.
    """
    inputs, targets, adj, is_training, rng, idx = batch
    preds = predict_fun(params, inputs, adj, is_training=is_training, rng=rng)
    ce_loss = -np.mean(np.sum(preds[idx] * targets[idx], axis=1))
    l2_loss = 5e-4 * optimizers.l2_norm(params)
    return ce_loss + l2_loss


def accuracy(params, batch):
    inputs, targets, adj, is_training, rng, idx = batch
    target_class = np.argmax(targets, axis=1)
    predicted_class = np.argmax(predict_fun(params, inputs, adj, is_training=is_training, rng=rng), axis=1)
    return np.mean(predicted_class[idx] == target_class[idx])


def main():
    global predict_fun
    parser = argparse.ArgumentParser()
    args = parser.parse_args()

    # Load data
    adj, features, labels, idx_train, idx_val, idx_test = load_data()

    rng_key = random.PRNGKey(0)
    dropout = 0.5
    step_size = 0.01
    hidden = 16
    num_epochs = 150
    n_nodes = adj.shape[0]
    n_feats = features.shape[1]

    init_fun, predict_fun = GCN(nhid=hidden,
                                nclass=labels.shape[1],
                                dropout=dropout)
    input_shape = (-1, n_nodes, n_feats)
    _, init_params = init_fun(rng_key, input_shape)

    opt_init, opt_update, get_params = optimizers.adam(step_size)

    @jit
    def update(i, opt_state, batch):
        params = get_params(opt_state)
        return opt_update(i, grad(loss)(params, batch), opt_state)

    opt_state = opt_init(init_params)

    print("\nStarting training...")
    for epoch in range(num_epochs):
        start_time = time.time()
        batch = (features, labels, adj, True, rng_key, idx_train)
        opt_state = update(epoch, opt_state, batch)  # expect: JIT502
        epoch_time = time.time() - start_time

        if epoch % 5 == 0:
            params = get_params(opt_state)
            eval_batch = (features, labels, adj, False, rng_key, idx_val)
            train_batch = (features, labels, adj, False, rng_key, idx_train)
            train_loss = loss(params, train_batch)
            train_acc = accuracy(params, train_batch)
            val_acc = accuracy(params, eval_batch)
            print(f"Iter {epoch}/{num_epochs} ({epoch_time:.4f} s) train_loss: {train_loss:.4f}, train_acc: {train_acc:.4f}, val_acc: {val_acc:.4f}")

    # now run on the test set
    test_batch = (features, labels, adj, False, rng_key, idx_test)
    test_acc = accuracy(params, test_batch)
    print(f'Test set acc: {test_acc}')


if __name__ == "__main__":
    dropout_keys = []
    _bernoulli = random.bernoulli

    def recording_bernoulli(key, p, shape):
        if isinstance(key, jax.core.Tracer):  # inside the jitted update
            jax.debug.callback(lambda k: dropout_keys.append(onp.asarray(k)), key)
        return _bernoulli(key, p, shape)

    random.bernoulli = recording_bernoulli
    try:
        main()
    finally:
        random.bernoulli = _bernoulli
    # observed: line 185 gives every epoch's dropout the key that already initialised the
    # parameters: all 150 masks are drawn from PRNGKey(0)
    assert len(dropout_keys) == 150
    init_key = onp.asarray(random.PRNGKey(0))
    assert all((k == init_key).all() for k in dropout_keys)
    print("dropout keys all equal to the init key:", len(dropout_keys))
