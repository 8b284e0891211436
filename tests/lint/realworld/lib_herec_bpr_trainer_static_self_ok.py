# source: https://github.com/KaiSugahara/HERec/blob/7f226475b48a83f12b792fdd4ae5a52d9ea6f8f9/herec/trainer/bprTrainer.py
#   (with baseTrainer.__get_key, baseTrainer.__train_batch and baseTrainer.__init__ from
#   herec/trainer/baseTrainer.py and the MF model from herec/model/MF.py at the same commit:
#   a flax recommender-systems research code base)
# observed on jax 0.10.2 CPU: runs clean: the trainer's methods are jitted with the
#   trainer itself static (static_argnums=0, hashed by identity); inside the jitted BPR
#   loss the Python loop over range(2, X.shape[1]) unrolls over the static number of
#   negative columns, `Y is not None` and hasattr(self.model, ...) are decided at trace
#   time, and __train_batch calls the jitted loss of the same static trainer. After the
#   first of four steps on batches of one shape nothing is traced again. Added: the
#   imports, a random toy interaction matrix (user, positive item, two negative items), and the __main__ block,
#   whose init (as fit() does it) wraps model.init in flax.core.freeze: flax returned a
#   FrozenDict, whose .pop gives (rest, popped), when this was written.
#   Left out: everything that needs mlflow, orbax or the polars data loaders (fit, score,
#   custom_score, the checkpointing and early-stopping helpers).
# gap: exemption-vs-JAX
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.core import freeze
from flax.training import train_state


class MF(nn.Module):
    
    user_num: int
    item_num: int
    embedDim: int

    def setup(self):

        self.userEmbedder = nn.Embed(num_embeddings=self.user_num, features=self.embedDim)
        self.itemEmbedder = nn.Embed(num_embeddings=self.item_num, features=self.embedDim)
    
    @nn.compact
    def __call__(self, X):
        
        user_ids = X[:, 0]
        item_ids = X[:, 1]

        U = self.userEmbedder(user_ids)
        V = self.itemEmbedder(item_ids)
        
        return jnp.sum(U * V, axis=1, keepdims=True)

    def get_all_scores_by_user_ids(self, user_ids):

        U = self.userEmbedder(user_ids)
        V = self.itemEmbedder.embedding

        return U @ V.T


class baseTrainer:

    def __get_key(self, is_init=False):
        
        """
            func: PRNG keyを生成
        """

        # keyを初期化
        if is_init:
            self.key = jax.random.PRNGKey(self.seed)

        # 次のkeyを生成
        self.key, subkey = jax.random.split(self.key)

        return subkey

    @partial(jax.jit, static_argnums=0)
    def __train_batch(self, state, variables, X, Y):

        """
            func: バッチ単位の学習
            args:
                - state: パラメータ状態
                - variables: 状態変数（carryなど）
                - X: 入力データ
                - Y: 正解データ
            returns:
                - state: パラメータ状態
                - loss: 損失
                - variables: 状態変数
            note:
                JITコンパイルしているため、stateとvariablesは引数として受け取る
        """

        # 勾配を計算
        (loss, variables), grads = jax.value_and_grad(self.loss_function, has_aux=True)(state.params, variables, X, Y)

        # 更新
        state = state.apply_gradients(grads=grads)
        return state, variables, loss

    def clear_cache(self):

        self.__train_batch.clear_cache()
        self.loss_function.clear_cache()

        return self

    def __init__(
        self,
        model: Any,
        dataLoader: Any,
        run: Any,
        ckpt_dir: str,
        epochNum: int,
        batch_size: int,
        learning_rate: float,
        weight_decay: float,
        es_patience: int,
        seed: int = 0,
        verbose: int = 2,
        **other_params: Any,
    ):

        """
            Trainer a Flax model using specified parameters.

            Args:
                model: Flax model to be trained.
                dataLoader: DataLoader for the dataset.
                run: MLFlow run for experiment tracking.
                ckpt_dir: Directory to save model parameter checkpoints.
                epochNum: Number of epochs to train.
                batch_size: Mini-batch size.
                learning_rate: Learning rate for AdamW optimizer.
                weight_decay: Weight decay for AdamW optimizer.
                es_patience: Patience for early stopping criterion.
                seed: Random seed for initialization.
                verbose: Verbosity level (2: all prints, 1: partial prints, 0: no prints).
                other_params: Model-specific hyperparameters (optional).
        """

        # Set Arguments as Class Members
        setattr(self, "model", model)
        setattr(self, "dataLoader", dataLoader)
        setattr(self, "run", run)
        setattr(self, "ckpt_dir", ckpt_dir)
        setattr(self, "epochNum", epochNum)
        setattr(self, "batch_size", batch_size)
        setattr(self, "learning_rate", learning_rate)
        setattr(self, "weight_decay", weight_decay)
        setattr(self, "es_patience", es_patience)
        setattr(self, "seed", seed)
        setattr(self, "verbose", verbose)
        for arg_name, arg_value in other_params.items(): setattr(self, arg_name, arg_value)


class bprTrainer(baseTrainer):
    
    @partial(jax.jit, static_argnums=0)
    def calc_top100_indices(self, params, target_user_ids):
        scores = self.model.apply( {"params": params}, target_user_ids, method=self.model.get_all_scores_by_user_ids )
        _, top100_indices = jax.lax.top_k(scores, 100)
        return top100_indices

    @partial(jax.jit, static_argnums=0)
    def loss_function(self, params, variables, X, Y):

        # Predict Scores for Positive Items
        PRED_pos = self.model.apply( {'params': params, **variables}, X[:, (0, 1)], mutable=list(variables.keys()) )[0]

        # Predict Scores for Negative Items
        PRED_neg = jnp.hstack([
            self.model.apply( {'params': params, **variables}, X[:, (0, i)], mutable=list(variables.keys()) )[0]
            for i in range(2, X.shape[1])
        ])

        # Calculate BPR cost for sampling pairs
        cost = - jnp.log(jax.nn.sigmoid(PRED_pos - PRED_neg))

        # Weight Cost and Average
        if Y is not None:
            cost = cost * Y
            cost = cost.sum(axis=0) / Y.sum()
            loss = cost.mean()
        else:
            cost = cost.mean(axis=0)
            loss = cost.mean()
            
        # regularization_terms
        if hasattr( self.model, "regularization_terms" ):
            sample_user_ids = X[:, 0]
            sample_item_ids = X[:, 1:].reshape(-1)
            loss += self.model.apply({'params': params, **variables}, sample_user_ids, sample_item_ids, method=self.model.regularization_terms)

        return loss, variables

    def clear_cache(self):

        super().clear_cache()
        self.calc_top100_indices.clear_cache()

        return self


if __name__ == "__main__":
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: traces.append(name) if name == "/jax/core/compile/jaxpr_trace_duration" else None
    )

    user_num, item_num = 50, 120
    model = MF(user_num=user_num, item_num=item_num, embedDim=8)
    trainer = bprTrainer(model, dataLoader=None, run=None, ckpt_dir="", epochNum=1, batch_size=32,
                         learning_rate=1e-2, weight_decay=1e-4, es_patience=0)

    # as fit() does: init the key, then the params from one mini-batch
    _ = trainer._baseTrainer__get_key(is_init=True)
    X = jnp.concatenate([
        jax.random.randint(trainer._baseTrainer__get_key(), (32, 1), 0, user_num),
        jax.random.randint(trainer._baseTrainer__get_key(), (32, 3), 0, item_num),
    ], axis=1)
    # (flax returned a FrozenDict from init when this was written; freeze() keeps its .pop)
    trainer.variables, params = freeze(model.init(trainer._baseTrainer__get_key(), X)).pop("params")
    tx = optax.adamw(learning_rate=trainer.learning_rate, weight_decay=trainer.weight_decay)
    trainer.state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=tx)

    losses = []
    for step in range(4):
        Xb = jnp.concatenate([
            jax.random.randint(trainer._baseTrainer__get_key(), (32, 1), 0, user_num),
            jax.random.randint(trainer._baseTrainer__get_key(), (32, 3), 0, item_num),
        ], axis=1)
        trainer.state, trainer.variables, loss = trainer._baseTrainer__train_batch(trainer.state, trainer.variables, Xb, None)
        losses.append(float(loss))
        if step == 0:
            n_after_first = len(traces)
    n_after_train = len(traces)

    # weighted variant (implicitLoader with has_weight) and evaluation
    loss_w, _ = trainer.loss_function(trainer.state.params, trainer.variables, Xb, jnp.ones((32, 1)))
    top = trainer.calc_top100_indices(trainer.state.params, jnp.arange(10))
    assert top.shape == (10, 100)
    assert all(l == l for l in losses) and bool(jnp.isfinite(loss_w))
    # steps 2 to 4 reuse the compiled __train_batch: nothing is traced again
    assert n_after_train == n_after_first, (n_after_first, n_after_train)
