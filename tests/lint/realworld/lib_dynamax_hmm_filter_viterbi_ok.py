# source: https://github.com/probml/dynamax/blob/cfb005fa18678fc1b91d03724d77b442312e1e3b/dynamax/hidden_markov_model/inference.py
#   (dynamax's HMM forward filter and Viterbi algorithm with their helpers, verbatim:
#   _get_params, get_trans_mat, HMMPosteriorFiltered, _normalize, _condition_on, _predict,
#   hmm_filter and hmm_posterior_mode; dynamax is not installed, so IntScalar and Scalar
#   are spelled as in dynamax/types.py. The __main__ block runs both jitted functions with a
#   fixed 2D transition matrix, a time-varying 3D one, and a `transition_fn` passed as the
#   static argument, and checks that the three agree when they describe the same chain)
# observed on jax 0.10.2 CPU: runs clean: the Python branches test `transition_fn is not
#   None`, a static argument, and `ndim`, a static shape; the time index `t` only indexes
#   JAX arrays.
# gap: exemption-vs-JAX
from functools import partial
from typing import Callable, NamedTuple, Optional, Tuple, Union
import jax.numpy as jnp
import jax.random as jr
from jax import jit, lax, vmap
from jaxtyping import Int, Float, Array

Scalar = Union[float, Float[Array, ""]]  # dynamax/types.py
IntScalar = Union[int, Int[Array, ""]]  # dynamax/types.py

_get_params = lambda x, dim, t: x[t] if x.ndim == dim + 1 else x

def get_trans_mat(
        transition_matrix: Optional[Union[Float[Array, "num_states num_states"],
                                          Float[Array, "num_timesteps_minus_1 num_states num_states"]]],
        transition_fn: Optional[Callable[[IntScalar], Float[Array, "num_states num_states"]]],
        t: IntScalar
) -> Float[Array, "num_states num_states"]:
    """
    Helper function to get the transition matrix at time `t`.
    """
    if transition_fn is not None:
        return transition_fn(t)
    elif transition_matrix is not None:
        if transition_matrix.ndim == 3: # (T-1,K,K)
            return transition_matrix[t]
        else:
            return transition_matrix
    else:
        raise ValueError("Either `transition_matrix` or `transition_fn` must be specified.")

class HMMPosteriorFiltered(NamedTuple):
    r"""Simple wrapper for properties of an HMM filtering posterior.

    :param marginal_loglik: $p(y_{1:T} \mid \theta) = \log \sum_{z_{1:T}} p(y_{1:T}, z_{1:T} \mid \theta)$.
    :param filtered_probs: $p(z_t \mid y_{1:t}, \theta)$ for $t=1,\ldots,T$
    :param predicted_probs: $p(z_t \mid y_{1:t-1}, \theta)$ for $t=1,\ldots,T$

    """
    marginal_loglik: Scalar
    filtered_probs: Float[Array, "num_timesteps num_states"]
    predicted_probs: Float[Array, "num_timesteps num_states"]


def _normalize(u: Array, axis=0, eps=1e-15):
    """Normalizes the values within the axis in a way that they sum up to 1.

    Args:
        u: Input array to normalize.
        axis: Axis over which to normalize.
        eps: Minimum value threshold for numerical stability.

    Returns:
        Tuple of the normalized values, and the normalizing denominator.
    """
    u = jnp.where(u == 0, 0, jnp.where(u < eps, eps, u))
    c = u.sum(axis=axis)
    c = jnp.where(c == 0, 1, c)
    return u / c, c


# Helper functions for the two key filtering steps
def _condition_on(probs, ll):
    """Condition on new emissions, given in the form of log likelihoods
    for each discrete state, while avoiding numerical underflow.

    Args:
        probs(k): prior for state k
        ll(k): log likelihood for state k

    Returns:
        probs(k): posterior for state k
    """
    ll_max = ll.max()
    new_probs = probs * jnp.exp(ll - ll_max)
    new_probs, norm = _normalize(new_probs)
    log_norm = jnp.log(norm) + ll_max
    return new_probs, log_norm


def _predict(probs : Float[Array, " num states"], 
             A: Float[Array , "num states num states"]) \
                -> Float[Array, "num states"]:
    r"""Predict the next state given the current state probabilities and 
    the transition matrix.
    """
    return A.T @ probs


@partial(jit, static_argnames=["transition_fn"])
def hmm_filter(
    initial_distribution: Float[Array, " num_states"],
    transition_matrix: Optional[Union[Float[Array, "num_states num_states"],
                                      Float[Array, "num_timesteps_minus_1 num_states num_states"]]],
    log_likelihoods: Float[Array, "num_timesteps num_states"],
    transition_fn: Optional[Callable[[IntScalar], Float[Array, "num_states num_states"]]] = None
) -> HMMPosteriorFiltered:
    r"""Forwards filtering

    Transition matrix may be either 2D (if transition probabilities are fixed) or 3D
    if the transition probabilities vary over time. Alternatively, the transition
    matrix may be specified via `transition_fn`, which takes in a time index $t$ and
    returns a transition matrix.

    Args:
        initial_distribution: $p(z_1 \mid u_1, \theta)$
        transition_matrix: $p(z_{t+1} \mid z_t, u_t, \theta)$
        log_likelihoods: $p(y_t \mid z_t, u_t, \theta)$ for $t=1,\ldots, T$.
        transition_fn: function that takes in an integer time index and returns a $K \times K$ transition matrix.

    Returns:
        filtered posterior distribution

    """
    num_timesteps, num_states = log_likelihoods.shape

    def _step(carry, t):
        """Filtering step."""
        log_normalizer, predicted_probs = carry

        A = get_trans_mat(transition_matrix, transition_fn, t)
        ll = log_likelihoods[t]

        filtered_probs, log_norm = _condition_on(predicted_probs, ll)
        log_normalizer += log_norm
        predicted_probs_next = _predict(filtered_probs, A)

        return (log_normalizer, predicted_probs_next), (filtered_probs, predicted_probs)

    carry = (0.0, initial_distribution)
    (log_normalizer, _), (filtered_probs, predicted_probs) = lax.scan(_step, carry, jnp.arange(num_timesteps))

    post = HMMPosteriorFiltered(marginal_loglik=log_normalizer,
                                filtered_probs=filtered_probs,
                                predicted_probs=predicted_probs)
    return post


@partial(jit, static_argnames=["transition_fn"])
def hmm_posterior_mode(
    initial_distribution: Float[Array, " num_states"],
    transition_matrix: Optional[Union[Float[Array, "num_states num_states"],
                                     Float[Array, "num_timesteps_minus_1 num_states num_states"]]],
    log_likelihoods: Float[Array, "num_timesteps num_states"],
    transition_fn: Optional[Callable[[IntScalar], Float[Array, "num_states num_states"]]]= None
) -> Int[Array, " num_timesteps"]:
    r"""Compute the most likely state sequence. This is called the Viterbi algorithm.

    Args:
        initial_distribution: $p(z_1 \mid u_1, \theta)$
        transition_matrix: $p(z_{t+1} \mid z_t, u_t, \theta)$
        log_likelihoods: $p(y_t \mid z_t, u_t, \theta)$ for $t=1,\ldots, T$.
        transition_fn: function that takes in an integer time index and returns a $K \times K$ transition matrix.

    Returns:
        most likely state sequence

    """
    num_timesteps, num_states = log_likelihoods.shape

    # Run the backward pass
    def _backward_pass(best_next_score, t):
        """Viterbi backward step."""
        A = get_trans_mat(transition_matrix, transition_fn, t)

        scores = jnp.log(A) + best_next_score + log_likelihoods[t + 1]
        best_next_state = jnp.argmax(scores, axis=1)
        best_next_score = jnp.max(scores, axis=1)
        return best_next_score, best_next_state

    num_states = log_likelihoods.shape[1]
    best_second_score, best_next_states = lax.scan(
        _backward_pass, jnp.zeros(num_states), jnp.arange(num_timesteps - 1), reverse=True
    )

    # Run the forward pass
    def _forward_pass(state, best_next_state):
        """Viterbi forward step."""
        next_state = best_next_state[state]
        return next_state, next_state

    first_state = jnp.argmax(jnp.log(initial_distribution) + log_likelihoods[0] + best_second_score)
    _, states = lax.scan(_forward_pass, first_state, best_next_states)

    return jnp.concatenate([jnp.array([first_state]), states])


if __name__ == "__main__":
    import jax

    num_states, num_timesteps = 3, 20
    A = jnp.array([[0.90, 0.05, 0.05], [0.10, 0.80, 0.10], [0.05, 0.15, 0.80]])
    pi0 = jnp.ones(num_states) / num_states
    lls = jax.random.normal(jax.random.PRNGKey(0), (num_timesteps, num_states))
    A_t = jnp.broadcast_to(A, (num_timesteps - 1, num_states, num_states))

    def fixed_transition(t):
        return A

    post2 = hmm_filter(pi0, A, lls)
    post3 = hmm_filter(pi0, A_t, lls)
    postf = hmm_filter(pi0, None, lls, transition_fn=fixed_transition)
    print(post2.marginal_loglik, post3.marginal_loglik, postf.marginal_loglik)
    assert jnp.allclose(post2.marginal_loglik, post3.marginal_loglik)
    assert jnp.allclose(post2.marginal_loglik, postf.marginal_loglik)

    path2 = hmm_posterior_mode(pi0, A, lls)
    path3 = hmm_posterior_mode(pi0, A_t, lls)
    pathf = hmm_posterior_mode(pi0, None, lls, transition_fn=fixed_transition)
    print(path2)
    assert (path2 == path3).all() and (path2 == pathf).all()
