# source: https://github.com/gpjt/jax-gpt2-from-scratch/blob/b8b1097fb7884d32a27b02e201032f712bc5532c/train.py
#   (with gpt.py at commit 33903e4050f3bcd1cc2b16df87ec8bf37ff66afe: the author's GPT-2 from scratch in flax nnx)
# observed on jax 0.10.2 CPU: runs clean. With flax 0.12.8 and optax 0.2.8, `train_step` is an
#   nnx.jit function that takes the model and an nnx.Optimizer (clip_by_global_norm chained with
#   inject_hyperparams(adamw) on a warmup-cosine schedule, inside optax.MultiSteps) and updates
#   them in place; it compiles once (a second pass over the data compiles nothing), the parameters change, and the loss and
#   the learning rate are read on the host (`.item()`) outside the trace, in the driver loop and
#   in `get_learning_rate`. Kept from the source: the LayerNorm, Attention, TransformersLayer and
#   GPTModel modules of gpt.py, and calculate_loss, train_step, the optimizer construction,
#   get_learning_rate and the body of the training loop of train.py. Added as stand-ins: the
#   model and training configuration (a small dict in place of runs/<run>/model.json and
#   train.json), a random token dataset in place of the downloaded safetensors one (the
#   BigTrainDataset class is kept), and the __main__ block; the click CLI, tqdm, logging,
#   checkpointing and the matplotlib charts are left out.
# gap: other
import time

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class LayerNorm(nnx.Module):

    def __init__(self, emb_dim):
        self.scale = nnx.Param(jnp.ones((1, 1, emb_dim)))
        self.bias = nnx.Param(jnp.zeros((1, 1, emb_dim)))


    def __call__(self, xs):
        means = xs.mean(axis=-1, keepdims=True)
        stds = xs.std(axis=-1, keepdims=True)

        normalized = (xs - means) / (stds + 1e-5)

        scaled_and_biased = (normalized * self.scale) + self.bias
        return scaled_and_biased



class Attention(nnx.Module):

    def __init__(self, emb_dim, qkv_bias, rngs):
        self.d_qk = emb_dim

        self.W_q = nnx.Linear(emb_dim, self.d_qk, use_bias=qkv_bias, rngs=rngs)
        self.W_k = nnx.Linear(emb_dim, self.d_qk, use_bias=qkv_bias, rngs=rngs)
        self.W_v = nnx.Linear(emb_dim, self.d_qk, use_bias=qkv_bias, rngs=rngs)


    def __call__(self, xs):
        Q = self.W_q(xs)
        K = self.W_k(xs)
        V = self.W_v(xs)

        omega = Q @ jnp.transpose(K, axes=(0, 2, 1))

        omega /= jnp.sqrt(self.d_qk)

        causal_mask = jnp.ones_like(omega, dtype=bool)
        causal_mask = jnp.tril(causal_mask)

        causal_omega = jnp.where(causal_mask, omega, -jnp.inf)

        attention_weights = jax.nn.softmax(causal_omega, axis=-1)

        return attention_weights @ V



class TransformersLayer(nnx.Module):

    def __init__(self, emb_dim, qkv_bias, rngs):
        self.pre_attention_norm = LayerNorm(emb_dim)
        self.attention = Attention(emb_dim, qkv_bias, rngs)


    def __call__(self, xs):
        shortcut = xs
        pre_attention_normed = self.pre_attention_norm(xs)
        att = self.attention(pre_attention_normed)
        return shortcut + att



class GPTModel(nnx.Module):

    def __init__(
        self,
        vocab_size, context_length,
        emb_dim,
        n_heads, n_layers,
        qkv_bias,
        drop_rate,
        rngs,
    ):
        self.token_embedding = nnx.Embed(
            num_embeddings=vocab_size,
            features=emb_dim,
            rngs=rngs,
        )

        self.transformers_layer = TransformersLayer(emb_dim, qkv_bias, rngs)

        self.output_norm = LayerNorm(emb_dim)

        self.output_head = nnx.Linear(
            in_features=emb_dim,
            out_features=vocab_size,
            use_bias=False,
            rngs=rngs,
        )


    def __call__(self, xs):
        input_embeddings = self.token_embedding(xs)

        transformed = self.transformers_layer(input_embeddings)

        normalized = self.output_norm(transformed)

        return self.output_head(normalized)


class BigTrainDataset:

    def __init__(self, all_tokens, seq_length, microbatch_size):
        self.xs = all_tokens[:-1].reshape(-1, microbatch_size, seq_length)
        self.ys = all_tokens[:-1].reshape(-1, microbatch_size, seq_length)

    def __getitem__(self, ix):
        return self.xs[ix], self.ys[ix]

    def __len__(self):
        return self.xs.shape[0]


def calculate_loss(model, inputs, targets):
    logits = model(inputs)
    loss = optax.losses.softmax_cross_entropy_with_integer_labels(
        logits, targets
    ).mean()
    return loss


@nnx.jit
def train_step(model, optimizer, inputs, targets):
    loss, grads = nnx.value_and_grad(calculate_loss)(model, inputs, targets)
    optimizer.update(model, grads)
    return loss


def train(
    model, optimizer,
    get_learning_rate,
    train_dataset,
    rank, world_size,
    gradient_accumulation_steps,
    start_global_step,
    checkpoint_interval,
):
    model_device = jax.devices()[0]

    total_global_steps = (len(train_dataset) // world_size) // gradient_accumulation_steps

    best_loss = None
    train_losses = []
    tokens_seen_this_rank = 0
    start_time = time.time()
    history = []

    for global_step in range(start_global_step, total_global_steps):
        for accumulation_step in range(gradient_accumulation_steps):
            inputs, targets = train_dataset[((global_step * gradient_accumulation_steps) + accumulation_step) * world_size + rank]
            inputs = jax.device_put(inputs, model_device)
            targets = jax.device_put(targets, model_device)

            train_loss = train_step(model, optimizer, inputs, targets)
            train_losses.append(train_loss.item())

            microbatch_size, sequence_length = inputs.shape
            tokens_seen_this_rank += microbatch_size * sequence_length

        is_checkpoint_iter = (
            (global_step % checkpoint_interval == 0)
            or (global_step == total_global_steps - 1)
        )
        if is_checkpoint_iter:
            if rank == 0:
                min_train_loss = min(train_losses)
                max_train_loss = max(train_losses)
                avg_train_loss = sum(train_losses) / len(train_losses)
                train_losses = []

                if best_loss is None or avg_train_loss < best_loss:
                    best_loss = avg_train_loss

                current_learning_rate = get_learning_rate()
                history.append((global_step, min_train_loss, max_train_loss, avg_train_loss, current_learning_rate))

    return history


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    model_conf = dict(vocab_size=50, context_length=8, emb_dim=16, n_heads=1, n_layers=1, qkv_bias=False)
    train_conf = dict(drop_rate=0.1, learning_rate=1e-2, weight_decay=0.1, clipping_max_norm=1.0,
                      warmup_period_percent=10, gradient_accumulation_steps=2, microbatch_size=4,
                      checkpoint_interval=2)
    world_size = 1
    rank = 0
    gradient_accumulation_steps = train_conf["gradient_accumulation_steps"]
    n_tokens = 12 * train_conf["microbatch_size"] * model_conf["context_length"] + 1
    tokens = jax.random.randint(jax.random.key(0), (n_tokens,), 0, model_conf["vocab_size"])
    train_dataset = BigTrainDataset(tokens, model_conf["context_length"], train_conf["microbatch_size"])

    rngs = nnx.Rngs(42)
    model = GPTModel(
        vocab_size=model_conf["vocab_size"],
        context_length=model_conf["context_length"],
        emb_dim=model_conf["emb_dim"],
        n_heads=model_conf["n_heads"],
        n_layers=model_conf["n_layers"],
        qkv_bias=model_conf["qkv_bias"],
        drop_rate=train_conf["drop_rate"],
        rngs=rngs,
    )

    total_steps = (len(train_dataset) // world_size) // gradient_accumulation_steps
    warmup_steps = (total_steps * train_conf["warmup_period_percent"]) // 100
    learning_rate = train_conf["learning_rate"]
    schedule = optax.warmup_cosine_decay_schedule(
        init_value=learning_rate * 0.00001,
        peak_value=learning_rate,
        warmup_steps=warmup_steps,
        decay_steps=total_steps,  # !!
        end_value=learning_rate / 10,
    )

    optax_optimizer = optax.chain(
        optax.clip_by_global_norm(train_conf["clipping_max_norm"]),
        optax.inject_hyperparams(optax.adamw)(
            learning_rate=schedule,
            weight_decay=train_conf["weight_decay"],
        )
    )
    optimizer = nnx.Optimizer(
        model,
        optax.MultiSteps(
            optax_optimizer,
            every_k_schedule=gradient_accumulation_steps
        ),
        wrt=nnx.Param
    )

    def get_learning_rate():
        return (
            optimizer
            .opt_state
            .inner_opt_state[1]
            .hyperparams["learning_rate"]
            .get_value()
            .item()
        )

    before = jax.tree.map(lambda a: a.copy(), nnx.state(model, nnx.Param))
    history = train(
        model, optimizer,
        get_learning_rate,
        train_dataset,
        rank, world_size,
        gradient_accumulation_steps,
        0,
        train_conf["checkpoint_interval"],
    )
    after = nnx.state(model, nnx.Param)
    changed = jax.tree.leaves(jax.tree.map(lambda a, b: bool(jnp.any(a != b)), before, after))
    assert all(changed), changed
    assert len(history) >= 2, history
    assert len(set(h[4] for h in history)) > 1, history  # the schedule moves: the update ran every call
    before_second = len(compiles)
    train(
        model, optimizer,
        get_learning_rate,
        train_dataset,
        rank, world_size,
        gradient_accumulation_steps,
        0,
        train_conf["checkpoint_interval"],
    )
    assert len(compiles) == before_second, compiles[before_second:]  # a second pass compiles nothing
    print("history:", history)
