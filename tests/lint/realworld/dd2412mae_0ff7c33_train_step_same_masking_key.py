# source: https://github.com/Victor-Manach/DD2412-deep-learning-project/blob/0ff7c3390713dd34bc923c6c60978ee1e4d386c8/train_mae.py
#   (a student project's masked-autoencoder pretraining in flax, with its main.py and the
#   loss of its mae.py at the same commit; the next commit, "Changes on the way to handle
#   random values with jax for the random masking", splits the key in the loss and hands
#   the new key back from every step)
# observed on jax 0.10.2 CPU: `train_epoch` hands the one `key` to the jitted `train_step`
#   for every batch of every epoch, and the loss hands it on unchanged as the masking key, so
#   every step masks the same patches of each image position (six steps, one mask); the
#   evaluation does the same for every batch, and `main` evaluates the test set with the
#   `test_key` it already used for the train set, so both evaluations mask alike.
#   Kept: train_mae.py without `load_model` and `checkpoint_exists`, `mae_loss` from mae.py,
#   and main.py's `main`. Added: a small stand-in for `mae.MAEViT` (a patch embedding, the
#   commit's `random_masking` with a key per image, a dense decoder, and a
#   `jax.debug.callback` that records each mask) and random images for the datasets.
# gap: other
import os
import time
import numpy as np
import jax
import jax.numpy as jnp
import optax
import flax
from flax.training import train_state, checkpoints
import flax.linen as nn
from tqdm.auto import tqdm
from functools import partial

MASKS = []  # stand-in's record of every mask drawn


# --- stand-in for mae.MAEViT (the commit's ViT blocks elided) ---
class MAEViT(nn.Module):
    img_size: int = 16
    patch_size: int = 4
    embed_dim: int = 8
    norm_pix_loss: bool = False

    def create_patches(self, x):
        p = self.patch_size
        n, c, hh, ww = x.shape
        h = w = hh // p
        x = x.reshape((n, c, h, p, w, p))
        x = jnp.einsum("nchpwq->nhwpqc", x)
        return x.reshape((n, h * w, p**2 * c))

    @partial(jax.vmap, in_axes=(None, 0, None, 0), out_axes=0)
    def random_masking(self, x, mask_ratio, key):
        L, D = x.shape
        keep = int(L*(1-mask_ratio))
        noise = jax.random.uniform(key, shape=(L,))
        ids_shuffle = jnp.argsort(noise)
        ids_restore = jnp.argsort(ids_shuffle)
        mask = jnp.ones(L)
        mask = mask.at[:keep].set(0.)
        mask = mask[ids_restore]
        return x, mask, ids_restore

    @nn.compact
    def __call__(self, x, train, key, mask_ratio=.75):
        patches = self.create_patches(x)
        z = nn.Dense(self.embed_dim)(patches)
        keys = jax.random.split(key, x.shape[0])
        z, mask, _ = self.random_masking(z, mask_ratio, keys)
        jax.debug.callback(lambda m: MASKS.append(np.asarray(m)), mask)
        y = nn.Dense(patches.shape[-1])(z)
        return y, mask


def mae_loss(model, params, x, train, key):
    """
    x: [N, 3, H, W]
    y: [N, L, p*p*3]
    mask: [N, L], 0 is keep, 1 is remove, 
    """
    target = model.create_patches(x)

    y, mask = model.apply({'params': params}, x=x, train=train, key=key)
    loss = jnp.mean(jnp.square(y - target), axis=-1) # [N, L], mean loss per patch

    loss = jnp.sum((loss * mask)) / jnp.sum(mask)  # mean loss on removed patches
    return loss

mae_norm_pix_loss = None  # not used: norm_pix_loss is False

# Path to the folder where the pretrained models are saved
CHECKPOINT_PATH = "./saved_models/"

class TrainModule:
    def __init__(self, model, train, exmp_imgs, dataset_name, seed=42, lr=1e-3):
        super().__init__()
        self.lr = lr
        self.seed = seed
        # Create empty model. Note: no parameters yet
        self.model = model
        # Prepare logging
        self.exmp_imgs = exmp_imgs
        self.log_dir = os.path.join(CHECKPOINT_PATH, dataset_name)
        self.dataset_name = dataset_name
        # Create jitted training and eval functions
        self.create_functions()
        # Initialize model
        init_key = jax.random.PRNGKey(self.seed)
        self.init_model(train, init_key)

    def create_functions(self):
        # Training function
        if self.model.norm_pix_loss:
            loss_func = mae_norm_pix_loss
        else:
            loss_func = mae_loss
        def train_step(state, batch, key):
            loss_fn = lambda params: loss_func(model=self.model, params=params, x=batch, train=True, key=key)
            loss, grads = jax.value_and_grad(loss_fn)(state.params)  # Get loss and gradients for loss
            state = state.apply_gradients(grads=grads)  # Optimizer update step
            return state, loss
        self.train_step = jax.jit(train_step)
        # Eval function
        def eval_step(state, batch, key):
            return mae_loss(model=self.model, params=state.params, x=batch, train=False, key=key)
        self.eval_step = jax.jit(eval_step)

    def init_model(self, train_data, key):
        # Initialize model
        init_key, rng_key, dropout_init_key = jax.random.split(key, 3)
        params = self.model.init({"params": init_key, "dropout": dropout_init_key}, x=self.exmp_imgs, train=True, key=rng_key)["params"]
        # Initialize learning rate schedule and optimizer
        lr_schedule = optax.warmup_cosine_decay_schedule(
            init_value=0.0,
            peak_value=1e-3,
            warmup_steps=100,
            decay_steps=500*len(train_data),
            end_value=1e-5
        )
        optimizer = optax.chain(
            optax.clip(1.0),  # Clip gradients at 1
            optax.adam(lr_schedule)
        )
        # Initialize training state
        self.state = train_state.TrainState.create(apply_fn=self.model.apply, params=params, tx=optimizer)

    def train_model(self, train_data, val_data, key, num_epochs=500):
        # Train model for defined number of epochs
        best_eval = 1e6
        for epoch_idx in tqdm(range(1, num_epochs+1)):
            self.train_epoch(train_data=train_data, epoch=epoch_idx, key=key)  # tolerate: JIT502
            if epoch_idx % 10 == 0:
                eval_loss = self.eval_model(val_data, key)  # tolerate: JIT502
                print(f"Epoch {epoch_idx}: val_loss={eval_loss:.5f}")
                if eval_loss < best_eval:
                    best_eval = eval_loss
                    self.save_model(step=epoch_idx)
        return self.state.params

    def train_epoch(self, train_data, epoch, key):
        # Train model for one epoch, and log avg loss
        losses = []
        for batch in train_data:
            self.state, loss = self.train_step(self.state, batch, key)  # expect: JIT502
            losses.append(loss)
        losses_np = np.stack(jax.device_get(losses))
        avg_loss = losses_np.mean()
        print(f"Epoch {epoch}: avg_train_loss={avg_loss:.5f}")

    def eval_model(self, data_loader, key):
        # Test model on all images of a data loader and return avg loss
        losses = []
        batch_sizes = []
        for batch in data_loader:
            loss = self.eval_step(self.state, batch, key)  # expect: JIT502
            losses.append(loss)
            batch_sizes.append(batch[0].shape[0])
        losses_np = np.stack(jax.device_get(losses))
        batch_sizes_np = np.stack(batch_sizes)
        avg_loss = (losses_np * batch_sizes_np).sum() / batch_sizes_np.sum()
        return avg_loss

    def save_model(self, step=0):
        # Save current model at certain training iteration
        checkpoints.save_checkpoint(ckpt_dir=self.log_dir, target=self.state.params, prefix=self.dataset_name, step=step)


def main(train_data, val_data, test_data):
    num_epochs = 2
    main_key = jax.random.PRNGKey(0)
    train_key, test_key = jax.random.split(main_key, 2)
    model_mae = MAEViT()
    trainer = TrainModule(model=model_mae, train=train_data, exmp_imgs=next(iter(val_data))[:8], dataset_name="random")
    params_mae = trainer.train_model(train_data=train_data, val_data=val_data, num_epochs=num_epochs, key=train_key)

    # evaluate the model on the train and test sets
    train_loss = trainer.eval_model(train_data, key=test_key)
    test_loss = trainer.eval_model(test_data, key=test_key)  # expect: JIT502
    print(f"Trained for {num_epochs} epochs: train_loss={train_loss:.5f}")
    print(f"Trained for {num_epochs} epochs: test_loss={test_loss:.5f}")


if __name__ == "__main__":
    # observed: line 158: the six training steps (two epochs of three batches) draw one mask
    # observed: line 169: the three evaluation batches draw one mask
    # observed: line 192: the test-set evaluation draws the train-set evaluation's mask
    data_rng = np.random.default_rng(0)
    make = lambda: [jnp.asarray(data_rng.random((4, 3, 16, 16)), jnp.float32) for _ in range(3)]
    train_data, val_data, test_data = make(), make(), make()
    main(train_data, val_data, test_data)
    # one trace each of train_step and eval_step: MASKS holds one record per call
    train_masks, train_eval_masks, test_eval_masks = MASKS[1:7], MASKS[7:10], MASKS[10:13]
    assert len(MASKS) == 13, len(MASKS)
    for m in train_masks[1:]:
        assert np.array_equal(m, train_masks[0])
    for m in train_eval_masks[1:] + test_eval_masks:
        assert np.array_equal(m, train_eval_masks[0])
    # a fresh key per step would mask differently
    other = MAEViT().apply({'params': jax.tree_util.tree_map(jnp.zeros_like, MAEViT().init(jax.random.PRNGKey(1), train_data[0], True, jax.random.PRNGKey(2))['params'])}, train_data[0], True, jax.random.PRNGKey(3))[1]
    assert not np.array_equal(np.asarray(other), train_masks[0])
