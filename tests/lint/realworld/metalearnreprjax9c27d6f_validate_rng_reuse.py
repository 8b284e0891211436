# source: https://github.com/sebamenabar/meta-learning-representations-jax/blob/9c27d6fc0ac6a7d85bb3381030edbfac9ab7023d/src/train_fsl.py (validate; the sampler from src/data/sampling.py at the same commit)
# observed on jax 0.10.2 CPU: validate splits off rng_sample but samples the tasks with rng, which the sampler splits and the next loop iteration splits again; with a typed key under jax.debug_key_reuse this raises KeyReuseError, and the key handed to the sampler on each iteration is the class-sampling key already consumed on the previous one
# gap: flow-sensitive
# Added: imports; jax.tree_util.tree_multimap (removed) -> jax.tree_util.tree_map; a tiny synthetic image set, preprocess_fn and a jitted loss/accuracy stand-in for the MAML validation step; the `if __name__ == "__main__":` block.
import jax
from jax.random import split
from jax import numpy as jnp, random


# ---- src/data/sampling.py
def shuffle_along_axis(rng, a, axis):
    idx = random.uniform(rng, a.shape).argsort(axis=axis)
    return jnp.take_along_axis(a, idx, axis=axis)


def fsl_sample_tasks(rng, images, labels, num_tasks, way, shot, disjoint=True):
    rng_classes, rng_idxs = split(rng)
    if not disjoint:
        # For each task take way classes
        sampled_classes = shuffle_along_axis(
            rng_classes, jnp.arange(images.shape[0])[None, :].repeat(num_tasks, 0), 1
        )[:, :way]
        # Flatten everything for indexing
        sampled_classes = sampled_classes.reshape(num_tasks * way, 1)
        # Repeat each class idx shot times
        sampled_classes = sampled_classes.repeat(shot, 1)
    else:
        # Sample from all the classes without repetition between tasks
        sampled_classes = random.choice(
            rng_classes,
            jnp.arange(images.shape[0]),
            (num_tasks * way, 1),
            replace=False,
        )
        # Repeat each class idx shot times
        sampled_classes = sampled_classes.repeat(shot, 1)

    # For each task for each class sample shot indexes
    sampled_idxs = shuffle_along_axis(
        rng_idxs, jnp.arange(images.shape[1])[None].repeat(num_tasks * way, 0), 1
    )[:, :shot]

    sampled_images = images[sampled_classes, sampled_idxs]
    sampled_labels = labels[sampled_classes, sampled_idxs]

    image_shape = images.shape[2:]
    sampled_images = sampled_images.reshape(num_tasks, way, shot, *image_shape)
    sampled_labels = sampled_labels.reshape(num_tasks, way, shot)

    return sampled_images, sampled_labels


def fsl_sample_transfer_and_build(
    rng,
    preprocess_fn,
    images,
    labels,
    num_tasks,
    way,
    spt_shot,
    qry_shot,
    device=None,
    disjoint=True,
):
    sampled_images, sampled_labels = fsl_sample_tasks(
        rng,
        images,
        labels,
        num_tasks=num_tasks,
        way=way,
        shot=spt_shot + qry_shot,
        disjoint=disjoint,
    )
    shuffled_labels = (
        jnp.repeat(jnp.arange(way), spt_shot + qry_shot)
        .reshape(way, spt_shot + qry_shot)[None, :]
        .repeat(num_tasks, 0)
    )

    # Transfer ints but operate on gpu
    sampled_images = jax.device_put(sampled_images, device)
    shuffled_labels = jax.device_put(shuffled_labels, device)

    images_shape = sampled_images.shape[3:]
    sampled_images = preprocess_fn(sampled_images)

    x_spt, x_qry = jnp.split(sampled_images, (spt_shot,), 2)
    x_spt = x_spt.reshape(num_tasks, way * spt_shot, *images_shape)
    x_qry = x_qry.reshape(num_tasks, way * qry_shot, *images_shape)
    y_spt, y_qry = jnp.split(shuffled_labels, (spt_shot,), 2)
    y_spt = y_spt.reshape(num_tasks, way * spt_shot)
    y_qry = y_qry.reshape(num_tasks, way * qry_shot)

    return x_spt, y_spt, x_qry, y_qry


# ---- src/train_fsl.py
def mm_fn(x, *xs):
    return jnp.stack(xs)


def validate(rng, loss_acc_fn, sample_fn, val_num_tasks, val_batch_size):
    results = []
    for i in range(val_num_tasks // val_batch_size):
        rng, rng_sample = split(rng)  # tolerate: JIT502
        x_spt, y_spt, x_qry, y_qry = sample_fn(rng)  # expect: JIT502
        results.append(loss_acc_fn(x_spt, y_spt, x_qry, y_qry))

    results = jax.tree_util.tree_map(mm_fn, results[0], *results)
    return results


if __name__ == "__main__":
    from functools import partial

    num_classes, per_class = 12, 6
    val_images = jnp.arange(num_classes * per_class * 4, dtype=jnp.float32).reshape(
        num_classes, per_class, 2, 2, 1
    )
    val_labels = jnp.arange(num_classes)[:, None].repeat(per_class, 1)

    @jax.jit
    def validation_loss_acc_fn(x_spt, y_spt, x_qry, y_qry):  # stand-in for the MAML step
        return x_qry.mean(), {"acc": (y_qry == 0).mean()}

    def val_sample_fn(rng):
        return fsl_sample_transfer_and_build(
            rng, lambda x: x / 255, val_images, val_labels, 2, 3, 1, 1, None, False
        )

    # observed: line 106 the key given to sample_fn is the one the sampler splits and the next
    # iteration splits again: KeyReuseError under jax.debug_key_reuse (typed key)
    try:
        with jax.debug_key_reuse(True):
            validate(random.key(0), validation_loss_acc_fn, val_sample_fn, 6, 2)
        raise SystemExit("expected KeyReuseError")
    except jax.errors.KeyReuseError:
        pass

    # the key passed to the sampler on iteration i+1 is the rng_classes key consumed on iteration i
    seen = []

    def recording_sample_fn(rng):
        seen.append((rng, split(rng)[0]))
        return val_sample_fn(rng)

    validate(random.PRNGKey(0), validation_loss_acc_fn, recording_sample_fn, 6, 2)
    for (_, classes_key), (next_key, _) in zip(seen, seen[1:]):
        assert (classes_key == next_key).all()
    print("ok: key reused across validation batches")
