# source: https://github.com/HugoPhi/jaxdls/blob/d063b981e0f7121a0004efa7a1aabd90b03642b7/mlp_mnist.ipynb
#   (commit d063b98 "add Dropout Module" of a personal "minitorch on JAX" project; the
#   notebook imports plugins/minitorch/{optimizer,utils,initer,nn/fc}.py of the same commit)
# observed on jax 0.10.2 CPU: mlp_clf.fit jits `_loss`, whose predict_proba(train=True)
#   threads the dropout key through `self.key`: the trace writes a tracer into mlp.key (it
#   is still a tracer after fit) and bakes the key it read into the compiled loss, so every
#   epoch's gradient uses the same dropout masks. dropout itself samples the mask with `key`
#   and then splits the same `key` for the next layer (the next commit, abf3901, splits
#   first and samples with the sub-key; replayed with a typed key under
#   jax_debug_key_reuse the split raises KeyReuseError). Initer gives every layer's weights
#   random.normal(self.key, ...): layer 2's weights are layer 1's first draws, rescaled.
#   Adam.update defines and jits `adam` on every call: each update compiles it again for
#   every parameter shape.
# gap: other
# added: imports; the notebook's helpers from plugins/minitorch at the same commit, inlined
#   (utils.softmax/cross_entropy_loss, nn/fc.dropout, Initer reduced to the fc4relu layers
#   the notebook uses, Optimizter and Adam without BGD/Momenum); random MNIST-shaped data
#   (512 training and 128 test images) in place of the kagglehub download and its loading
#   and plotting cells; the __main__ block (3 epochs instead of 50).
from abc import ABC, abstractmethod

import jax
import jax.numpy as jnp
import numpy as np
from jax import random, grad, jit, tree


# plugins/minitorch/utils.py
def softmax(logits):
    logits_stable = logits - jnp.max(logits, axis=1, keepdims=True)
    exp_logits = jnp.exp(logits_stable)
    return exp_logits / jnp.sum(exp_logits, axis=1, keepdims=True)


def cross_entropy_loss(y, y_pred):
    epsilon = 1e-9
    y_pred_clipped = jnp.clip(y_pred, epsilon, 1. - epsilon)  # clip here is very important, or you will get Nan when you training.
    loss = -jnp.sum(y * jnp.log(y_pred_clipped), axis=1)
    return loss.mean()


# plugins/minitorch/nn/fc.py
def dropout(x: jnp.ndarray, key, p=0.5, train=True):
    '''
    how to use:

    >>>>>> x, key = dropout(x, key, p=0.5, self.train)
    '''
    if not train:
        return jnp.arange(10), x, key

    p_keep = 1 - p
    mask = random.bernoulli(key, p_keep, x.shape)
    new_key, _ = random.split(key)  # update key, to make mask different in different **batch**.  # expect: JIT502

    return mask, jnp.where(mask, x / p_keep, 0), new_key  # scale here to make E(X) the same while evaluating.


# plugins/minitorch/initer.py (the fc4relu layer only)
class Initer:
    '''
    supported:
    "lstm:"
    "fc:"
    "fc4relu:"
    "conv2d:"
    "conv2d4relu:"
    '''

    SupportLayers = ('lstm', 'gru',
                     'fc', 'fc4relu',
                     'conv2d', 'conv2d4relu',
                     'dropout')

    def __init__(self, config, key):
        self.key = key
        self.config = {k: v for k, v in config.items() if k.split(':')[0] in Initer.SupportLayers}  # filter out key not in SupportLayers

    def __call__(self):
        return {k: self._init_param(k) for k in self.config.keys()}

    def _init_param(self, name: str):
        layer_type = name.split(':')[0]

        if layer_type not in Initer.SupportLayers:
            raise ValueError(f'[x] Do not support layer type: {layer_type} given by {name}.')

        f = getattr(self, f'_{layer_type}', None)

        return f(name)

    def _fc4relu(self, name):
        '''
        Config should be:

        ```
        name: {
            'input_dim': _,
            'output_dim': _,
        }
        ```
        '''
        return {
            'w': random.normal(self.key, (  # expect: JIT502
                self.config[name]['input_dim'],
                self.config[name]['output_dim'],
            )) * jnp.sqrt(2 / self.config[name]['input_dim']),  # Kaiming init
            'b': jnp.zeros(
                self.config[name]['output_dim'],
            )
        }


# plugins/minitorch/optimizer.py (Optimizter and Adam)
class Optimizter(ABC):
    '''
    A Class included by model; regarded as a container for weights & update weights by steps.
    '''
    @abstractmethod
    def __init__(self):
        pass

    @abstractmethod
    def update(self):
        pass

    @abstractmethod
    def flash(self):
        pass

    def open(self, _loss):
        '''
        Input
        -----
        x_tarin: training set input
        y_train: training set label
        '''

        if self.open is True:
            print('oprimizer is already opened.')
        else:
            self.flash()
            self._loss = _loss
            self.open = True

    def close(self):
        if self.open is False:
            print('oprimizer is already closed.')
        else:
            self.open = False

    def get_params(self):
        if self.open is False:
            raise ValueError('please open optimizer first!!!')
        else:
            return self.params

    def get_steps(self):
        if self.open is False:
            raise ValueError('please open optimizer first!!!')
        else:
            return self.steps


class Adam(Optimizter):
    def __init__(self, params,
                 lr=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6):
        super().__init__()

        self.params = params

        self.lr = lr
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def flash(self):
        self.V = tree.map(lambda x: jnp.zeros_like(x), self.params)
        self.VV = tree.map(lambda x: jnp.zeros_like(x), self.params)

        self.steps = 0
        self.open = False

    def update(self):
        if self.open is False:
            raise ValueError('please open optimizer first!!!')
        else:
            d_params = grad(self._loss, argnums=0)(self.params)

            t = self.steps + 1

            @jit  # expect: JIT301
            def adam(d_w, w, v, vv):
                new_v = self.beta1 * v + (1 - self.beta1) * d_w
                new_vv = self.beta2 * vv + (1 - self.beta2) * d_w * d_w

                v_hat = new_v / (1 - self.beta1**t)
                vv_hat = new_vv / (1 - self.beta2**t)
                step = - self.lr * v_hat / (jnp.sqrt(vv_hat) + self.epsilon)

                new_w = w + step
                return jnp.stack((
                    new_w,
                    new_v,
                    new_vv,
                ))

            def decode(pack, num_return=3):
                res = []
                for i in range(num_return):
                    res.append(tree.map(lambda x: x[i], pack))

                return res

            pack = tree.map(adam, d_params, self.params, self.V, self.VV)
            self.params, self.V, self.VV = decode(pack)
            self.steps += 1


# the notebook: data (stand-in), then the model
key = random.PRNGKey(42)
_rs = np.random.RandomState(0)
X_train = jnp.array(_rs.rand(512, 28 * 28).astype(np.float32))
y_train = jnp.array(_rs.randint(0, 10, size=512))
X_test = jnp.array(_rs.rand(128, 28 * 28).astype(np.float32))
y_test = jnp.array(_rs.randint(0, 10, size=128))


def one_hot(y: jnp.ndarray, num_class: int):
    res = jnp.zeros((y.shape[0], num_class))
    res = res.at[jnp.arange(y.shape[0]), y].set(1)
    return res


y_train_one_hot = one_hot(y_train, 10)
y_test_one_hot = one_hot(y_test, 10)


class mlp_clf:
    def __init__(self, lr=0.01):
        self.config = {
            'fc4relu:0' : {
                'input_dim': 28 * 28 * 1,
                'output_dim': 128,
            },
            'relu': {},
            'fc4relu:1' : {
                'input_dim': 128,
                'output_dim': 64,
            },
            'fc4relu:2' : {
                'input_dim': 64,
                'output_dim': 32,
            },
            'fc4relu:3' : {
                'input_dim': 32,
                'output_dim': 16,
            },
            'fc4relu:4' : {
                'input_dim': 16,
                'output_dim': 10,
            }
        }

        self.key = key
        initer = Initer(self.config, self.key)
        self.optr = Adam(initer(), lr=lr)
        self.train = False

    def predict_proba(self, x: jnp.ndarray, params, train=False):
        '''
        这里train默认False是为了方便测试，不用手动eval。
        '''
        res = x
        for p in params.values():
            # 这里建议使用这种从kv对直接访问的形式，而不是解引用，因为此时的字典顺序由于多线程的不正确同步访问而可能产生了乱序，比如这里：
            # >>>>>> print(p.keys())
            # >>>>>> w, b = p.values()
            # 如果你使用这个就会报错，因为之前使用JIT编译之后的函数包含了这个参数，就是说我写了一个函数，这个函数的其中一个参数是param，然后由于JIT的多线程优化，导致被编译之后执行时字典顺序变成：['b', 'w']
            # 因此如果你使用解绑定，那么你就会得到互换的w和b
            # 后面发现即使不使用JIT也会出现相同的问题，因为没有JIT也会有其它多线程的优化，导致这里发生问题。
            res = res @ p['w'] + p['b']
            res = jnp.maximum(0, res)  # use relu activation function
            mask, res, self.key = dropout(res, self.key, p=0.2, train=train)  # add dropout  # expect: JIT202  # tolerate: JIT201

        return softmax(res)

    def fit(self, x_train, y_train_proba, x_test, y_test_proba, epoches=100):

        @jit
        def _acc(y_true_proba, y_pred_proba):
            y_true = jnp.argmax(y_true_proba, axis=1)
            y_pred = jnp.argmax(y_pred_proba, axis=1)
            return jnp.mean(y_true == y_pred)

        _loss = lambda params: cross_entropy_loss(y_train_proba, self.predict_proba(x_train, params, True))
        _loss = jit(_loss)  # accelerate loss function by JIT

        self.optr.open(_loss)

        _tloss = lambda params: cross_entropy_loss(y_test_proba, self.predict_proba(x_test, params, False))
        _tloss = jit(_tloss)

        acc, loss, tacc, tloss = [], [], [], []  # train acc, train loss, test acc, test loss

        for _ in range(epoches):
            loss.append(_loss(self.optr.get_params()))
            tloss.append(_tloss(self.optr.get_params()))

            self.train = True  # use dropout only while updating grads
            self.optr.update()
            self.train = False

            acc.append(_acc(y_train_proba, self.predict_proba(x_train, self.optr.get_params())))
            tacc.append(_acc(y_test_proba, self.predict_proba(x_test, self.optr.get_params())))
            if self.optr.get_steps() % 5 == 0:
                print(f'>> epoch: {self.optr.get_steps()}, train acc: {acc[-1]}, test acc: {tacc[-1]}')

        return acc, loss, tacc, tloss


if __name__ == "__main__":
    import traceback

    compiles = []

    def on_event(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(on_event)

    mlp = mlp_clf(lr=0.015)
    acc, loss, tacc, tloss = mlp.fit(
        x_train=X_train,
        y_train_proba=y_train_one_hot,
        x_test=X_test,
        y_test_proba=y_test_one_hot,
        epoches=3)
    # observed: line 284 stores the dropout key of _loss's trace in self.key: a leaked tracer
    assert isinstance(mlp.key, jax.core.Tracer)

    # observed: line 104 draws every layer's weights from the one self.key: before training,
    # layer 2's weights are layer 1's first normals, rescaled
    init = Initer(mlp.config, key)()
    w0 = init['fc4relu:0']['w'].ravel() / jnp.sqrt(2 / 784)
    w1 = init['fc4relu:1']['w'].ravel() / jnp.sqrt(2 / 128)
    assert jnp.allclose(w0[:w1.size], w1, atol=1e-5)

    per_update = []
    for _ in range(2):
        before = len(compiles)
        mlp.optr.update()
        per_update.append(len(compiles) - before)
    # observed: line 192 jits a new `adam` on every update: each update compiles it again,
    # once per parameter shape (ten)
    assert per_update[0] >= 10 and per_update[1] >= 10, per_update

    jax.config.update("jax_debug_key_reuse", True)
    try:
        dropout(jnp.ones((5)), jax.random.key(41), 0.5, True)
        raise AssertionError("no error")
    except jax.errors.KeyReuseError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        # observed: line 54 splits the key bernoulli has just drawn the mask from: with a
        # typed key under jax_debug_key_reuse, that split raises KeyReuseError
        assert frames[-1].lineno == 54, frames[-1].lineno
    finally:
        jax.config.update("jax_debug_key_reuse", False)
