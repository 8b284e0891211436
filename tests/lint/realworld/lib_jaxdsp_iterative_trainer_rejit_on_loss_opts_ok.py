# source: https://github.com/khiner/jaxdsp/blob/7427170f9db004b844c782ec6108388c5879b1f5/jaxdsp/training.py
#   (JAXdsp, differentiable audio processors: the IterativeTrainer of commit "Allow changing
#   loss options (and re-jit'ing the grad fn...) during training")
# observed on jax 0.10.2 CPU: runs clean; the jitted value_and_grad is built once in
#   set_loss_opts (at construction, and again only when the loss options change), every
#   step calls the stored self.grad_fn and compiles nothing new, the shape test in
#   processor_loss is decided while tracing, and float() runs on concrete outputs only;
#   mean_loss_and_grads calls NumPy's np.mean on tracers, which defers to the tracer's own
#   .mean() and traces fine.
# gap: per-call-recompile
# added: stand-ins for jaxdsp.loss (create_loss_opts, and loss_fn as an L2 sample
#   distance) and for a processor (a one-parameter gain with tick_buffer and config, in
#   place of serial_processors); the __main__ block (trains the gain for 20 steps, counts
#   compiles, changes the loss options once, calls mean_loss_and_grads). Current spellings: jax.experimental.optimizers
#   -> jax.example_libraries.optimizers, tree_multimap -> tree_map.
import numpy as np
import jax.numpy as jnp
from jax import grad, value_and_grad, jit, vmap
from jax.example_libraries import optimizers
from operator import itemgetter
from collections.abc import Iterable

from jax.tree_util import tree_map, tree_map as tree_multimap


def create_loss_opts(weights, sample_distance_type="L2"):
    return {"weights": weights, "sample_distance_type": sample_distance_type}


def loss_fn(Y_estimated, Y_target, loss_opts):
    return loss_opts["weights"]["sample"] * jnp.mean((Y_estimated - Y_target) ** 2)


default_loss_opts = create_loss_opts(
    weights={
        "sample": 1.0,
    },
    sample_distance_type="L2",
)


@jit
def mean_loss_and_grads(loss, grads):
    return np.mean(loss), tree_map(lambda grad: np.mean(grad, axis=0), grads)


class Config:
    def __init__(self, loss_opts=default_loss_opts, step_size=0.2):
        self.loss_opts = loss_opts
        self.step_size = step_size


class LossHistoryAccumulator:
    def __init__(self, params_init):
        self.params_history = tree_map(lambda param: [param], params_init)
        self.loss_history = []

    def after_step(self, loss, new_params):
        self.loss_history.append(loss)
        self.params_history = tree_multimap(
            lambda new_param, params: params + [new_param],
            new_params,
            self.params_history,
        )


def float_params(params):
    return tree_map(
        lambda param: param
        if hasattr(param, "ndim") and param.ndim > 0
        else float(param),
        params,
    )


class IterativeTrainer:
    def __init__(
        self,
        processor,
        config=Config(),
        processor_config=None,
        track_history=False,
    ):
        self.processor = processor
        self.step_num = 0
        self.loss = 0.0
        processor_config = processor_config or processor.config()
        self.step_evaluator = (
            LossHistoryAccumulator(processor_config.params_init)
            if track_history
            else None
        )
        self.opt_init, self.opt_update, self.get_params = optimizers.sgd(
            config.step_size
        )
        self.opt_state = self.opt_init(processor_config.params_init)
        self.processor_state = processor_config.state_init
        self.set_loss_opts(config.loss_opts)

    # TODO set_step_size (without re-initializing params)
    def set_loss_opts(self, loss_opts):
        def processor_loss(params, state, X, Y_target):
            carry, Y_estimated = self.processor.tick_buffer(
                {"params": params, "state": state}, X
            )
            if Y_estimated.shape == Y_target.shape[::-1]:
                Y_estimated = Y_estimated.T  # TODO should eventually remove this check
            return (
                loss_fn(Y_estimated, Y_target, loss_opts),
                carry["state"],
            )

        # jit(vmap(value_and_grad(processor_loss), in_axes=(None, 0), out_axes=0))
        self.grad_fn = jit(value_and_grad(processor_loss, has_aux=True))

    def step(self, X, Y_target):
        # loss, grads = mean_loss_and_grads(*grad_fn(get_params(opt_state), Xs_batch))
        (self.loss, self.processor_state), self.grads = self.grad_fn(
            self.get_params(self.opt_state),
            self.processor_state,
            X,
            Y_target,
        )
        self.opt_state = self.opt_update(self.step_num, self.grads, self.opt_state)
        self.step_num += 1
        if self.step_evaluator:
            self.step_evaluator.after_step(self.loss, self.get_params(self.opt_state))

    def params(self):
        return float_params(self.get_params(self.opt_state))

    def params_and_loss(self):
        return {
            "params": self.params(),
            "loss": float(self.loss),
        }


def evaluate(carry_estimated, carry_target, processor, X):
    carry_estimated, Y_estimated = processor.tick_buffer(carry_estimated, X)
    carry_target, Y_target = processor.tick_buffer(carry_target, X)
    return Y_estimated, Y_target


if __name__ == "__main__":
    import types

    import jax
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    class Gain:
        @staticmethod
        def config():
            return types.SimpleNamespace(params_init={"gain": 0.1}, state_init={"n": 0})

        @staticmethod
        def tick_buffer(carry, X):
            state = {"n": carry["state"]["n"] + 1}
            return {"params": carry["params"], "state": state}, carry["params"]["gain"] * X

    X = jnp.sin(jnp.linspace(0.0, 20.0, 256))
    Y_target = 0.8 * X
    trainer = IterativeTrainer(Gain(), track_history=True)
    for _ in range(20):
        trainer.step(X, Y_target)
    assert abs(trainer.params()["gain"] - 0.8) < abs(0.1 - 0.8)
    assert len(trainer.step_evaluator.loss_history) == 20
    assert compiles.count("jit(processor_loss)") == 1, compiles
    trainer.set_loss_opts(create_loss_opts(weights={"sample": 2.0}))
    for _ in range(5):
        trainer.step(X, Y_target)
    assert compiles.count("jit(processor_loss)") == 2, compiles
    print(trainer.params_and_loss())
    # np here is NumPy: np.mean hands a tracer to its own .mean(), so this jits as written
    loss, grads = mean_loss_and_grads(jnp.array([1.0, 3.0]), {"gain": jnp.array([0.5, 1.5])})
    assert float(loss) == 2.0 and float(grads["gain"]) == 1.0
