# source: https://github.com/esennesh/captcha-numpyro/blob/6677ab0fd7b3b6487e4b4fd0f166e09c285db9e4/src/learner/graphical.py (a numpyro SVI learner for a CAPTCHA model; `_update` and `_evaluate` are jitted closures cached on the learner, unchanged since the initial commit 98107d4)
# observed on jax 0.10.2 CPU: the jitted `_update` and `_evaluate` read `self.buffer_state` and `self.schedule_state.scale` while tracing, so the compiled steps keep the values of the first trace: every train_step starts from the buffers of step 0 although train_step writes the new mutables back into `self._buffer_state` (after three steps a running buffer holds 0.1*m, not the 0.271*m the same steps give without jit), valid_step likewise, and after `validate` lowers the reduce-on-plateau scale to 0.5 the compiled update still scales the gradients by 1.0 (the parameter step is unchanged; a freshly traced update takes half the step)
# gap: stale-state-attributes
# (kept: GraphicalModelLearner's __init__, properties, _evaluate, _update and the train/valid/test/validate steps as written; trimmed: __call__, render_model, _setup_graph and setup_step, which need the project's tracer, utils and data modules; added: the small stand-ins for ParamLearner, networkx's DiGraph, omegaconf's DictConfig, is_autoguide and the ParticleTracer's loss, and a __main__ block that sets the state setup_step would set and runs the steps)
from functools import cached_property
import itertools
import jax
import jax.numpy as jnp
import jax.random as random
import numpyro

import optax

from typing import Any, Dict


class ParamLearner:  # stand-in for src.learner.learner.ParamLearner (abstract methods only)
    pass


class nx:  # stand-in for networkx
    class DiGraph:
        pass


class DictConfig(dict):  # stand-in for omegaconf.dictconfig.DictConfig
    pass


def is_autoguide(guide):  # stand-in for src.utils.is_autoguide
    return False


class GraphicalModelLearner(ParamLearner):
    def __init__(self, data_shape, guide, model, optim, rng,
                 tracer,
                 scheduler: optax.GradientTransformation=None):
        if is_autoguide(guide):
            guide = guide(model)
        if not isinstance(rng, jax.Array):
            rng = random.key(rng)
        self._buffer_state = {}
        self._constrain_fn = None
        self._graph = nx.DiGraph()
        self._guide = guide
        self._model = model
        self.optim_state = None
        if isinstance(optim, numpyro.optim._NumPyroOptim):
            self.optimizer = optim
        else:
            if isinstance(optim, dict) or isinstance(optim, DictConfig):
                optim = optax.chain(*optim.values())
            self.optimizer = numpyro.optim.optax_to_numpyro(optim)
        self._particle_params = set({})
        self._relations = {}
        self._rng = rng
        self.scheduler = scheduler
        self.schedule_state = None
        self._tracer = tracer

    @property
    def buffer_state(self):
        return self._buffer_state

    @cached_property
    def _evaluate(self):
        @jax.jit
        def fn(data, params, rng):
            next_rng, rng = random.split(rng)
            particle_params = jax.lax.stop_gradient(self.buffer_state)  # expect: JIT201
            particle_params.update({
                param: value for param, value in params.items()
                if param in self._particle_params
            })
            params = {param: value for param, value in params.items()
                      if param not in self._particle_params}
            loss, state = self.tracer.loss(rng, params, particle_params,
                                           self.model, self.guide, data)
            return loss, next_rng, state
        return fn

    @property
    def guide(self):
        return self._guide

    def load(self, checkpoint: Dict[str, Any]):
        self._buffer_state = checkpoint["buffer_state"]
        self.optim_state = checkpoint["optim_state"]

    @property
    def tracer(self):
        return self._tracer

    @property
    def model(self):
        return self._model

    @property
    def parameters(self):
        return self._constrain_fn(self.optimizer.get_params(self.optim_state))

    @property
    def rng(self):
        return self._rng

    def save(self):
        return {"buffer_state": self.buffer_state,
                "optim_state": self.optim_state}

    @cached_property
    def _update(self):
        @jax.jit
        def fn(data, optim_state, rng):
            next_rng, rng = random.split(rng)
            def loss_fn(params):
                particle_params = jax.lax.stop_gradient(self.buffer_state)  # expect: JIT201
                particle_params.update({
                    param: value for param, value in params.items()
                    if param in self._particle_params
                })
                params = {param: value for param, value in params.items()
                          if param not in self._particle_params}
                return self.tracer.loss(rng, params, particle_params,
                                        self.model, self.guide, data)

            # Replicating the Numpyro eval_and_update() method.
            (loss, state), grads = numpyro.optim._value_and_grad(
                loss_fn, x=self.optimizer.get_params(optim_state)
            )
            # Intervene by scaling the grads according to LR scheduler
            if self.scheduler and self.schedule_state:
                grads = optax.tree.scale(self.schedule_state.scale, grads)  # expect: JIT201
            # Actually update
            optim_state = self.optimizer.update(grads, optim_state, value=loss)
            return loss, optim_state, next_rng, state
        return fn

    def test_step(self, data, *args, **kwargs):
        loss, self._rng, state = self._evaluate(data, self.parameters, self.rng)
        self._buffer_state.update(state["mutables"])
        return {"loss": loss, "log_w": state["log_w"]}

    def train_step(self, data, *args, **kwargs):
        loss, self.optim_state, self._rng, state = self._update(
            data, self.optim_state, self.rng
        )
        self._buffer_state.update(state["mutables"])
        return {"loss": loss, "log_w": state["log_w"]}

    def validate(self, loss: float):
        if self.scheduler:
            _, self.schedule_state = self.scheduler.update(
                updates=self.parameters, state=self.schedule_state, value=loss
            )

    def valid_step(self, data, *args, **kwargs):
        loss, self._rng, state = self._evaluate(data, self.parameters, self.rng)
        self._buffer_state.update(state["mutables"])
        return {"loss": loss, "log_w": state["log_w"]}


class ParticleTracer:  # stand-in for src.inference.tracer.ParticleTracer: a loss with a running buffer (like batch statistics)
    def loss(self, rng, params, particle_params, model, guide, data):
        buf = particle_params["running_mean"]
        loss = jnp.sum((params["w"] - data.mean(0)) ** 2) + 0.0 * jnp.sum(buf)
        new_buf = 0.9 * buf + 0.1 * data.mean(0)
        return loss, {"mutables": {"running_mean": new_buf}, "log_w": jnp.zeros(())}


if __name__ == "__main__":
    data = jnp.full((4, 3), 2.0)
    m = data.mean(0)

    def make_learner():
        learner = GraphicalModelLearner((4, 3), guide=None, model=None,
                                        optim=optax.sgd(0.1), rng=0, tracer=ParticleTracer(),
                                        scheduler=optax.contrib.reduce_on_plateau(factor=0.5, patience=1))
        # what setup_step sets up
        learner._constrain_fn = lambda p: p
        learner._buffer_state = {"running_mean": jnp.zeros(3)}
        learner.optim_state = learner.optimizer.init({"w": jnp.zeros(3)})
        learner.schedule_state = learner.scheduler.init({"w": jnp.zeros(3)})
        return learner

    # observed: line 116 each train_step starts from the buffers of the first trace
    learner = make_learner()
    for _ in range(3):
        learner.train_step(data)
    assert jnp.allclose(learner.buffer_state["running_mean"], 0.1 * m)  # eager: 0.271 * m
    fresh = make_learner()
    with jax.disable_jit():
        for _ in range(3):
            fresh.train_step(data)
    assert jnp.allclose(fresh.buffer_state["running_mean"], 0.271 * m)

    # observed: line 70 each valid_step starts from the buffers of the first trace as well
    learner = make_learner()
    learner.valid_step(data)
    learner.valid_step(data)
    assert jnp.allclose(learner.buffer_state["running_mean"], 0.1 * m)  # eager: 0.19 * m

    # observed: line 132 after validate lowers the scale, the compiled update still uses 1.0
    learner = make_learner()
    learner.train_step(data)
    learner.validate(1.0)
    learner.validate(2.0)
    assert float(learner.schedule_state.scale) == 0.5
    w0 = learner.parameters["w"]
    learner.train_step(data)
    step = learner.parameters["w"] - w0
    grad = 2 * (w0 - m)
    assert jnp.allclose(step, -0.1 * grad), step  # the full step: scale 1.0 from the first trace
    del learner.__dict__["_update"]  # a fresh trace reads the current scale
    w1 = learner.parameters["w"]
    learner.train_step(data)
    assert jnp.allclose(learner.parameters["w"] - w1, -0.05 * 2 * (w1 - m))
    print("OK: stale buffers in _update and _evaluate, stale reduce-on-plateau scale")
