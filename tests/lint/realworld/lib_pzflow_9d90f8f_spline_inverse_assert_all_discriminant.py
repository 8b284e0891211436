# source: https://github.com/jfcrenshaw/pzflow/blob/9d90f8f10abed0736c506e5452b9051cea1c438b/pzflow/bijectors/neural_splines.py
#   (pzflow, a normalizing-flow library; commit 9d90f8f "Added assertion to avoid negative
#   values"; the next commit, 397ebac "Had to remove assertion to make the function
#   jittable :(", deletes the assert)
# observed on jax 0.10.2 CPU: jit(inverse_fun)(params, x) raises TracerBoolConversionError at
#   the `assert all(b ** 2 - 4 * a * c >= 0)` in the inverse spline: all() iterates the
#   traced discriminant and asks each row for a Python bool. The unjitted forward and
#   inverse passes and the jitted forward pass run: with two input columns the spline
#   transforms one, each row of the discriminant holds one element, and unjitted all()
#   reads their values. (With more columns even the unjitted inverse fails: the truth value
#   of a row of several elements is ambiguous.)
# gap: other
# added: the __main__ block (after the repo's tests/test_bijectors.py test_is_jittable at
#   2c7fd12: init with PRNGKey(0), unjitted then jitted forward_fun and inverse_fun), with a
#   two-column input x of our own in place of the test's seven-column one;
#   `jax.experimental.stax` is now spelled `jax.example_libraries.stax`.
from textwrap import dedent
import jax.numpy as np
from jax import random, ops
from jax.example_libraries.stax import serial, Dense, Relu
from jax.nn import softmax, softplus
from typing import Callable


def _FCNN(out_dim: int, hidden_dim: int):
    return serial(
        Dense(hidden_dim),
        Relu,
        Dense(hidden_dim),
        Relu,
        Dense(out_dim),
    )


def _RationalQuadraticSpline(
    inputs,
    W,
    H,
    D,
    B: float = 3,
    inverse: bool = False,
):
    # knot x-positions
    xk = np.pad(
        -B + np.cumsum(W, axis=-1),
        [(0, 0)] * (len(W.shape) - 1) + [(1, 0)],
        mode="constant",
        constant_values=-B,
    )
    # knot y-positions
    yk = np.pad(
        -B + np.cumsum(H, axis=-1),
        [(0, 0)] * (len(H.shape) - 1) + [(1, 0)],
        mode="constant",
        constant_values=-B,
    )
    # knot derivatives
    dk = np.pad(
        D,
        [(0, 0)] * (len(D.shape) - 1) + [(1, 1)],
        mode="constant",
        constant_values=1,
    )
    # knot slopes
    sk = H / W

    # any out-of-bounds inputs will have identity applied
    # for now we will replace these inputs with dummy inputs
    # so that the spline doesn't cause any problems.
    # at the end, we will replace them with their original values
    out_of_bounds = (inputs <= -B) | (inputs >= B)
    masked_inputs = np.where(out_of_bounds, -B, inputs)

    # find bin for each input
    if inverse:
        idx = np.sum(yk <= masked_inputs[..., None], axis=-1)[..., None] - 1
    else:
        idx = np.sum(xk <= masked_inputs[..., None], axis=-1)[..., None] - 1

    # get kx, ky, kyp1, kd, kdp1, kw, ks for the bin corresponding to each input
    input_xk = np.take_along_axis(xk, idx, -1)[..., 0]
    input_yk = np.take_along_axis(yk, idx, -1)[..., 0]
    input_dk = np.take_along_axis(dk, idx, -1)[..., 0]
    input_dkp1 = np.take_along_axis(dk, idx + 1, -1)[..., 0]
    input_wk = np.take_along_axis(W, idx, -1)[..., 0]
    input_hk = np.take_along_axis(H, idx, -1)[..., 0]
    input_sk = np.take_along_axis(sk, idx, -1)[..., 0]

    if inverse:
        # quadratic formula coefficients
        a = (input_hk) * (input_sk - input_dk) + (masked_inputs - input_yk) * (
            input_dkp1 + input_dk - 2 * input_sk
        )
        b = (input_hk) * input_dk - (masked_inputs - input_yk) * (
            input_dkp1 + input_dk - 2 * input_sk
        )
        c = -input_sk * (masked_inputs - input_yk)

        assert all(b ** 2 - 4 * a * c >= 0)  # expect: JIT103
        relx = 2 * c / (-b - np.sqrt(b ** 2 - 4 * a * c))
        outputs = np.where(out_of_bounds, inputs, relx * input_wk + input_xk)

        # calculate the log determinant
        dnum = (
            input_dkp1 * relx ** 2
            + 2 * input_sk * relx * (1 - relx)
            + input_dk * (1 - relx) ** 2
        )
        dden = input_sk + (input_dkp1 + input_dk - 2 * input_sk) * relx * (1 - relx)
        log_det = 2 * np.log(input_sk) + np.log(dnum) - 2 * np.log(dden)
        log_det = log_det.sum(axis=1)

        return outputs, -log_det

    else:
        # calculate spline
        relx = (masked_inputs - input_xk) / input_wk
        num = input_hk * (input_sk * relx ** 2 + input_dk * relx * (1 - relx))
        den = input_sk + (input_dkp1 + input_dk - 2 * input_sk) * relx * (1 - relx)
        spline_val = input_yk + num / den
        # replace out-of-bounds values
        outputs = np.where(out_of_bounds, inputs, spline_val)

        # calculate the log determinant
        dnum = (
            input_dkp1 * relx ** 2
            + 2 * input_sk * relx * (1 - relx)
            + input_dk * (1 - relx) ** 2
        )
        dden = input_sk + (input_dkp1 + input_dk - 2 * input_sk) * relx * (1 - relx)
        log_det = 2 * np.log(input_sk) + np.log(dnum) - 2 * np.log(dden)
        log_det = log_det.sum(axis=1)

        return outputs, log_det


def NeuralSplineCoupling(K: int = 8, B: float = 3, hidden_dim: int = 8) -> Callable:
    def init_fun(rng, input_dim, **kwargs):

        upper_dim = input_dim // 2  # variables that determine NN params
        lower_dim = input_dim - upper_dim  # variables transformed by the NN

        # create the neural network that will take in the upper dimensions and
        # will return the spline parameters to transform the lower dimensions
        network_init_fun, network_apply_fun = _FCNN((3 * K - 1) * lower_dim, hidden_dim)
        _, network_params = network_init_fun(rng, (upper_dim,))

        def forward_fun(params, inputs):
            upper, lower = inputs[:, :upper_dim], inputs[:, upper_dim:]
            # widths, heights, derivatives = function(upper variables)
            outputs = network_apply_fun(params, upper)
            outputs = np.reshape(outputs, [-1, lower_dim, 3 * K - 1])
            W, H, D = np.split(outputs, [K, 2 * K], axis=2)
            W = 2 * B * softmax(W)
            H = 2 * B * softmax(H)
            D = softplus(D)
            # transform the lower variables with the Rational Quadratic Spline
            lower, log_det = _RationalQuadraticSpline(lower, W, H, D, B, inverse=False)
            outputs = np.hstack((upper, lower))
            return outputs, log_det

        def inverse_fun(params, inputs):
            upper, lower = inputs[:, :upper_dim], inputs[:, upper_dim:]
            # widths, heights, derivatives = function(upper variables)
            outputs = network_apply_fun(params, upper)
            outputs = np.reshape(outputs, [-1, lower_dim, 3 * K - 1])
            W, H, D = np.split(outputs, [K, 2 * K], axis=2)
            W = 2 * B * softmax(W)
            H = 2 * B * softmax(H)
            D = softplus(D)
            # transform the lower variables with the Rational Quadratic Spline
            lower, log_det = _RationalQuadraticSpline(lower, W, H, D, B, inverse=True)
            outputs = np.hstack((upper, lower))
            return outputs, log_det

        return network_params, forward_fun, inverse_fun

    return init_fun


if __name__ == "__main__":
    from jax import jit

    x = np.array(
        [
            [0.2, 2.4],
            [1.4, -0.6],
            [-2.1, 1.7],
        ]
    )
    init_fun = NeuralSplineCoupling()
    params, forward_fun, inverse_fun = init_fun(random.PRNGKey(0), x.shape[-1])

    fwd_outputs_1, fwd_log_det_1 = forward_fun(params, x)
    forward_fun = jit(forward_fun)
    fwd_outputs_2, fwd_log_det_2 = forward_fun(params, x)
    assert np.allclose(fwd_outputs_1, fwd_outputs_2)
    assert np.allclose(fwd_log_det_1, fwd_log_det_2)

    inv_outputs_1, inv_log_det_1 = inverse_fun(params, x)
    inverse_fun = jit(inverse_fun)
    inv_outputs_2, inv_log_det_2 = inverse_fun(params, x)
