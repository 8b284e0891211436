# source: https://github.com/Artur-Galstyan/notes.arturgalstyan.dev/blob/12afd4d54939ce1bfa4e06f0e46b027873a3d003/src/pages/posts/hello-proteins.md
#   (blog post "Hello, Proteins!": protein solubility prediction with Equinox; the code of its
#   sections "Second Attempt", "Little Whoopsie" and "Some Model Parameter Changes")
# observed on jax 0.10.2 CPU: runs correctly. step_fn and eval_step are eqx.filter_jit'ed once at
#   module level and always see batches of one shape (sequences truncated or padded with "Z" to
#   max_protein_length, batches of batch_size with drop_remainder), so over two epochs each is
#   traced and compiled once; their print("... JIT") lines run at trace time, as the author means
#   (a trace counter), once each; the model, optimizer state and metrics come back as return values.
# gap: exemption-vs-JAX
# Kept: the preprocessor, model (the post's final hyperparameters), loss_fn, step_fn, eval_step
#   and eval_fn as written. Added: a stand-in `grain.transforms.Map` base class and a plain batching
#   loop in place of grain's DataLoader and IndexSampler; random stand-in sequences and labels in
#   place of the proteinea/solubility CSVs (polars, huggingface), max_protein_length fixed instead
#   of the 90th percentile; the clu metrics replaced by a list of the step metrics; the __main__
#   block.
import equinox as eqx
import jax
import jax.numpy as jnp
import jaxtyping as jt
import numpy as np
import optax


class grain:  # stand-in for the grain package
    class transforms:
        class Map:
            pass


amino_acids = "ACDEFGHIKLMNPQRSTVWY"
vocab = ["Z"] + list(amino_acids)
int_to_char = {i: char for i, char in enumerate(vocab)}
char_to_int = {char: i for i, char in enumerate(vocab)}

max_protein_length = 60


class ProteinPreprocessor(grain.transforms.Map):
    def map(self, example):
        sequence = example["sequences"]
        label = example["labels"]
        if isinstance(sequence, bytes):
            sequence = sequence.decode("utf-8")
        sequence = sequence[:max_protein_length]
        sequence = sequence.ljust(max_protein_length, "Z")
        indices = [char_to_int[aa] for aa in sequence]
        return {
            "features": jnp.array(indices, jnp.int32),
            "label": jnp.zeros(shape=(2,)).at[label].set(1),
        }


class SimpleModel(eqx.Module):
    embedding: eqx.nn.Embedding
    conv1: eqx.nn.Conv1d
    conv2: eqx.nn.Conv1d
    linear: eqx.nn.Linear

    def __init__(
        self, n_vocab: int, embedding_size: int, out_features: int, key: jt.PRNGKeyArray
    ):
        k1, k2, k3, k4 = jax.random.split(key, 4)
        hidden_size = 32
        self.embedding = eqx.nn.Embedding(n_vocab, embedding_size, key=k1)
        self.conv1 = eqx.nn.Conv1d(embedding_size, hidden_size, kernel_size=7, key=k2)
        self.conv2 = eqx.nn.Conv1d(hidden_size, hidden_size, kernel_size=5, key=k3)
        self.linear = eqx.nn.Linear(hidden_size, out_features, key=k4)

    def __call__(self, x: jt.Int[jt.Array, " seq_len"]) -> jt.Array:
        x = eqx.filter_vmap(self.embedding)(x)
        x = jnp.transpose(x)
        x = self.conv1(x)
        x = jax.nn.relu(x)
        x = self.conv2(x)
        x = jax.nn.relu(x)
        x = jnp.max(x, axis=-1)
        x = self.linear(x)
        return x


def loss_fn(model: SimpleModel, x: jt.Array, y: jt.Array) -> tuple[jt.Array, jt.Array]:
    logits = eqx.filter_vmap(model)(x)
    return jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=y)), logits


@eqx.filter_jit
def eval_step(model: SimpleModel, x: jt.Array, y: jt.Array):
    print("eval_step JIT")  # tolerate: JIT203
    logits = eqx.filter_vmap(model)(x)
    loss = jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=y))

    predicted_classes = jnp.argmax(logits, axis=-1)
    true_classes = jnp.argmax(y, axis=-1)
    correct_preds = jnp.sum(predicted_classes == true_classes)

    return loss, correct_preds


@eqx.filter_jit
def step_fn(
    model: SimpleModel,
    x: jt.Array,
    y: jt.Array,
    optimizer: optax.GradientTransformation,
    opt_state: optax.OptState,
) -> tuple[SimpleModel, optax.OptState, dict]:
    print("step_fn JIT")  # tolerate: JIT203
    (loss_value, preds), grads = eqx.filter_value_and_grad(loss_fn, has_aux=True)(
        model, x, y
    )
    updates, opt_state = optimizer.update(
        grads, opt_state, eqx.filter(model, eqx.is_array)
    )
    model = eqx.apply_updates(model, updates)

    predicted_classes = jnp.argmax(preds, axis=-1)
    true_classes = jnp.argmax(y, axis=-1)
    accuracy = jnp.mean(predicted_classes == true_classes)

    metrics = {"loss": loss_value, "accuracy": accuracy}
    return model, opt_state, metrics


def eval_fn(model: SimpleModel, loader):
    total_loss = 0.0
    total_correct = 0
    total_samples = 0

    for data in loader:
        x = data["features"]
        y = data["label"]
        num_samples = x.shape[0]
        batch_loss, batch_correct = eval_step(model, x, y)

        total_loss += batch_loss * num_samples
        total_correct += batch_correct
        total_samples += num_samples

    if total_samples == 0:
        return {"loss": float("inf"), "accuracy": 0.0}

    avg_loss = total_loss / total_samples
    accuracy = total_correct / total_samples
    return {"loss": avg_loss, "accuracy": accuracy}


def batches(source, batch_size, seed):  # stand-in for grain's sampler, Batch and DataLoader
    order = np.random.RandomState(seed).permutation(len(source))
    pre = ProteinPreprocessor()
    for start in range(0, len(order) - batch_size + 1, batch_size):  # drop_remainder=True
        examples = [pre.map(source[i]) for i in order[start:start + batch_size]]
        yield {k: jnp.stack([e[k] for e in examples]) for k in examples[0]}


if __name__ == "__main__":
    import contextlib
    import io

    rs = np.random.RandomState(0)
    def record():
        n = rs.randint(20, 90)  # shorter and longer than max_protein_length
        seq = "".join(rs.choice(list(amino_acids), size=n))
        return {"sequences": seq.encode("utf-8"), "labels": int(seq.count("K") > n // 20)}
    train_source = [record() for _ in range(100)]
    test_source = [record() for _ in range(40)]

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    out_features = 2
    embedding_size = 16
    learning_rate = 0.001
    n_epochs = 2
    batch_size = 16

    model = SimpleModel(len(vocab), embedding_size, out_features, key=jax.random.key(42))
    optimizer = optax.adam(learning_rate)
    opt_state = optimizer.init(eqx.filter(model, eqx.is_array))

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for epoch in range(n_epochs):
            step_metrics_list = []
            for data in batches(train_source, batch_size, seed=4 + epoch):
                x = data["features"]
                y = data["label"]
                model, opt_state, step_metrics = step_fn(model, x, y, optimizer, opt_state)
                step_metrics_list.append(step_metrics)
            eval_metrics = eval_fn(model, batches(test_source, batch_size, seed=42))
    printed = buf.getvalue().splitlines()
    print(printed, "train loss", float(step_metrics_list[-1]["loss"]), "test", eval_metrics)
    assert printed.count("step_fn JIT") == 1 and printed.count("eval_step JIT") == 1, printed
    assert compiles.count("jit(step_fn)") == 1 and compiles.count("jit(eval_step)") == 1, compiles
    assert 0.0 <= float(eval_metrics["accuracy"]) <= 1.0
    first_loss = float(loss_fn(SimpleModel(len(vocab), embedding_size, out_features, key=jax.random.key(42)),
                               x, y)[0])
    assert float(loss_fn(model, x, y)[0]) < first_loss  # the returned model did train
