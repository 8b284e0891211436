# source: https://github.com/oarriaga/paz/blob/2c8da7f5f59713e232c4f0975b413b8ba6c60448/examples/object_detection/pipeline.py
# observed on jax 0.10.2 CPU: AugmentDetection runs once per training batch; commit 2c8da7f
#   ("Refactor and add jitted functions") wraps both vmapped preprocessors in jax.jit inside it,
#   around paz.lock(...), which builds a fresh closure at every call. Each batch therefore
#   traces and compiles both jitted functions again: two batches of the same shapes compile
#   each of them twice (counted through jax.monitoring).
# gap: per-call-recompile
# added: imports of functools.wraps/types/jax.monitoring; a stand-in `paz` namespace: `lock` as
#   in paz/backend/standard.py at that commit, and the smallest jittable stand-ins for the
#   image and detection helpers the pipeline calls (image.load returns the array it is given;
#   augment_color scales brightness by a random factor; detection.match/encode/to_one_hot are
#   simplified SSD-style operations on a fixed number of prior boxes); the __main__ block with
#   two synthetic batches.
import types
from functools import wraps

import jax
import jax.numpy as jp


# ---- stand-ins for the paz helpers used below ----
def _lock(function, *args, **kwargs):
    """Same as `functools.partial` but fills arguments from right to left."""

    @wraps(function)
    def wrap(*remaining_args, **remaining_kwargs):
        combined_args = remaining_args + args
        combined_kwargs = {**remaining_kwargs, **kwargs}
        return function(*combined_args, **combined_kwargs)

    return wrap


def _augment_color(key, image):
    return image * jax.random.uniform(key, (), minval=0.8, maxval=1.2)


def _resize_with_aspect_ratio(image, boxes, H, W):
    H_now, W_now = image.shape[:2]
    image = jax.image.resize(image, (H, W, image.shape[-1]), "linear")
    boxes = jp.array(boxes) * jp.array([W / W_now, H / H_now, W / W_now, H / H_now])
    return image, boxes


def _det_split(detections):
    return detections[:, :4], detections[:, 4:]


def _det_merge(boxes, class_args):
    return jp.concatenate([boxes, class_args], axis=1)


def _det_pad(detections, pad_size, mode):
    return jp.pad(detections, ((0, pad_size - len(detections)), (0, 0)), mode=mode)


def _det_normalize(detections, H, W):
    boxes, class_args = _det_split(detections)
    return _det_merge(boxes / jp.array([W, H, W, H]), class_args)


def _det_match(detections, prior_boxes, IOU):
    boxes, _ = _det_split(detections)
    distance = jp.abs(prior_boxes[:, None, :] - boxes[None, :, :]).sum(-1)
    best = jp.argmin(distance, axis=1)
    matched = detections[best]
    keep = distance[jp.arange(len(prior_boxes)), best] < (1.0 - IOU)
    return matched.at[:, 4].set(jp.where(keep, matched[:, 4], 0))


def _det_encode(detections, prior_boxes, variances):
    boxes, class_args = _det_split(detections)
    return _det_merge((boxes - prior_boxes) / variances[0], class_args)


def _det_to_one_hot(detections, num_classes):
    boxes, class_args = _det_split(detections)
    one_hot = jax.nn.one_hot(class_args[:, 0].astype(int), num_classes)
    return jp.concatenate([boxes, one_hot], axis=1)


paz = types.SimpleNamespace(
    lock=_lock,
    image=types.SimpleNamespace(
        load=lambda image: image,
        augment_color=_augment_color,
        RGB_to_BGR=lambda image: image[..., ::-1],
        subtract_mean=lambda image, mean: image - mean,
    ),
    detection=types.SimpleNamespace(
        merge=_det_merge,
        split=_det_split,
        pad=_det_pad,
        normalize=_det_normalize,
        match=_det_match,
        encode=_det_encode,
        to_one_hot=_det_to_one_hot,
        resize_with_aspect_ratio=_resize_with_aspect_ratio,
    ),
)


# ---- examples/object_detection/pipeline.py at 2c8da7f, as committed ----
def pad(boxes, class_args, pad_size, pad_value):

    def pad_sample(boxes, class_args):
        boxes = jp.array(boxes)
        class_args = jp.array(class_args).reshape(-1, 1)
        detections = paz.detection.merge(boxes, class_args)
        detections = paz.detection.pad(detections, pad_size, "edge")
        return detections

    return jp.array([pad_sample(*sample) for sample in zip(boxes, class_args)])


def add_background_class(detections):
    boxes, class_args = detections = paz.detection.split(detections)
    detections = paz.detection.merge(boxes, class_args + 1)
    return detections


def preprocess(detections, prior_boxes, num_classes, IOU, variances, H, W):
    # TODO change name.
    # TODO remove use of background class.
    detections = paz.detection.normalize(detections, H, W)
    detections = add_background_class(detections)
    detections = paz.detection.match(detections, prior_boxes, IOU)
    detections = paz.detection.encode(detections, prior_boxes, variances)
    # internally increase number of classes by 1 to account for background class
    detections = paz.detection.to_one_hot(detections, num_classes + 1)
    return detections


def resize(images, boxes, H, W):
    resized_images, resized_boxes = [], []
    for sample in zip(images, boxes):
        sample = paz.detection.resize_with_aspect_ratio(*sample, H, W)
        resized_images.append(sample[0])
        resized_boxes.append(sample[1])
    return jp.array(resized_images), resized_boxes


def preprocess_image(key, image, mean):
    image = paz.image.augment_color(key, image)
    image = paz.image.RGB_to_BGR(image)
    image = paz.image.subtract_mean(image, mean)
    return image


def AugmentDetection(
    key,
    images,
    boxes,
    class_args,
    H,
    W,
    prior_boxes,
    num_classes,
    match_IOU,
    variances,
    mean,
    max_num_boxes,
):
    images = [paz.image.load(image) for image in images]
    images, boxes = resize(images, boxes, H, W)
    detections = pad(boxes, class_args, max_num_boxes, -1)

    preprocess_images = jax.jit(  # expect: JIT301
        jax.vmap(paz.lock(preprocess_image, mean), (0, 0))
    )
    images = preprocess_images(jax.random.split(key, len(images)), images)
    args = prior_boxes, num_classes, match_IOU, variances, H, W
    detections = jax.jit(jax.vmap(paz.lock(preprocess, *args)))(detections)  # expect: JIT301
    return images, detections


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kwargs: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration"
        else None
    )

    def make_batch(seed):
        rng = jax.random.split(jax.random.PRNGKey(seed), 2)
        images = [jax.random.uniform(k, (48, 64, 3)) * 255 for k in jax.random.split(rng[0], 4)]
        boxes = [[[4.0, 6.0, 30.0, 40.0], [10.0, 2.0, 50.0, 20.0]] for _ in range(4)]
        class_args = [[1, 2] for _ in range(4)]
        return rng[1], images, boxes, class_args

    prior_boxes = jax.random.uniform(jax.random.PRNGKey(9), (16, 4))
    config = (32, 32, prior_boxes, 3, 0.5, jp.array([0.1, 0.2]), jp.array([104.0, 117.0, 123.0]), 5)

    def count_compiles(seed):
        compiles.clear()
        key, images, boxes, class_args = make_batch(seed)
        out_images, out_detections = AugmentDetection(key, images, boxes, class_args, *config)
        jax.block_until_ready(out_detections)
        return len(compiles), out_images.shape, out_detections.shape

    n_first, image_shape, detection_shape = count_compiles(0)
    n_second, image_shape_2, detection_shape_2 = count_compiles(1)
    assert (image_shape, detection_shape) == (image_shape_2, detection_shape_2) == ((4, 32, 32, 3), (4, 16, 8))
    # observed: line 168 compiles the vmapped image preprocessing again for every batch (fresh lock closure)
    # observed: line 173 compiles the vmapped detection preprocessing again for every batch
    # the second batch, with the same shapes, compiles at least both jitted functions again
    assert n_second >= 2, (n_first, n_second)
    print("compiles per batch:", n_first, n_second)
