# source: https://github.com/entrpn/jax-flax-models/blob/c7f97ebb5d2f3080228c9c035d6dd50b21937bb7/models/vit/vit_trainer_module.py
#   (with models/vit/vision_transformer.py of the same commit, which it imports: a personal
#   "collection of model architectures implemented in jax/flax with training code")
# observed on jax 0.10.2 CPU: runs clean. TrainerModule jits train_step and eval_step once,
#   in create_functions; both take the trainer's key, split it inside the step (the dropout
#   key is drawn from the second half) and hand the first half back, which train_epoch and
#   eval_model store in self.rng before the next call, so no key is drawn from twice (JAX's
#   key-reuse checker, with typed keys, accepts the run); every batch reuses one compilation
#   of each step, and the piecewise learning-rate schedule is read through the optimizer
#   state, not a global.
# gap: other
# added/replaced: vision_transformer.py is inlined above the trainer (its `from
#   vision_transformer import ViT` dropped); torch's SummaryWriter is replaced by a no-op
#   stand-in (torch is not installed) and CHECKPOINT_PATH points into a temporary folder;
#   save_model/load_model/checkpoint_exists (flax checkpoint files) are left out and
#   train_model's best-model save is not reached (evaluation every 10 epochs, 2 epochs run);
#   the __main__ block (random 32x32 CIFAR-like batches instead of CIFAR10 loaders, the
#   hyperparameters of the repository's train_vit.py shrunk for CPU) and its checks.
import tempfile
import numpy as np
import jax.numpy as jnp
import flax.linen as nn

def img_to_patch(x, patch_size, flatten_channels=True, overlap=False):
    b,h,w,c = x.shape
    x = x.reshape(b, h//patch_size, patch_size, w//patch_size, patch_size, c)
    x = x.transpose(0,1,3,2,4,5)
    x = x.reshape(b,-1,*x.shape[3:])
    if flatten_channels:
        x = x.reshape(b,x.shape[-1],-1)
    return x

class AttentionBlock(nn.Module):
    embed_dim : int
    hidden_dim : int
    num_heads : int
    dropout_prob : float = 0.0

    def setup(self):
        self.attn = nn.MultiHeadDotProductAttention(num_heads=self.num_heads)
        self.linear = [
            nn.Dense(self.hidden_dim),
            nn.gelu,
            nn.Dropout(self.dropout_prob),
            nn.Dense(self.embed_dim)
        ]
        self.layer_norm_1 = nn.LayerNorm()
        self.layer_norm_2 = nn.LayerNorm()
        self.dropout = nn.Dropout(self.dropout_prob)
    
    def __call__(self,x,train=True):
        inp_x = self.layer_norm_1(x)
        attn_out = self.attn(inputs_q=inp_x, inputs_kv=inp_x)
        x = x + self.dropout(attn_out, deterministic= not train)

        linear_out = self.layer_norm_2(x)
        for l in self.linear:
            linear_out = l(linear_out) if not isinstance(l, nn.Dropout) else l(linear_out,deterministic=not train)
        
        x = x + self.dropout(linear_out, deterministic=not train)

        return x

class ViT(nn.Module):
    embed_dim : int
    hidden_dim : int #Dim of hidden layer in feed-forward network
    num_heads : int
    num_channels : int
    num_layers : int #Number of blocks to use in transformer
    num_classes : int
    patch_size : int
    num_patches : int
    dropout_prob : float = 0.0

    def setup(self):
        self.input_layer = nn.Dense(self.embed_dim)
        self.transformer = [AttentionBlock(self.embed_dim, self.hidden_dim, num_heads=4, dropout_prob=0.1) for _ in range(self.num_layers)]

        self.mlp_head = nn.Sequential([
            nn.LayerNorm(),
            nn.Dense(self.num_classes)
        ])
        self.dropout = nn.Dropout(self.dropout_prob)

        self.cls_token = self.param('cls_token',nn.initializers.normal(stddev=1.0),(1,1,self.embed_dim))

        self.pos_embedding = self.param('pos_embedding',nn.initializers.normal(stddev=1.0),(1,1+self.num_patches, self.embed_dim))
    
    def __call__(self, x, train=True):
        x = img_to_patch(x, self.patch_size)
        B, T, _ = x.shape
        x = self.input_layer(x)

        cls_token = self.cls_token.repeat(B, axis=0)
        x = jnp.concatenate([cls_token, x], axis=1)
        x = x + self.pos_embedding[:,:T+1]

        x = self.dropout(x, deterministic=not train)
        for attn_block in self.transformer:
            x = attn_block(x, train=train)
        
        cls = x[:,0]
        out = self.mlp_head(cls)
        return out

import jax
import optax
import os
from flax.training import train_state  # `checkpoints` dropped with save_model/load_model


class SummaryWriter:  # stand-in for torch.utils.tensorboard.SummaryWriter (added)
    def __init__(self, log_dir=None):
        self.log_dir = log_dir

    def add_scalar(self, *args, **kwargs):
        pass

    def flush(self):
        pass

from tqdm import tqdm
from collections import defaultdict
import numpy as np

CHECKPOINT_PATH = tempfile.mkdtemp()  # was "./saved_models/tutorial15_jax"
os.makedirs(CHECKPOINT_PATH, exist_ok=True)
class TrainerModule:
    def __init__(self, exmp_imgs, lr=1e-3, weight_decay=0.01, seed=42, **model_hparams):
        super().__init__()
        self.lr = lr
        self.weight_decay=weight_decay
        self.seed=seed
        self.rng=jax.random.PRNGKey(self.seed)
        self.model = ViT(**model_hparams)
        self.log_dir = os.path.join(CHECKPOINT_PATH, 'ViT/')
        self.logger = SummaryWriter(log_dir=self.log_dir)
        self.create_functions()
        self.init_model(exmp_imgs)
    
    def create_functions(self):
        def calculate_loss(params, rng,batch,train):
            imgs, labels = batch
            rng, dropout_apply_rng = jax.random.split(rng)
            logits = self.model.apply({
                'params': params},
                imgs,
                train=train,
                rngs={'dropout' : dropout_apply_rng}
            )
            loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
            acc = (logits.argmax(axis=-1) == labels).mean()
            return loss, (acc, rng)
        
        def train_step(state, rng, batch):
            loss_fn = lambda params: calculate_loss(params, rng, batch, train=True)
            (loss, (acc,rng)), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
            state = state.apply_gradients(grads=grads)
            return state, rng, loss, acc
        
        def eval_step(state,rng,batch):
            _, (acc, rng) = calculate_loss(state.params, rng, batch, train=False)
            return rng, acc
        
        self.train_step = jax.jit(train_step)
        self.eval_step = jax.jit(eval_step)
    
    def init_model(self, exmp_imgs):
        self.rng, init_rng, dropout_init_rng = jax.random.split(self.rng, 3)
        self.init_params = self.model.init({'params' : init_rng, 'dropout' : dropout_init_rng}, exmp_imgs,train=True)['params']
        self.state = None
    
    def init_optimizer(self, num_epochs, num_steps_per_epoch):
        lr_schedule = optax.piecewise_constant_schedule(
            init_value=self.lr,
            boundaries_and_scales={
                int(num_steps_per_epoch*num_epochs*0.6) : 0.1,
                int(num_steps_per_epoch*num_epochs*0.85): 0.1
            }
        )
        optimizer = optax.chain(
            optax.clip_by_global_norm(1.0),
            optax.adamw(lr_schedule, weight_decay=self.weight_decay)
        )
        self.state = train_state.TrainState.create(
            apply_fn=self.model.apply,
            params=self.init_params if self.state is None else self.state.params,
            tx=optimizer
        )
    
    def train_model(self, train_loader, val_loader, num_epochs=200):
        self.init_optimizer(num_epochs, len(train_loader))
        best_eval=0.0
        for epoch_idx in tqdm(range(1, num_epochs+1)):
            self.train_epoch(epoch=epoch_idx, train_loader=train_loader)
            if epoch_idx % 10 == 0:
                eval_acc = self.eval_model(val_loader)
                print('eval_acc:',eval_acc)
                self.logger.add_scalar('val/acc',eval_acc, global_step=epoch_idx)
                if eval_acc >= best_eval:
                    best_eval = eval_acc
                    self.save_model(step=epoch_idx)
                self.logger.flush()
    
    def train_epoch(self, epoch, train_loader):
        metrics = defaultdict(list)
        for batch in tqdm(train_loader, desc='Training', leave=False):
            self.state, self.rng, loss, acc = self.train_step(self.state, self.rng, batch)
            metrics['loss'].append(loss)
            metrics['acc'].append(acc)
        for key in metrics:
            avg_val = np.stack(jax.device_get(metrics[key])).mean()
            self.logger.add_scalar('train/'+key, avg_val, global_step=epoch)
    
    def eval_model(self, data_loader):
        # Test model on all images of a data loader and return avg loss
        correct_class, count = 0, 0
        for batch in data_loader:
            self.rng, acc = self.eval_step(self.state, self.rng, batch)
            correct_class += acc * batch[0].shape[0]
            count += batch[0].shape[0]
        eval_acc = (correct_class / count).item()
        return eval_acc



if __name__ == '__main__':
    # added: random CIFAR-like batches (NHWC, 32x32x3) and a CPU-sized version of train_vit.py's model
    rs = np.random.RandomState(0)
    train_loader = [(rs.randn(16, 32, 32, 3).astype(np.float32), rs.randint(0, 10, size=16)) for _ in range(4)]
    val_loader = [(rs.randn(16, 32, 32, 3).astype(np.float32), rs.randint(0, 10, size=16)) for _ in range(2)]
    trainer = TrainerModule(exmp_imgs=train_loader[0][0],
                            embed_dim=32,
                            hidden_dim=64,
                            num_heads=4,
                            num_layers=2,
                            patch_size=4,
                            num_channels=3,
                            num_patches=64,
                            num_classes=10,
                            dropout_prob=0.2,
                            lr=3e-4)
    rng_before = jax.random.key_data(trainer.rng)
    trainer.train_model(train_loader, val_loader, num_epochs=2)
    val_acc = trainer.eval_model(val_loader)
    print('val acc', val_acc)
    # a further epoch and evaluation compile nothing: every batch reuses the steps' compilations
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None)
    trainer.train_epoch(epoch=3, train_loader=train_loader)
    trainer.eval_model(val_loader)
    assert compiles == [], compiles
    # the trainer's key moved on: each step handed back a fresh half of its split
    assert not np.array_equal(jax.random.key_data(trainer.rng), rng_before)
    assert all(bool(jnp.all(jnp.isfinite(l))) for l in jax.tree_util.tree_leaves(trainer.state.params))
