# source: https://github.com/drewlinsley/CSSM/blob/43e84170dde0c51d39622755a21270a97b3aa08e/src/cotracker/train.py
# observed on jax 0.10.2 CPU (2 host devices forced through XLA_FLAGS): with gradient
#   accumulation on several devices, main() applies the accumulated gradients through
#   `jax.pmap(lambda s, g: s.apply_gradients(grads=g))` written inside the training loop, so
#   every optimizer step wraps a new lambda and traces and compiles the update again (3 steps,
#   3 traces of the pmapped lambda; the gradient pmap made once by
#   create_compute_grads_multi_gpu traces twice over the same 6 batches). Excerpt: the loss functions,
#   compute_grads_single, create_compute_grads_multi_gpu, apply_grads, create_train_state and
#   main's multi-device gradient-accumulation path over the tar.gz dataset, as written (the
#   single-device, TFRecord, prefetcher, W&B, JEPA and orbax checkpoint branches and the unused
#   helpers are left out). Added: the XLA_FLAGS line; stand-ins for create_cotracker3 (a tiny
#   flax module returning {'coords', 'vis'} of the real shapes) and for KubricDataset (random
#   samples); an argparse.Namespace of small settings instead of parse_args();
#   `jax.device_put_replicated` (removed) is spelled `jax.device_put` of the stacked state.
# gap: per-call-recompile
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import argparse
import sys
from pathlib import Path
from functools import partial

import numpy as np
import jax
import jax.numpy as jnp
from flax import linen as nn
from flax.training import train_state
import optax


class _CoTrackerStandIn(nn.Module):
    # stand-in for src.cotracker.jax_impl.cotracker3: coords (B, T, N, 2), vis (B, T, N, 1)
    hidden_size: int

    @nn.compact
    def __call__(self, video, queries, training=False):
        feat = nn.Dense(self.hidden_size)(video.mean(axis=(2, 3)))
        coords = queries[:, None, :, 1:] + nn.Dense(2)(feat)[:, :, None, :]
        vis = jax.nn.sigmoid(nn.Dense(1)(feat))[:, :, None, :]
        vis = jnp.broadcast_to(vis, coords.shape[:-1] + (1,))
        return {'coords': coords, 'vis': vis}


def create_cotracker3(use_cssm, cssm_type, hidden_size, num_iters, space_depth, time_depth,
                      num_virtual_tracks):
    # stand-in for the project's model factory
    return _CoTrackerStandIn(hidden_size=hidden_size)


class KubricDataset:
    # stand-in for src.cotracker.data.kubric.KubricDataset: random uint8 videos and tracks
    def __init__(self, data_dir, split, sequence_length, num_points, crop_size):
        self.sequence_length = sequence_length
        self.num_points = num_points
        self.crop_size = crop_size
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return 24

    def __getitem__(self, idx):
        T, N, S = self.sequence_length, self.num_points, self.crop_size
        return {
            'video': self.rng.integers(0, 256, (T, S, S, 3), dtype=np.uint8),
            'trajs': self.rng.uniform(0, S, (T, N, 2)).astype(np.float32),
            'visibility': self.rng.uniform(size=(T, N)) > 0.2,
        }


def huber_loss(pred, target, mask=None, delta=1.0):
    """Huber loss for coordinate predictions."""
    diff = pred - target
    abs_diff = jnp.abs(diff)
    loss = jnp.where(abs_diff < delta,
                     0.5 * diff ** 2,
                     delta * (abs_diff - 0.5 * delta))
    if mask is not None:
        loss = loss * mask[..., None]
        return loss.sum() / (mask.sum() * 2 + 1e-6)  # *2 for x,y
    return loss.mean()


def sequence_loss(pred_coords, target_coords, visibility, gamma=0.8):
    """
    Sequence loss with temporal weighting.

    Later predictions are weighted more heavily (gamma^(T-t) weighting).
    """
    T = pred_coords.shape[1]

    total_loss = 0.0
    for t in range(T):
        weight = gamma ** (T - t - 1)
        t_loss = huber_loss(pred_coords[:, t], target_coords[:, t], visibility[:, t])
        total_loss = total_loss + weight * t_loss

    return total_loss / T


def visibility_loss(pred_vis, target_vis):
    """Binary cross-entropy loss for visibility."""
    eps = 1e-7
    pred_vis = jnp.clip(pred_vis, eps, 1 - eps)
    target_vis = target_vis[..., None].astype(jnp.float32)
    return -(target_vis * jnp.log(pred_vis) + (1 - target_vis) * jnp.log(1 - pred_vis)).mean()


def compute_grads_single(state, video, queries, trajs, visibility, gamma, use_remat=False):
    """Compute gradients without applying them (for gradient accumulation)."""

    def loss_fn(params):
        if use_remat:
            # Wrap apply_fn so training is a positional arg we can mark static
            def apply_with_static_training(params, video, queries, training):
                return state.apply_fn(params, video, queries, training=training)

            apply_fn = jax.checkpoint(
                apply_with_static_training,
                static_argnums=(3,)  # training is positional arg 3
            )
            outputs = apply_fn(params, video, queries, True)
        else:
            outputs = state.apply_fn(params, video, queries, training=True)

        coords = outputs['coords']
        vis = outputs['vis']

        coord_loss = sequence_loss(coords, trajs, visibility, gamma)
        vis_loss = visibility_loss(vis, visibility)
        total_loss = coord_loss + 0.1 * vis_loss

        return total_loss, {'coord_loss': coord_loss, 'vis_loss': vis_loss}

    (loss, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    return grads, loss, metrics


def create_compute_grads_multi_gpu(gamma, use_remat=False):
    """Create pmap'd gradient computation for multi-GPU."""
    def compute_grads_fn(state, video, queries, trajs, visibility):
        grads, loss, metrics = compute_grads_single(
            state, video, queries, trajs, visibility, gamma, use_remat
        )
        # Average across devices
        grads = jax.lax.pmean(grads, axis_name='devices')
        loss = jax.lax.pmean(loss, axis_name='devices')
        metrics = jax.lax.pmean(metrics, axis_name='devices')
        return grads, loss, metrics

    return jax.pmap(compute_grads_fn, axis_name='devices')


@jax.jit
def apply_grads(state, grads):
    """Apply accumulated gradients to state."""
    return state.apply_gradients(grads=grads)


def create_train_state(model, rng, args):
    """Create initial training state."""
    # Initialize with dummy input
    dummy_video = jnp.zeros((1, args.sequence_length, args.crop_size, args.crop_size, 3))
    dummy_queries = jnp.zeros((1, 10, 3))

    params = model.init(rng, dummy_video, dummy_queries, training=False)

    # Create optimizer with warmup + cosine decay
    schedule = optax.warmup_cosine_decay_schedule(
        init_value=0.0,
        peak_value=args.lr,
        warmup_steps=args.warmup_steps,
        decay_steps=args.num_steps,
        end_value=args.lr * 0.01,
    )

    optimizer = optax.chain(
        optax.clip_by_global_norm(1.0),
        optax.adamw(schedule, weight_decay=args.weight_decay),
    )

    state = train_state.TrainState.create(
        apply_fn=model.apply,
        params=params,
        tx=optimizer,
    )

    return state


def main(args):
    # Setup multi-GPU
    devices = jax.devices()
    num_devices = len(devices)
    use_multi_gpu = num_devices > 1

    batch_per_device = args.batch_size // num_devices if use_multi_gpu else args.batch_size

    model = create_cotracker3(
        use_cssm=args.use_cssm,
        cssm_type=args.cssm_type,
        hidden_size=args.hidden_size,
        num_iters=args.num_iters,
        space_depth=args.space_depth,
        time_depth=args.time_depth,
        num_virtual_tracks=args.num_virtual_tracks,
    )

    # Initialize
    rng = jax.random.PRNGKey(42)
    state = create_train_state(model, rng, args)

    # Setup multi-GPU training
    use_grad_accum = args.grad_accum_steps > 1
    use_remat = args.gradient_checkpointing

    if use_multi_gpu:
        # Replicate state across devices
        state = jax.device_put(jax.tree.map(lambda x: jnp.stack([x] * num_devices), state))
        if use_grad_accum:
            compute_grads_fn = create_compute_grads_multi_gpu(args.gamma, use_remat)

    train_dataset = KubricDataset(
        args.data_dir,
        split='train',
        sequence_length=args.sequence_length,
        num_points=args.num_points,
        crop_size=args.crop_size,
    )

    rng, data_rng = jax.random.split(rng)
    step = 0

    while step < args.num_steps:
        for batch_idx in range(len(train_dataset) // args.batch_size):
            if step >= args.num_steps:
                break

            # Sample random batch from tar.gz dataset
            batch_videos, batch_trajs, batch_vis = [], [], []
            for _ in range(args.batch_size):
                idx = np.random.randint(len(train_dataset))
                s = train_dataset[idx]
                batch_videos.append(s['video'])
                batch_trajs.append(s['trajs'])
                batch_vis.append(s['visibility'])

            video = jnp.array(np.stack(batch_videos).astype(np.float32) / 255.0)
            trajs = jnp.array(np.stack(batch_trajs))
            visibility = jnp.array(np.stack(batch_vis))

            # Flat batch: (B, T, N, 2)
            B, T, N, _ = trajs.shape
            query_frame = 0
            frame_idx = jnp.full((B, N, 1), query_frame)
            queries = jnp.concatenate([frame_idx, trajs[:, query_frame, :, :]], axis=-1)

            # Reshape for multi-GPU if not using prefetcher
            if use_multi_gpu:
                video = video.reshape(num_devices, batch_per_device, *video.shape[1:])
                queries = queries.reshape(num_devices, batch_per_device, *queries.shape[1:])
                trajs = trajs.reshape(num_devices, batch_per_device, *trajs.shape[1:])
                visibility = visibility.reshape(num_devices, batch_per_device, *visibility.shape[1:])

            # Gradient accumulation: compute grads, accumulate, then apply
            grads, loss, metrics = compute_grads_fn(state, video, queries, trajs, visibility)

            if use_multi_gpu:
                loss = loss[0]
                metrics = {k: v[0] for k, v in metrics.items()}

            # Initialize or accumulate gradients
            if batch_idx % args.grad_accum_steps == 0:
                accum_grads = grads
                accum_loss = loss
                accum_metrics = metrics
            else:
                accum_grads = jax.tree.map(lambda a, g: a + g, accum_grads, grads)
                accum_loss = accum_loss + loss
                accum_metrics = {k: accum_metrics[k] + metrics[k] for k in metrics}

            # Apply gradients after accumulation steps
            if (batch_idx + 1) % args.grad_accum_steps == 0:
                # Average gradients
                accum_grads = jax.tree.map(lambda g: g / args.grad_accum_steps, accum_grads)
                accum_loss = accum_loss / args.grad_accum_steps
                accum_metrics = {k: v / args.grad_accum_steps for k, v in accum_metrics.items()}

                # Apply gradients
                if use_multi_gpu:
                    state = jax.pmap(lambda s, g: s.apply_gradients(grads=g))(state, accum_grads)  # expect: JIT301
                else:
                    state = apply_grads(state, accum_grads)

                loss = accum_loss
                metrics = accum_metrics
                step += 1
            else:
                # Skip logging/checkpointing until we apply gradients
                continue

            # Logging
            if step % args.log_every == 0:
                print(f"Step {step:6d}/{args.num_steps} | "
                      f"Loss: {float(loss):.4f} | "
                      f"Coord: {float(metrics['coord_loss']):.4f} | "
                      f"Vis: {float(metrics['vis_loss']):.4f}")

    return state


if __name__ == '__main__':
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: traces.append(kw.get("fun_name"))
        if event == "/jax/core/compile/jaxpr_trace_duration" else None
    )
    args = argparse.Namespace(
        data_dir='kubric', sequence_length=4, num_points=8, crop_size=16,
        use_cssm=False, cssm_type='opponent', hidden_size=8, num_iters=1, space_depth=1,
        time_depth=1, num_virtual_tracks=4, batch_size=4, lr=5e-4, weight_decay=1e-5,
        num_steps=3, warmup_steps=1, gamma=0.8, grad_accum_steps=2,
        gradient_checkpointing=False, log_every=1,
    )
    # count the traces of the pmapped gradient computation (it calls compute_grads_single)
    grad_traces = []
    _compute_grads_single = compute_grads_single

    def compute_grads_single(*a, **kw):
        grad_traces.append(1)
        return _compute_grads_single(*a, **kw)

    state = main(args)
    assert int(state.step[0]) == 3, state.step
    pmap_traces = traces.count("_fun")  # jax 0.10.2 names every pmapped trace _fun
    # observed: line 292 pmaps a new lambda at each of the 3 optimizer steps: 3 traces and
    # compilations of it (the gradient pmap made once traces twice in all)
    assert len(grad_traces) == 2, grad_traces
    assert pmap_traces - len(grad_traces) == 3, (pmap_traces, len(grad_traces))
