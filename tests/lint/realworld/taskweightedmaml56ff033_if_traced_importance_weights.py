# source: https://github.com/seblee97/task_weighted_maml/blob/56ff033aa864bf6e82884f91e952eb2efaa135ca/jax_maml/jax_model.py (and jax_maml/jax_sinusoid.py; fixed by commit 9e966a115abf30f886b90a370a955deab0c010ab "changed control flow in jax jit to suit types")
# observed on jax 0.10.2 CPU: with importance-sampling weights, `if task_probability_weights:` in the vmapped/jitted MAML loss raises TracerBoolConversionError; every training step also wraps a fresh jit(self.outer_training_loop) and retraces/recompiles
# gap: types
# added: merged the two modules into one file (jax_sinusoid's `import random`/`import numpy as np` renamed to py_random/onp because jax_model binds random/np to jax.random/jax.numpy),
#        jax.experimental.stax/optimizers -> jax.example_libraries.stax/optimizers, jax.tree_util.tree_multimap -> jax.tree_util.tree_map,
#        stand-ins for the config object (_Params), tensorboardX SummaryWriter and utils.priority.PriorityQueue; validation, checkpointing and plotting dropped; small sizes; __main__ block
import random as py_random
import math

from typing import Any, Tuple, List, Dict

from abc import ABC, abstractmethod

import numpy as onp

import jax.numpy as np
import jax

# jax imports
from jax import vmap # for auto-vectorizing functions
from jax import jit # for compiling functions for speedup
from jax.example_libraries import stax # neural network library
from jax.example_libraries.stax import Conv, Dense, MaxPool, Relu, Flatten, LogSoftmax
from jax import random
from jax.example_libraries import optimizers

from functools import partial # for use with vmap


class _Params:  # stand-in for the project's yaml configuration object
    def __init__(self, d):
        self._d = d

    def get(self, key):
        if isinstance(key, list):
            value = self._d
            for k in key:
                value = value.get(k) if isinstance(value, dict) else None
            return value
        return self._d.get(key)


class _Writer:  # stand-in for tensorboardX.SummaryWriter
    def add_scalar(self, *args):
        pass


class _PriorityQueue:  # stand-in for utils.priority.PriorityQueue (uniform over a 4x4 grid)
    def __init__(self, param_ranges):
        self.param_ranges = param_ranges
        self._queue = onp.ones((4, 4))

    def query(self, step):
        idx = (py_random.randrange(4), py_random.randrange(4))
        params = [lo + (hi - lo) * (i + 0.5) / 4 for i, (lo, hi) in zip(idx, self.param_ranges)]
        return idx, params, 1.0 / 16

    def get_queue(self):
        return self._queue

    def get_epsilon(self):
        return None

    def compute_count_loss_correlation(self):
        return 0.0

    def insert(self, key, data):
        self._queue[key] = data


class MAML(ABC):

    def __init__(self, params):
        self.params = params

        # extract relevant parameters
        self.task_batch_size = self.params.get("task_batch_size")
        self.inner_update_lr = self.params.get("inner_update_lr")
        self.meta_lr = self.params.get("meta_lr")
        self.inner_update_k = self.params.get("inner_update_k")
        self.num_inner_updates = self.params.get("num_inner_updates")
        self.training_iterations = self.params.get("training_iterations")
        self.validation_frequency = self.params.get("validation_frequency")
        self.checkpoint_path = self.params.get("checkpoint_path")
        self.priority_sample = self.params.get("priority_sample")
        self.input_dimension = self.params.get("input_dimension")
        self.network_layers = self.params.get("network_layers")
        self.output_dimension = self.params.get("output_dimension")
        self.sample_type = self.params.get(["priority_queue", "sample_type"])

        # initialise tensorboard writer
        self.writer = _Writer()

        # if using priority queue for inner loop sampling, initialise 
        if self.params.get("priority_sample"):
            self.priority_queue = self._get_priority_queue()

        self.network_initialisation, self.network_forward = self._get_model()
        input_shape = (-1, self.input_dimension,)
        random_initialisation = random.PRNGKey(0)

        self.start_iteration = 0
        output_shape, network_parameters = self.network_initialisation(random_initialisation, input_shape)

        self.optimier_initialisation, self.optimiser_update, self.get_params_from_optimiser = self._get_optimiser()
        self.optimiser_state = self.optimier_initialisation(network_parameters)

    def inner_loop_update(self, parameters, x_batch, y_batch):
        """
        Inner loop of MAML algorithm, consists of optimisation steps on sampled tasks

        :return updated_inner_parameters: updated inner network parameters
        """
        gradients = jax.grad(self._compute_loss)(parameters, x_batch, y_batch)
        inner_sgd_fn = lambda g, state: (state - self.inner_update_lr * g)
        updated_inner_parameters = jax.tree_util.tree_map(inner_sgd_fn, gradients, parameters) # TODO (and docstring)
        return updated_inner_parameters

    def _maml_loss(self, parameters, x_batch, y_batch, x_meta, y_meta, task_probability_weights):
        for _ in range(self.num_inner_updates):
            parameters = self.inner_loop_update(parameters, x_batch, y_batch)
        if task_probability_weights:  # expect: JIT101
            loss_for_meta_update = task_probability_weights * self._compute_loss(parameters, x_meta, y_meta)
        else:
            loss_for_meta_update = self._compute_loss(parameters, x_meta, y_meta)
        return loss_for_meta_update

    def batch_maml_loss(self, parameters, x_batch, y_batch, x_meta, y_meta, task_probability_weights, get_all_losses=False):
        task_losses = vmap(partial(self._maml_loss, parameters))(x_batch, y_batch, x_meta, y_meta, task_probability_weights)
        if get_all_losses:
            return task_losses
        return np.mean(task_losses)

    def outer_training_loop(self, step_count: int, optimiser_state, x_batch: np.array, y_batch: np.array, x_meta: np.array, y_meta: np.array, task_probability_weights: np.array):
        """
        Outer loop of MAML algorithm, consists of multiple inner loops and a meta update step
        """
        # get parameters of current state of outer model
        parameters = self.get_params_from_optimiser(optimiser_state)

        # take derivative of inner loss term wrt outer model parameters (automatically wrt 'parameters' via jax.grad as 'parameters' is 1st arg of maml_loss)
        derivative_fn = jax.grad(self.batch_maml_loss)

        # evaluate derivative fn
        gradients = derivative_fn(parameters, x_batch, y_batch, x_meta, y_meta, task_probability_weights)

        # make step in outer model optimiser
        updated_optimiser = self.optimiser_update(step_count, gradients, optimiser_state)

        return updated_optimiser, parameters

    def fast_outer_training_loop(self):
        """
        jit accelerated outer loop method
        """
        return jit(self.outer_training_loop)  # expect: JIT301

    def train(self):
        """
        Training orchestration method, calls outer loop and validation methods
        """
        for step_count in range(self.start_iteration, self.start_iteration + self.training_iterations):
            print("Training Step: {}".format(step_count))

            batch_of_tasks, max_indices, task_probabilities = self._sample_task(batch_size=self.task_batch_size, step_count=step_count)

            if 'importance' in self.sample_type:
                standard_task_probabilities = (1. / onp.prod(self.priority_queue.get_queue().shape)) * onp.ones(self.task_batch_size) 
                task_importance_weights = standard_task_probabilities / task_probabilities
            else:
                task_importance_weights = None

            x_train, y_train = self._generate_batch(batch_of_tasks)
            x_meta, y_meta = self._generate_batch(batch_of_tasks)

            self.optimiser_state, parameters = self.fast_outer_training_loop()(step_count, self.optimiser_state, x_train, y_train, x_meta, y_meta, task_probability_weights=task_importance_weights)
            
            # get a validation loss (mostly for logging purposes)
            meta_loss = onp.asarray(self.batch_maml_loss(parameters, x_train, y_train, x_meta, y_meta, task_probability_weights=task_importance_weights, get_all_losses=True))
            
            if self.priority_sample:
                for t in range(len(meta_loss)):
                    self.priority_queue.insert(key=max_indices[t], data=meta_loss[t])

            self.writer.add_scalar('meta_metrics/meta_update_loss_mean', float(np.mean(meta_loss)), step_count)
            self.writer.add_scalar('meta_metrics/meta_update_loss_std', float(np.std(meta_loss)), step_count)

        net_params = self.get_params_from_optimiser(self.optimiser_state)


class SineMAML(MAML):

    def __init__(self, params, device):
        self.device = device
        self.task_type = params.get('task_type')

        # extract relevant task-specific parameters
        self.amplitude_bounds = params.get(['sin2d', 'amplitude_bounds'])
        self.domain_bounds = params.get(['sin2d', 'domain_bounds'])
        degree_phase_bounds = params.get(['sin2d', 'phase_bounds']) # phase given in degrees

        # convert phase bounds/ fixed_val_interval from degrees to radians
        self.phase_bounds = [
            degree_phase_bounds[0] * (2 * onp.pi) / 360, degree_phase_bounds[1] * (2 * onp.pi) / 360
            ]

        MAML.__init__(self, params)

    def _get_priority_queue(self):
        return _PriorityQueue(self.params.get(["priority_queue", "param_ranges_2d"]))

    def _get_model(self):

        layers = []

        # inner / hidden network layers + non-linearities
        for l in self.network_layers:
            layers.append(Dense(l))
            layers.append(Relu)

        # output layer (no non-linearity)
        layers.append(Dense(self.output_dimension))
        
        return stax.serial(*layers)
    
    def _get_optimiser(self):
        return optimizers.adam(step_size=self.meta_lr)

    def _sample_task(self, batch_size, plot=False, validate=False, step_count=None):
        tasks = []
        task_probabilities = []
        all_max_indices = [] if self.priority_sample else None

        for _ in range(batch_size):

            # sample a task from task distribution and generate x, y tensors for that task
            if self.priority_sample and not validate:

                # query queue for next task parameters
                max_indices, task_parameters, task_probability = self.priority_queue.query(step=step_count)
                all_max_indices.append(max_indices)
                task_probabilities.append(task_probability)

                # get task from parameters returned from query
                amplitude = task_parameters[0]
                phase = task_parameters[1]
                frequency_scaling = 1.
                task = self._get_task_from_params(amplitude=amplitude, phase=phase, frequency_scaling=frequency_scaling)

            else:
                
                # sample randomly (vanilla maml)
                amplitude = py_random.uniform(self.amplitude_bounds[0], self.amplitude_bounds[1])
                phase = py_random.uniform(self.phase_bounds[0], self.phase_bounds[1])
                frequency_scaling = 1.
                
                task = self._get_task_from_params(amplitude=amplitude, phase=phase, frequency_scaling=frequency_scaling)
                
            tasks.append(task)
    
        return tasks, all_max_indices, task_probabilities

    def _get_task_from_params(self, amplitude: float, phase: float, frequency_scaling: float=1.) -> Any:
        def modified_sin(x):
            return amplitude * onp.sin(phase + frequency_scaling * x)
        return modified_sin

    def _generate_batch(self, tasks: List, plot=False): # Change batch generation to be done in pure PyTorch
        x_batch = onp.stack([onp.random.uniform(low=self.domain_bounds[0], high=self.domain_bounds[1], size=(self.inner_update_k, 1)) for _ in range(len(tasks))])
        y_batch = onp.stack([[tasks[t](x) for x in x_batch[t]] for t in range(len(tasks))])

        return x_batch, y_batch

    def _compute_loss(self, parameters, inputs, ground_truth):
        predictions = self.network_forward(parameters, inputs)
        loss = np.mean((ground_truth - predictions) ** 2)
        return loss


def _config(sample_type, priority_sample):
    return _Params({
        "task_type": "sin2d", "training_iterations": 3, "task_batch_size": 4, "meta_lr": 0.01,
        "inner_update_k": 5, "inner_update_lr": 0.01, "num_inner_updates": 1, "validation_frequency": 500,
        "input_dimension": 1, "network_layers": [16, 16], "output_dimension": 1,
        "priority_sample": priority_sample,
        "sin2d": {"domain_bounds": [-5, 5], "amplitude_bounds": [0.1, 5], "phase_bounds": [0, 180]},
        "priority_queue": {"sample_type": sample_type, "param_ranges_2d": [[0.1, 5], [0, 180]]},
    })


if __name__ == "__main__":
    import logging
    import traceback

    compiles = []

    class _CompileLog(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("Compiling jit(outer_training_loop)"):
                compiles.append(record)

    logging.getLogger("jax").addHandler(_CompileLog())
    logging.getLogger("jax").setLevel(logging.WARNING)
    jax.config.update("jax_log_compiles", True)

    onp.random.seed(0)
    py_random.seed(0)

    # vanilla MAML (no importance weights): runs, but each step jits a fresh bound method
    SineMAML(_config(sample_type="max", priority_sample=False), device="cpu").train()
    # observed: line 156 three training steps with identical shapes compile outer_training_loop three times
    assert len(compiles) == 3, len(compiles)

    # pq_importance_maml_config: importance weights are an array, traced under jit/vmap
    model = SineMAML(_config(sample_type="importance_sample_under_pdf", priority_sample=True), device="cpu")
    try:
        model.train()
        raise SystemExit("expected TracerBoolConversionError")
    except jax.errors.TracerBoolConversionError:
        frames = [f for f in traceback.extract_tb(__import__("sys").exc_info()[2]) if f.filename == __file__]
        # observed: line 122 TracerBoolConversionError raised at `if task_probability_weights:`
        assert frames[-1].lineno == 122, frames[-1].lineno
    print("compiles:", len(compiles))
