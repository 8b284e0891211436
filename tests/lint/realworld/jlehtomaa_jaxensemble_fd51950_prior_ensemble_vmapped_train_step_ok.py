# source: https://github.com/jlehtomaa/jax-ensemble/blob/fd51950f4699f02b0981aff70e24452850bbe769/jax_ensemble/ensemble.py
#   (a personal deep-ensemble project with randomized prior functions: jax_ensemble/ensemble.py,
#   jax_ensemble/mlp.py, create_dataset and draw_ensemble_batch from jax_ensemble/utils.py, and
#   experiments/train_ensemble/run.py with conf/config.yaml, all at the same commit)
# observed on jax 0.10.2 CPU: runs clean; the members are initialised from split keys under
#   jax.vmap, the vmapped jitted train step compiles once for the whole loop, every step
#   draws each member's bootstrap batch from a fresh subkey, and the jitted ensemble
#   prediction compiles once; the members' predictions differ.
# gap: other
# (changes: the hydra config is served by a small stand-in giving attribute and item access
#  to the values of conf/config.yaml; num_steps 3000 becomes 300; seaborn/matplotlib plotting
#  (set_fig_layout and the plots in run.py) is dropped; run.py's main is called from a
#  __main__ block that counts compilations)
from functools import partial
from typing import Callable, Sequence, Dict
import jax
import jax.numpy as jnp
import optax
import flax.linen as nn
from flax.training import train_state

class TrainState(train_state.TrainState):
    priors: Dict = None

class MLP(nn.Module):
    """Standard multilayer perceptron."""
    features: Sequence[int] # Last element must match the output dimension.
    activation: Callable = nn.tanh
    kernel_init: Callable = nn.initializers.glorot_normal()

    @nn.compact
    def __call__(self, x):
        """Forward pass of the MLP."""

        dense = partial(nn.Dense, kernel_init=self.kernel_init)

        for i, feat in enumerate(self.features):

            x = dense(features=feat)(x)

            if i != len(self.features) - 1:
                x = self.activation(x)

        return x


class PriorModel(nn.Module):
    """A network with randomized prior functions.

    Parameters
    ----------
    cfg : dict
        Configuration file with the network layer architecture and prior
        network weight.

    Notes
    -----
    Osband et al. 2018: Randomized Prior Functions for Deep Reinforcement Learning.
    """
    cfg: Dict

    def setup(self):
        self.prior_net = MLP(self.cfg.features)
        self.train_net = MLP(self.cfg.features)
        self.beta = self.cfg.prior_beta

    def __call__(self, x):
        """Forward pass of the PriorModel."""
        out_prior = self.prior_net(x)
        out_train = self.train_net(x)
        return self.beta * out_prior + out_train

def create_train_state(key, cfg):
    """Initializes the PriorModel training state.

    Parameters
    ----------
    key : jax.random.PRNGKey
        Random key for weight initialization.
    cfg : dict
        An MLP configuration file.

    Returns
    -------
    TrainState
        A Flax training state.
    """

    model = PriorModel(cfg)

    dummy_input = jnp.ones((1, cfg.input_dim))

    params = model.init(key, dummy_input)["params"]
    optimizer = optax.adamw(cfg.learning_rate, weight_decay=cfg.weight_decay)

    return TrainState.create(apply_fn=model.apply,
                             params=params["train_net"],
                             priors=params["prior_net"],
                             tx=optimizer)

def pred_fn(state, feat):
    """Run inference with the PriorModel.

    Parameters
    ----------
    state : TrainState
        Flax model representation.
    feat : float array-like
        Model input feature.

    Returns
    -------
    float array-like, shape=(output_dim,)
        Model prediction.
    """
    params = {"train_net": state.params, "prior_net": state.priors}
    return state.apply_fn({"params": params}, feat)


def apply_model(state, batch):
    """Train for a single gradient step.

    Parameters
    ----------
    state : TrainState
        Flax model representation.
    batch : dict
        Training batch with keys 'inputs' and 'labels'.

    Returns
    -------
    grads : float array-like
        Loss function gradients w.r.t. model weights.
    loss : float
        Model mean squared error value.
    """

    def loss_fn(params):
        """MSE loss function."""
        params_ = {"train_net": params, "prior_net": state.priors}
        preds = state.apply_fn({"params": params_}, batch['inputs'])
        loss = jnp.square(preds - batch["labels"]).mean()
        return loss

    grad_fn = jax.value_and_grad(loss_fn)
    loss, grads = grad_fn(state.params)

    return grads, loss

@jax.jit
def train_step_fn(state, batch):
    """Take one training step by applying the model and updating the weights.

    Parameters
    ----------
    state : TrainState
        Flax model representation.
    batch : dict
        Training batch with keys 'inputs' and 'labels'.

    Returns
    -------
    state : TrainState
        Updated model.
    loss : float
        Model mean squared error value.
    """

    grads, loss = apply_model(state, batch)
    state = state.apply_gradients(grads=grads)

    return state, loss


# jax_ensemble/ensemble.py
"""
This module implements a simple neural network ensemble model.
The idea is to first define a standard MLP, and then use the jax.vmap
functionality to vectorize the relevant initialization, training,
and prediction functions.

This module borrows ideas from the following blog post:
https://willwhitney.com/parallel-training-jax.html#training-more-networks-in-parall
"""

import jax
import jax.numpy as jnp
import jax.random as jrn


# Parallelize the network initializer to set up an ensemble of neural nets.
# create_train_state(key, cfg) is vmapped to take an array of key as input.
vec_init_fn = jax.vmap(create_train_state, in_axes=(0, None))

# Parallelize the predict function to take in multiple train states (an
# ensemble of networks) but only a single input vector. That is, map
# pred_fn(state, x) only over the first argument. Calling the function
# outputs the prediction by each _individual_ ensemble member.
vec_pred_single_in_fn = jax.vmap(pred_fn, in_axes=(0, None))

# Parallelize the training step. Each ensemble member receives its
# own training data batch. That is, vectorize the train_step_fn(state, batch)
# call both over the training states and input batches.
bootstrap_train_step_fn = jax.vmap(train_step_fn, in_axes=(0, 0))

def ensemble_pred(states, feat, temp):
    """Evaluate an ensemble network model as a whole.

    This function takes a single input feature, runs it through all
    ensemble members individually, and then takes a softmax of the
    predictions to produce one model output.

    Parameters
    ----------
    states : train_state.TrainState
        A Flax training state object that contains the network weights etc.

    feat : float array-like
        The input feature to the model

    temp : float
        The ensemble temperature. It controls how optimistic the ensemble
        evaluation is. A value converging to zero means that the function
        will output a value close to the ensemble mean. The higher the
        temperature, the closer the output will be to the ensemble maximum.

    Notes
    -----
    The implementation follow the repository for the
    Adaptive Online Planning for Continual Lifelong Learning (AOP) algorithm
    by Lu et al. 2020: https://github.com/kzl/aop/blob/master/models/Ensemble.py
    """

    # Prediction for each ensemble member at the same input vector.
    preds = vec_pred_single_in_fn(states, feat)

    # Normalize based on the number of ensemble members.
    exp_term = temp * preds - jnp.log(preds.shape[0])

    lse = jax.scipy.special.logsumexp(exp_term, axis=0)
    return (1 / temp) * lse

# Vectorize the ensemble_pred function to take in a batch of input vectors.
vec_ensemble_pred = jax.jit(jax.vmap(ensemble_pred, in_axes=(None, 0, None)))

class Ensemble:
    """Ensemble neural network model.

    Parameters
    ----------
    key : jax.random.PRNGKey
        Random key for initializing the network weights.

    mlp_cfg : dict
        Configuration file for an individual ensemble member MLP.

    ens_cfg : dict
        Configuration file for the ensemble-level parameters.
    """

    def __init__(self, key, mlp_cfg, ens_cfg):

        self.num_models = ens_cfg["num_models"]
        self.temperature = ens_cfg["temperature"]

        keys = jrn.split(key, self.num_models)
        self.states = vec_init_fn(keys, mlp_cfg)

    def train(self, batch):
        """Train the network ensemble.

        Parameters
        ----------
        batch : dict
            A dictionary with the keys 'inputs' and 'labels', each
            containing a training batch. Importantly, this training
            specification assumes that each ensemble member gets a
            (potentially) different batch. Therefore, the inputs and labels
            need to have leading dimensions of (num_models, batch_size).

        Returns
        -------
        float
            Mean loss over all ensemble members.
        """
        self.states, losses = bootstrap_train_step_fn(self.states, batch)
        return losses.mean()

    def pred_all(self, feat):
        """Evaluate all ensemble models individually using a single input.

        Parameters
        ----------
        feat : float array-like
            A single model input feature.

        Returns
        -------
        float array-like, shape=(num_models, output_dim)
            Ensemble member predictions.
        """
        return vec_pred_single_in_fn(self.states, feat).squeeze()

    def pred(self, feat):
        """Evaluate the full ensemble as a whole.

        Parameters
        ----------
        feat : float array-like
            Input feature or batch of features.

        Returns
        -------
        float array-like, shape=(batch_size, output_dim)
            A single (optimistic) ensemble prediction.
        """
        return vec_ensemble_pred(self.states, feat, self.temperature).squeeze()


# jax_ensemble/utils.py
def create_dataset(key, size):
    """Recreates the toy dataset from blundell2015weight.

    Parameters
    ----------
    key : jax.random.PRNGKey

    size : int
        Number of data points to sample.

    Returns
    -------
    features : float array-like, shape=(size, 1)
        Training data features.

    labels : float array-like, shape=(size, 1)
        Training data labels.

    Notes
    -----
    The one-dimensional dataset is generated by sampling inputs x in [0, 0.5],
    and generating labels with the following function:
    y = x + 0.3 sin(2 pi(x + eps)) + 0.3 sin(4 pi(x + eps)) + eps,
    where eps is sampled from N(0, 0.02).

    Source: Blundell et al. 2015. Weight Uncertainty in Neural Networks.
    Proceedings of the 32nd International Conference on Machine Learning.
    """

    key1, key2 = jax.random.split(key) # One key for features, one for noise.

    features = jrn.uniform(key1, shape=(size, 1), minval=0.0, maxval=0.5)

    mean, stddev = 0.0, 0.02
    noise = mean + stddev * jax.random.normal(key2, shape=features.shape)

    labels = features + 0.3 * jnp.sin(2 * jnp.pi * (features + noise))
    labels += 0.3 * jnp.sin(4 * jnp.pi * (features + noise)) + noise

    return features, labels

def draw_ensemble_batch(key, x_data, y_data, batch_size, num_models):
    """Draw an individual batch from full training set for each ensemble member.

    Parameters
    ----------
    key : jax.PRNGKey

    x_data : float array-like
        Features of the full training dataset.

    y_data : float array-like
        Labels of the full training dataset.

    batch_size : int
        The number of data points going to each ensemble member.

    num_models : int
        How many members does the ensemble network have.

    Returns
    -------
    batch : dict
        A {"inputs": inputs, "labels": labels} dictionary. The inputs object
        has a shape (num_models, batch_size, input_dim), and the labels
        object has a shape (num_models, batch_size, 1).
    """

    num_data = x_data.shape[0]
    num_draws = batch_size * num_models

    inds = jax.random.randint(key, minval=0, maxval=num_data, shape=(num_draws,))
    out_shape = (num_models, batch_size, -1)
    return dict(inputs=x_data[inds].reshape(*out_shape),
                labels=y_data[inds].reshape(*out_shape))



# experiments/train_ensemble/run.py
class _Cfg:
    # stand-in for hydra's DictConfig: attribute and item access
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __getitem__(self, name):
        return self.__dict__[name]


cfg = _Cfg(  # conf/config.yaml
    experiment_seed=42,
    mlp=_Cfg(input_dim=1, features=(16, 16, 16, 1), learning_rate=0.001,
             weight_decay=0.00001, prior_beta=1.),
    ensemble=_Cfg(num_models=8, temperature=10),
    train=_Cfg(num_steps=300, num_train_data=250, num_eval_data=250, batch_size=64),
)


def main(cfg):
    """Train a neural network ensemble on a toy dataset."""

    # INITIALIZE MODEL AND DATA
    # -------------------------
    key = jax.random.PRNGKey(cfg["experiment_seed"])

    key, subkey = jax.random.split(key)
    ens = Ensemble(subkey, cfg["mlp"], cfg["ensemble"])

    key, subkey = jax.random.split(key)
    x_train, y_train = create_dataset(
        subkey, size=cfg["train"]["num_train_data"])

    x_eval = jnp.linspace(-0.5, 1.0, cfg["train"]["num_eval_data"]).reshape((-1, 1))


    # TRAINING LOOP
    # -------------
    for step in range(cfg["train"]["num_steps"]):
        key, subkey = jax.random.split(key)
        batch = draw_ensemble_batch(
            subkey, x_train, y_train, cfg["train"]["batch_size"], ens.num_models)

        mean_loss = ens.train(batch)

        if step % 100 == 0:
            print(f"Step: {step}, mean loss: {mean_loss:.5f}")

    # EVALUATION
    # ----------
    ens_pred = ens.pred(x_eval)
    ens_pred_all = ens.pred_all(x_eval)

    ens_mean = ens_pred_all.mean(axis=0)
    ens_std = ens_pred_all.std(axis=0)

    ub_2std = ens_mean + 2 * ens_std
    lb_2std = ens_mean - 2 * ens_std

    ub_1std = ens_mean + ens_std
    lb_1std = ens_mean - ens_std

    return ens, ens_pred, ens_mean, ens_std


if __name__ == "__main__":
    import logging

    compiles = []

    class _Count(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if msg.startswith("Finished XLA compilation of jit(") and (
                    "train_step_fn" in msg or "ensemble_pred" in msg):
                compiles.append(msg.split(" in ")[0])

    jax.config.update("jax_log_compiles", True)
    logging.getLogger("jax").addHandler(_Count())
    logging.getLogger("jax").setLevel(logging.WARNING)

    ens, ens_pred, ens_mean, ens_std = main(cfg)
    print(compiles)
    assert len([c for c in compiles if "train_step_fn" in c]) == 1, compiles
    assert len([c for c in compiles if "ensemble_pred" in c]) == 1, compiles
    assert ens_pred.shape == (250,) and bool(jnp.all(jnp.isfinite(ens_pred)))
    assert float(ens_std.min()) > 0.0  # the members disagree: distinct keys per member
    print("ok")
