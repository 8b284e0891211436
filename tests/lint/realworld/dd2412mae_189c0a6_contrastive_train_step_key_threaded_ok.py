# source: https://github.com/Victor-Manach/DD2412-deep-learning-project/blob/189c0a641604355ad58820ff55a330de7091fafa/train_mae_contrastive.py
#   (a student project's masked autoencoder trained with a SimCLR-style InfoNCE loss on two
#   views, with `mae_self_supervised_contrastive_loss` from its mae.py at
#   https://github.com/Victor-Manach/DD2412-deep-learning-project/blob/66a78fa42639b27bb684c35c8e49192156a64adb/mae.py)
# observed on jax 0.10.2 CPU: runs correctly: the jitted `train_step` splits the key it is
#   given inside the loss (the loss is itself jitted with the flax module, mask ratio and
#   `train` static) and hands the new key back, which `train_epoch` stores on `self.rng`, so
#   every step masks differently; `train_step` compiles once for all the epochs.
#   Kept: the file up to `save_model` (checkpoints and `load_model` left out) and the loss.
#   Added: a small stand-in for the project's `MAEViT` (a patch embedding, a random mask
#   drawn with a key per image, a dense decoder), random two-view batches, and the
#   `__main__` block.
# gap: other
import os
import time
import numpy as np
import jax
import jax.numpy as jnp
import optax
import flax
from flax.training import train_state
import flax.linen as nn
from tqdm.auto import tqdm


from functools import partial


# --- stand-in for mae.MAEViT (the project's ViT encoder and decoder elided) ---
class MAEViT(nn.Module):
    patch_size: int = 4
    embed_dim: int = 8

    @nn.compact
    def __call__(self, x, train, key, mask_ratio):
        n, c, hh, ww = x.shape
        p = self.patch_size
        h = hh // p
        patches = jnp.einsum("nchpwq->nhwpqc", x.reshape((n, c, h, p, h, p))).reshape((n, h * h, p**2 * c))
        z = nn.Dense(self.embed_dim)(patches)
        z = nn.Dropout(0.1, deterministic=not train)(z)
        keys = jax.random.split(key, n)
        keep = int(patches.shape[1] * (1 - mask_ratio))
        ids_restore = jax.vmap(lambda k: jnp.argsort(jnp.argsort(jax.random.uniform(k, (patches.shape[1],)))))(keys)
        mask = (ids_restore >= keep).astype(jnp.float32)
        y = nn.Dense(patches.shape[-1])(z)
        return y, mask


@partial(jax.jit, static_argnames=["model", "mask_ratio", "train"])
def mae_self_supervised_contrastive_loss(model, params, x, train, mask_ratio, temperature, key):
    imgs, labels = x
    imgs = jnp.concatenate([imgs[0], imgs[1]], axis=0)
    
    key, dropout_apply_rng, drop_path_apply_rng, masked_rng = jax.random.split(key, 4)
    features, mask = model.apply(
        {"params": params},
        x=imgs,
        mask_ratio=mask_ratio,
        train=train,
        key=masked_rng,
        rngs={"dropout": dropout_apply_rng, "drop_path": drop_path_apply_rng}
        )
    
    mask = jnp.expand_dims(mask, -1)
    mask = jnp.tile(mask, (1, 1, model.patch_size**2 * 3))  # (N, H*W, p*p*3)
    features = jnp.reshape(features * (1 - mask), (features.shape[0], -1))
    
    # Calculate cosine similarity between all images
    cos_sim = optax.cosine_similarity(features[:,None,:], features[None,:,:])
    cos_sim /= temperature
    
    # Masking cosine similarities to itself
    diag_range = jnp.arange(features.shape[0], dtype=jnp.int32)
    cos_sim = cos_sim.at[diag_range, diag_range].set(-9e15)
    
    # Find positive example -> batch_size//2 away from the original example
    shifted_diag = jnp.roll(diag_range, imgs.shape[0]//2)
    pos_logits = cos_sim[diag_range, shifted_diag]
    
    # InfoNCE loss
    nll = - pos_logits + nn.logsumexp(cos_sim, axis=-1)
    nll = nll.mean()
    
    return nll, key

# Path to the folder where the pretrained models are saved
CHECKPOINT_PATH = "./saved_models/mae_cont_loss/"

class TrainModule:
    def __init__(self, model, length_train_data, exmp_imgs, dataset_name, model_arch, num_epochs, weight_decay, mask_ratio, temperature, seed=42):
        super().__init__()
        self.seed = seed
        self.num_epochs = num_epochs
        self.mask_ratio = mask_ratio
        self.temperature = temperature
        # Create empty model. Note: no parameters yet
        self.model = model
        # Prepare logging
        self.exmp_imgs = exmp_imgs
        self.log_dir = os.path.join(CHECKPOINT_PATH, dataset_name, model_arch, f"{num_epochs}_epochs")
        self.dataset_name = dataset_name
        # Create jitted training and eval functions
        self.create_functions()
        # Initialize model
        self.init_model(num_epochs, weight_decay, length_train_data)

    def create_functions(self):
        """ Initialize the functions needed to train and evaluate the model and jit those functions
        to speed up the computations.
        """
        # Training function
        def train_step(state, batch, key):
            loss_fn = lambda params: mae_self_supervised_contrastive_loss(
                model=self.model,
                params=params,
                x=batch,
                train=True,
                mask_ratio=self.mask_ratio,
                temperature=self.temperature,
                key=key)
            
            (loss, key), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)  # Get loss and gradients for loss
            
            state = state.apply_gradients(grads=grads)  # Optimizer update step
            
            return state, loss, key
        self.train_step = jax.jit(train_step)
        
        # Eval function
        def eval_step(state, batch, key):
            loss, rng = mae_self_supervised_contrastive_loss(
                model=self.model,
                params=state.params,
                x=batch,
                train=False,
                mask_ratio=self.mask_ratio,
                temperature=self.temperature,
                key=key)
            
            return loss, rng
        self.eval_step = jax.jit(eval_step)

    def init_model(self, num_epochs, weight_decay, length_train_data):
        """ Initialize the MAE model with the proper random keys, the learning rate and the optimizer.
        """
        # Initialize model
        self.rng = jax.random.PRNGKey(self.seed)
        self.rng, init_rng, dropout_init_rng, drop_path_init_rng, masking_rng = jax.random.split(self.rng, 5)
        params = self.model.init(
            {"params": init_rng, "dropout": dropout_init_rng, "drop_path": drop_path_init_rng},
            x=self.exmp_imgs,
            train=True,
            mask_ratio=self.mask_ratio,
            key=masking_rng)["params"]
        
        # Initialize learning rate schedule and optimizer
        total_steps = (num_epochs+1) * length_train_data + (num_epochs+1)
        lr_schedule = optax.warmup_cosine_decay_schedule(
            init_value=1e-4,
            peak_value=1e-3,
            warmup_steps=int(total_steps*0.2),
            decay_steps=total_steps,
            end_value=1e-5
        )
        optimizer = optax.chain(
            optax.clip(1.),  # Clip gradients at 1
            optax.adamw(lr_schedule, weight_decay=weight_decay)
        )
        
        # Initialize training state
        self.state = train_state.TrainState.create(apply_fn=self.model.apply, params=params, tx=optimizer)

    def train_model(self, train_data):
        """ Train the model for a given number of epochs.
        """
        avg_losses = []
        pbar = tqdm(total=self.num_epochs)
        for epoch_idx in range(1, self.num_epochs+1):
            t1 = time.time()
            avg_loss = self.train_epoch(train_data=train_data, epoch=epoch_idx)
            pbar.set_description(f"Epoch {epoch_idx} | avg loss {avg_loss:.4f} | train epoch time {time.time()-t1:.4f}s")
            pbar.update(1)
            avg_losses.append(avg_loss)
        pbar.close()
        
        return np.asarray(avg_losses)

    def train_epoch(self, train_data, epoch):
        """ Train model for one epoch, and log the average loss.
        """
        losses = []
        pbar = tqdm(total=len(train_data))
        for batch in train_data:
            t1 = time.time()
            self.state, loss, self.rng = self.train_step(self.state, batch, self.rng)
            pbar.set_description(f"Epoch {epoch} | train loss {loss:.4f} | train step time {time.time()-t1:.4f}s")
            pbar.update(1)
            losses.append(loss)
        pbar.close()
        losses_np = np.stack(jax.device_get(losses))
        avg_loss = losses_np.mean()
        
        return avg_loss

    def eval_model(self, data_loader):
        """ Test the model on all images of a data loader and return the average loss.
        """
        losses = []
        batch_sizes = []
        for batch in data_loader:
            loss, self.rng = self.eval_step(self.state, batch, self.rng)
            losses.append(loss)
            batch_sizes.append(batch[0][0].shape[0])
        losses_np = np.stack(jax.device_get(losses))
        batch_sizes_np = np.stack(batch_sizes)
        avg_loss = (losses_np * batch_sizes_np).sum() / batch_sizes_np.sum()
        
        return avg_loss


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, secs, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None)
    data_rng = np.random.default_rng(0)
    def batch():
        v1 = jnp.asarray(data_rng.random((4, 3, 16, 16)), jnp.float32)
        v2 = jnp.asarray(data_rng.random((4, 3, 16, 16)), jnp.float32)
        return ((v1, v2), jnp.zeros(4))
    train_data = [batch() for _ in range(3)]
    trainer = TrainModule(model=MAEViT(), length_train_data=len(train_data), exmp_imgs=train_data[0][0][0],
                          dataset_name="random", model_arch="small_arch", num_epochs=2,
                          weight_decay=1e-4, mask_ratio=0.75, temperature=0.07)
    keys_seen = [trainer.rng]
    before = len(compiles)
    losses = trainer.train_model(train_data)
    assert np.all(np.isfinite(losses)), losses
    n_train_compiles = len(compiles) - before
    assert n_train_compiles <= 3, n_train_compiles  # train_step (and its small helpers) once
    old = trainer.rng
    trainer.train_epoch(train_data, epoch=3)
    assert len(compiles) - before == n_train_compiles  # no recompile on a later epoch
    assert not np.array_equal(jax.random.key_data(old), jax.random.key_data(trainer.rng))
    print("eval loss", trainer.eval_model(train_data))
