# source: https://github.com/mlprt/feedbax/commit/91b178769c1fab3372ae5ce43c541946a740db67
#   (notebooks/scripts/10_arm2_muscled_simple_reach.py, `train`, as the commit leaves it; the
#   commit rewrote this split from `key, key2 = split(key); key_train, key_eval = split(key2)`,
#   which has the same reuse)
# observed on jax 0.10.2 CPU (equinox 0.13.8, optax 0.2.8): the key of each iteration is
#   both handed to `get_batch` (which draws the reach endpoints from it) and split at the
#   next iteration into the next batch, training and evaluation keys; before the loop, the
#   seed key is split by `get_model` for the network weights and then split again by the
#   loop. With typed keys under `jax.debug_key_reuse(True)` the first split in the loop
#   raises KeyReuseError ("Previously-consumed key passed to random_split").
# Added: `uniform_endpoints` from feedbax/task.py of the same commit; stand-ins for
#   `get_model` (its key split kept, the muscled-arm model replaced by one eqx.nn.Linear)
#   for `loss_fn` (a squared error)
#   and for `filter_spec` (all arrays, where the notebook picks the RNN weights); left out: tensorboard, checkpointing, the loss
#   records and the evaluation figure. The __main__ block runs `train` with typed keys
#   under jax.debug_key_reuse.
# gap: other
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jrandom
import optax

N_DIM = 2


def uniform_endpoints(
    key,
    batch_size: int,
    ndim: int = 2,
    workspace=jnp.array([[-1., 1.],
                         [-1., 1.]]),
):
    """Segment endpoints uniformly distributed in a rectangular workspace."""
    return jrandom.uniform(
        key,
        (2, batch_size, ndim),   # (start/end, ...)
        minval=workspace[:, 0],
        maxval=workspace[:, 1]
    )


def get_model(key=None, dt=0.05, n_hidden=50, n_steps=50, feedback_delay=0):
    if key is None:
        # in case we just want a skeleton model, e.g. for deserializing
        key = jrandom.PRNGKey(0)
    key1, key2 = jrandom.split(key)
    return eqx.nn.Linear(N_DIM * 2, N_DIM, key=key1)  # stand-in for the muscled arm


def loss_fn(diff_model, static_model, init_state, target_state, key):  # stand-in
    model = eqx.combine(diff_model, static_model)
    x = jnp.concatenate([init_state[0], target_state[0]], axis=-1)
    return jnp.mean((jax.vmap(model)(x) - target_state[0]) ** 2), {}


def train(
    model=None,  # start from existing model
    n_steps=100,
    hidden_size=50,
    dt=0.05,
    feedback_delay_steps=5,
    workspace = jnp.array([[-0.2, 0.2],
                           [0.10, 0.50]]),
    batch_size=500,
    n_batches=2500,
    learning_rate=1e-2,
    seed=5566,
):
    key = jrandom.PRNGKey(seed)

    if model is None:
        model = get_model(key, dt, hidden_size, n_steps,
                          feedback_delay=feedback_delay_steps)

    def get_batch(batch_size, key):
        """Segment endpoints uniformly distributed in a rectangular workspace."""
        pos_endpoints = uniform_endpoints(key, batch_size, N_DIM, workspace)
        vel_endpoints = jnp.zeros_like(pos_endpoints)
        init_states, target_states = tuple(zip(pos_endpoints, vel_endpoints))
        return init_states, target_states

    filter_spec = jax.tree_util.tree_map(lambda _: eqx.is_array(_), model)

    # prepare training machinery
    optim = optax.adam(learning_rate)

    def train_step(model, init_state, target_state, opt_state, key):
        diff_model, static_model = eqx.partition(model, filter_spec)
        (loss, loss_terms), grads = eqx.filter_value_and_grad(loss_fn, has_aux=True)(
            diff_model, static_model, init_state, target_state, key,
        )
        updates, opt_state = optim.update(grads, opt_state)
        model = eqx.apply_updates(model, updates)
        return loss, loss_terms, model, opt_state

    train_step = eqx.filter_jit(train_step)

    opt_state = optim.init(eqx.filter(model, eqx.is_array))

    for batch in range(1, n_batches + 1):
        key, key_train, key_eval = jrandom.split(key, 3)  # expect: JIT502
        init_state, target_state = get_batch(batch_size, key)

        loss, loss_terms, model, opt_state = train_step(
            model, init_state, target_state, opt_state, key_train
        )

        if jnp.isnan(loss):
            print(f"\nNaN loss at batch {batch}!")
            return model

    return model


if __name__ == "__main__":
    import traceback

    def reuse_line(**kwargs):
        PRNGKey = jrandom.PRNGKey
        jrandom.PRNGKey = jax.random.key  # typed keys, so that the checker sees them
        try:
            with jax.debug_key_reuse(True):
                train(batch_size=8, n_batches=3, **kwargs)
        except jax.errors.KeyReuseError as e:
            assert "random_split" in str(e), e
            return [
                fr.lineno for fr in traceback.extract_tb(e.__traceback__)
                if fr.filename == __file__
            ][-1]
        finally:
            jrandom.PRNGKey = PRNGKey

    # observed: line 102 splits, at the first iteration, the seed key that get_model
    #   already split: KeyReuseError
    assert reuse_line() == 102
    # observed: line 102 splits, at the second iteration, the key that get_batch drew the
    #   first batch from (the model is given, so get_model does not run): KeyReuseError
    assert reuse_line(model=get_model(jax.random.key(1))) == 102
    # without the checker the loop trains as the notebook does
    m = train(batch_size=8, n_batches=3)
    assert isinstance(m, eqx.nn.Linear)
