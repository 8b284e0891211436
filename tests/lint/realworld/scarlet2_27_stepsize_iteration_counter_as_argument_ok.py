# source: https://github.com/pmelchior/scarlet2/blob/c79f8f225ffea5c61746379ca9dd24baf8413b7a/scarlet2/scene.py
#   (pull request https://github.com/pmelchior/scarlet2/pull/27, "Update to iteration dependent
#   stepsize": "Current version of iteration dependence does not change the iteration number
#   when scene._make_step is jitted. This update makes the iteration number a parameter of
#   scene._make_step and solves the problem with jitting." The accepted fix of
#   scarlet2_24_stepsize_iteration_counter_closed_over_under_filter_jit.py)
# observed on jax 0.10.2 CPU: runs clean: `it = jnp.array(0)` is passed to the
#   `eqx.filter_jit` of `_make_step` and on to `optim.update(..., [model, it])`, so it is a
#   traced argument; `update_fn` unpacks it from `params`, and the jitted fit ends at the same
#   parameters as the same fit run under `jax.disable_jit()`. Kept: `fit` and `_make_step` as
#   they are, `_constraint_replace`, and `rgetattr` from scarlet2/module.py. Added
#   (stand-ins): a one-parameter `Scene` with the `get_parameters`/`parameters`/
#   `filter_spec`/`replace` that `fit` uses, in place of scarlet2's Module/Frame/source
#   machinery; an observation with a Gaussian `log_likelihood`; the step-size function of the
#   PR #24 thread with the one-cycle schedule of pull request #29 and scarlet2's
#   `relative_step`; the __main__ block.
# gap: stale-state-attributes
import functools

import equinox as eqx
import jax
import jax.numpy as jnp
import optax


# recursively finding attributes:
# from https://stackoverflow.com/a/31174427
# with modification to unpack a list with an attribute counter
def rgetattr(obj, attr, *args):
    def _getattr(obj, attr):
        if not isinstance(obj, (list, tuple)):
            return getattr(obj, attr, *args)
        return obj.__getitem__(int(attr))

    return functools.reduce(_getattr, [obj] + attr.split('.'))


def relative_step(x, *args, factor=0.1, minimum=1e-6):
    """Step size set at `factor` times the norm of `x`

    As step size functions have the signature (array, int) -> float, *args captures, 
    and then ignores, the iteration counter.
    """
    return jnp.maximum(minimum, factor * jnp.linalg.norm(x))


schedule = optax.cosine_onecycle_schedule(
    transition_steps=20,
    peak_value=1,
    pct_start=0.5,
    div_factor=10,
    final_div_factor=.1)
my_step = lambda p, it: relative_step(p, factor=2e-3) * schedule(jnp.asarray(it))


class Observation:  # stand-in
    def __init__(self, data):
        self.data = data

    def log_likelihood(self, pred):
        return -0.5 * jnp.sum((pred - self.data) ** 2)


class Scene(eqx.Module):  # stand-in for scarlet2's Scene(Module)
    x: jax.Array
    filter_spec = None

    def __call__(self):
        return self.x

    def get_parameters(self, return_info=False):
        info = {"stepsize": my_step, "constraint": None, "prior": None}
        if return_info:
            return {"x": (self.x, info)}
        return {"x": self.x}

    @property
    def parameters(self):
        return self.get_parameters()

    def replace(self, names, values):
        return self  # no constrained parameters in this stand-in

    def fit(self, observations, max_iter=100, e_rel=1e-4, progress_bar=True, callback=None, **kwargs):
        # optax fit with adam optimizer
        # Transforms constrained parameters into unconstrained ones
        # and filters out fixed parameters
        # TODO: check alternative optimizers
        try:
            import tqdm
            import optax
            import optax._src.base as base
            from numpyro.distributions.transforms import biject_to
        except ImportError:
            raise ImportError("scarlet2.Scene.fit() requires optax and numpyro.")

        # dealing with multiple observations
        if not isinstance(observations, (list, tuple)):
            observations = (observations,)
        else:
            observations = observations

        # get step sizes for each parameter
        parameters = self.get_parameters(return_info=True)
        stepsizes = {name: info["stepsize"] for name, (p, info) in parameters.items()}
        # make a stepsize tree
        where = lambda model: tuple(rgetattr(model, n) for n in stepsizes.keys())
        replace = tuple(stepsizes.values())
        steps = eqx.tree_at(where, self, replace=replace)
        it = jnp.array(0)

        def scale_by_stepsize() -> base.GradientTransformation:
            # adapted from optax.scale_by_param_block_norm()
            def init_fn(params):
                del params
                return base.EmptyState()

            def update_fn(updates, state, params):
                params,it = params
                if params is None:
                    raise ValueError(base.NO_PARAMS_MSG)
                updates = jax.tree_util.tree_map(
                    # lambda u, step, param: -step * u if not callable(step) else -step(param,niter) * u,
                    lambda u, s, p: -s * u if not callable(s) else -s(p, it) * u,
                    # minus because we want gradient descent
                    updates, steps, params)
                return updates, state

            return base.GradientTransformation(init_fn, update_fn)

        # run adam, followed by stepsize adjustments
        optim = optax.chain(
            optax.scale_by_adam(**kwargs),
            scale_by_stepsize(),
        )

        # transform to unconstrained parameters
        constraint_fn = {name: biject_to(info["constraint"]) for name, (value, info) in parameters.items() if
                         info["constraint"] is not None}
        scene = _constraint_replace(self, constraint_fn, inv=True)

        # get optimizer initialized with the filtered (=non-fixed) parameters
        filter_spec = self.filter_spec
        if filter_spec is None:
            opt_state = optim.init(scene)
        else:
            opt_state = optim.init(eqx.filter(scene, filter_spec))

        with tqdm.trange(max_iter, disable=not progress_bar) as t:
            for step in t:
                # optimizer step
                scene_, loss, opt_state = _make_step(scene, observations, optim, opt_state, it, filter_spec=filter_spec,
                                                     constraint_fn=constraint_fn)
                # Log the loss in the tqdm progress bar
                t.set_postfix(loss=f"{loss:08.2f}")

                # report current iteration results to callback
                if callback is not None:
                    callback(scene_, loss)

                # terminate optimization if all parameter change less than e_rel
                if e_rel is not None:
                    crit = lambda x, x_: jnp.linalg.norm(x - x_) < e_rel * jnp.linalg.norm(x_)
                    converged = tuple(
                        crit(p, p_) for (p, p_) in zip(scene.parameters.values(), scene_.parameters.values()))
                    if all(converged):
                        break

                scene = scene_
                it += 1
        return _constraint_replace(scene_, constraint_fn)  # transform back to constrained variables


def _constraint_replace(self, constraint_fn, inv=False):
    # replace any parameter with constraints into unconstrained ones by calling constraint_fn
    # return transformed pytree
    parameters = self.get_parameters(return_info=True)
    names = tuple(name
                  for name, (value, info) in parameters.items()
                  if info["constraint"] is not None
                  )
    transform = lambda value, fn: fn(value)
    inv_transform = lambda value, fn: fn.inv(value)
    transform = (transform, inv_transform)
    values = tuple(transform[inv](value, constraint_fn[name])
                   for name, (value, info) in parameters.items()
                   if info["constraint"] is not None
                   )
    return self.replace(names, values)


# update step for optax optimizer
@eqx.filter_jit
def _make_step(model, observations, optim, opt_state, it, filter_spec=None, constraint_fn=None):

    def loss_fn(model):
        if constraint_fn is not None:
            # parameters now obey constraints
            model = _constraint_replace(model, constraint_fn)

        pred = model()
        parameters = model.get_parameters(return_info=True)
        log_like = sum(obs.log_likelihood(pred) for obs in observations)
        log_prior = sum(info["prior"].log_prob(p)
                        for name, (p, info) in parameters.items()
                        if info["prior"] is not None
                        )
        return -(log_like + log_prior)

    if filter_spec is None:
        loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
    else:
        @eqx.filter_value_and_grad
        def filtered_loss_fn(diff_model, static_model):
            model = eqx.combine(diff_model, static_model)
            return loss_fn(model)

        diff_model, static_model = eqx.partition(model, filter_spec)
        loss, grads = filtered_loss_fn(diff_model, static_model)

    updates, opt_state = optim.update(grads, opt_state, [model,it])
    model_ = eqx.apply_updates(model, updates)
    return model_, loss, opt_state


if __name__ == "__main__":
    obs = Observation(jnp.full(3, 5.0))
    scene = Scene(jnp.ones(3))
    fitted = scene.fit(obs, max_iter=20, e_rel=None, progress_bar=False)
    with jax.disable_jit():
        fitted_eager = scene.fit(obs, max_iter=20, e_rel=None, progress_bar=False)
    assert jnp.allclose(fitted.x, fitted_eager.x, rtol=1e-5)
    print(fitted.x, fitted_eager.x)
