# source: https://github.com/vvvm23/learn-jax/blob/c76763a8515f44164668a90a690badf80d5c4ec2/optax-tutorial.py
#   (a learner's "learn-jax" repository: the optax quick start retyped as a script, with a
#   warmup-cosine schedule and clipping; as written. Added: the __main__ block.)
# observed on jax 0.10.2 CPU: both weight matrices are drawn from jax.random.PRNGKey(0) (the
#   optax quick start uses keys 0 and 1), so with the default partitionable threefry the 64
#   entries of params['out'] are exactly the first 64 entries of params['h1']; training runs.
# gap: other
import optax
import jax
import jax.numpy as jnp
import numpy as np

batch_size = 16
nb_steps = 5_000

real_train_data = np.random.randint(0, 255, (nb_steps, batch_size, 1))
train_data = np.unpackbits(real_train_data.astype(np.uint8), axis=-1)
train_labels = jax.nn.one_hot(real_train_data % 2, 2).astype(jnp.float32).reshape(nb_steps, batch_size, 2)

params = {
    'h1':   jax.random.normal(shape=[8, 32], key=jax.random.PRNGKey(0)),
    'out':  jax.random.normal(shape=[32, 2], key=jax.random.PRNGKey(0))  # expect: JIT502
}

def net(x: jnp.ndarray, params: jnp.ndarray) -> jnp.ndarray:
    x = jnp.dot(x, params['h1'])
    x = jax.nn.relu(x)
    x = jnp.dot(x, params['out'])
    return x

def loss(params: optax.Params, batch: jnp.ndarray, labels: jnp.ndarray) -> jnp.ndarray:
    logits = net(batch, params)
    loss_val = optax.sigmoid_binary_cross_entropy(logits, labels).sum(axis=-1)
    return loss_val.mean(), (logits.argmax(axis=-1) == labels.argmax(axis=-1)).sum(axis=-1) / batch_size

def fit(params: optax.Params, opt: optax.GradientTransformation) -> optax.Params:
    opt_state = opt.init(params)

    @jax.jit
    def step(params, opt_state, batch, labels):
        (loss_val, accuracy), grads = jax.value_and_grad(loss, has_aux=True)(params, batch, labels)
        updates, opt_state = opt.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss_val, accuracy
    
    for i, (batch, labels) in enumerate(zip(train_data, train_labels)):
        params, opt_state, loss_val, accuracy = step(params, opt_state, batch, labels)
        if i % 100 == 0:
            print(f"step {i}/{nb_steps} | loss: {loss_val:.5f} | accuracy: {accuracy*100:.2f}%")

    return params

# opt = optax.adam(learning_rate=1e-2)
schedule = optax.warmup_cosine_decay_schedule(
  init_value=0.0,
  peak_value=1.0,
  warmup_steps=50,
  decay_steps=5_000,
  end_value=0.0,
)
opt = optax.chain(
    optax.clip(1.0),
    optax.adamw(learning_rate=schedule)
)

params = fit(params, opt)


if __name__ == "__main__":
    # observed: line 22 draws 'out' from the same key, PRNGKey(0), that drew 'h1': the
    # initial 'out' weights repeat the first 64 'h1' weights
    h1_init = jax.random.normal(shape=[8, 32], key=jax.random.PRNGKey(0))
    out_init = jax.random.normal(shape=[32, 2], key=jax.random.PRNGKey(0))  # tolerate: JIT502
    assert bool(jnp.array_equal(out_init.ravel(), h1_init.ravel()[:64]))
    assert params['out'].shape == (32, 2)
