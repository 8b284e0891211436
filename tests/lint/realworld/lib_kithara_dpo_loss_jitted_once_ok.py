# source: https://github.com/AI-Hypercomputer/kithara/blob/7a571245cdd695975a52f76a1fba4c048689887e/kithara/rlhf/dpo_loss.py
#   (kithara, a LLM fine-tuning library: the DPO loss over interleaved chosen/rejected
#   sequences, computed from the policy's and the reference model's logits)
# observed on jax 0.10.2 CPU: runs clean. dpo_loss_fn uses only static shapes (slices with a
#   step, jnp.arange of the batch and sequence sizes, advanced indexing by traced token ids),
#   masks by multiplication and guards the division with jnp.maximum, so under
#   jax.jit(jax.value_and_grad(...)) it compiles once for three batches of the same shapes and
#   matches the eager loss; beta stays a Python default.
#   Added: the __main__ block (random logits, tokens and masks; a value_and_grad jitted once).
# gap: exemption-vs-JAX
import jax 
import jax.numpy as jnp

def dpo_loss_fn(logits, ref_logits, mask, tokens, beta = 0.1):
    
    # Split into chosen and rejected (even/odd indices)
    chosen_logits = logits[:, ::2]  # [batch_size, seq_len/2, vocab_size]
    rejected_logits = logits[:, 1::2]  # [batch_size, seq_len/2, vocab_size]
    ref_chosen_logits = ref_logits[:, ::2]
    ref_rejected_logits = ref_logits[:, 1::2]

    chosen_mask = mask[:, ::2]  # [batch_size, seq_len/2]
    rejected_mask = mask[:, 1::2]  # [batch_size, seq_len/2]
    chosen_tokens = tokens[:, ::2]  # [batch_size, seq_len/2]
    rejected_tokens = tokens[:, 1::2]  # [batch_size, seq_len/2]

    # Calculate log probabilities
    log_softmax = lambda x: x - jax.scipy.special.logsumexp(
        x, axis=-1, keepdims=True
    )
    chosen_log_probs = log_softmax(chosen_logits)
    rejected_log_probs = log_softmax(rejected_logits)
    ref_chosen_log_probs = log_softmax(ref_chosen_logits)
    ref_rejected_log_probs = log_softmax(ref_rejected_logits)

    # Get log probs for the actual tokens using JAX's advanced indexing
    batch_indices = jnp.arange(chosen_log_probs.shape[0])[:, None]
    seq_indices = jnp.arange(chosen_log_probs.shape[1])[None, :]

    # Gather relevant token log probs - shape: [batch, seq]
    chosen_token_log_probs = chosen_log_probs[
        batch_indices, seq_indices, chosen_tokens
    ]
    rejected_token_log_probs = rejected_log_probs[
        batch_indices, seq_indices, rejected_tokens
    ]
    ref_chosen_token_log_probs = ref_chosen_log_probs[
        batch_indices, seq_indices, chosen_tokens
    ]
    ref_rejected_token_log_probs = ref_rejected_log_probs[
        batch_indices, seq_indices, rejected_tokens
    ]

    # Calculate importance weights (ρ in the DPO paper)
    chosen_imp_weights = chosen_token_log_probs - ref_chosen_token_log_probs
    rejected_imp_weights = (
        rejected_token_log_probs - ref_rejected_token_log_probs
    )

    # Apply mask and average over valid tokens
    chosen_avg_imp = jnp.sum(
        chosen_imp_weights * chosen_mask, axis=1
    ) / jnp.maximum(jnp.sum(chosen_mask, axis=1), 1.0)
    rejected_avg_imp = jnp.sum(
        rejected_imp_weights * rejected_mask, axis=1
    ) / jnp.maximum(jnp.sum(rejected_mask, axis=1), 1.0)

    # DPO loss calculation
    logits_diff = chosen_avg_imp - rejected_avg_imp
    loss = -jax.nn.log_sigmoid(beta * logits_diff)

    return jnp.mean(loss)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    step = jax.jit(jax.value_and_grad(dpo_loss_fn))
    batch, seq, vocab = 4, 16, 32
    keys = jax.random.split(jax.random.key(0), 3)
    before = None
    for i, k in enumerate(keys):
        k_logits, k_ref, k_tok, k_mask = jax.random.split(k, 4)
        logits = jax.random.normal(k_logits, (batch, seq, vocab))
        ref_logits = jax.random.normal(k_ref, (batch, seq, vocab))
        tokens = jax.random.randint(k_tok, (batch, seq), 0, vocab)
        mask = (jax.random.uniform(k_mask, (batch, seq)) < 0.8).astype(jnp.float32)
        loss, grads = step(logits, ref_logits, mask, tokens)
        eager = dpo_loss_fn(logits, ref_logits, mask, tokens)
        assert jnp.allclose(loss, eager, atol=1e-6), (loss, eager)
        assert grads.shape == logits.shape and bool(jnp.all(jnp.isfinite(grads)))
        if i == 0:
            before = len(compiles)
    # the jitted step compiled on the first batch only
    assert len(compiles) == before, compiles
    print("ok")
