# source: https://github.com/codymlewis/viceroy/blob/3f726ca60ee8a975140a5a6a575351bf0e603e47/fl/utils/functions.py
#   (viceroy, a JAX federated-learning simulation of the Viceroy aggregator paper: the tree
#   utilities, whose noise functions take a NumPy Generator as a static argument, with
#   their callers fl/adversaries/freerider.py (the free-rider client's update, which passes
#   rng=self.rng) and fl/adversaries/mouther.py (the bad-mouthing gradient transform, which
#   leaves rng at its default))
# observed on jax 0.10.2 CPU: the Generator is static, so rng.uniform and rng.normal run only
#   while jit traces the function, and their draws are compiled in as constants: the
#   "random" free rider sends the same gradient in every round, and every bad-mouthing
#   adversary adds the same noise to the victim's gradient.
# gap: other
# added: jax.tree_map (removed from JAX) spelled jax.tree_util.tree_map; a namespace standing
#   in for the package path fl.utils.functions (the three modules are one file here); an
#   optax.sgd client object for the free rider to convert; the __main__ block, which runs
#   three rounds of the random free rider and one bad-mouthing round with three adversaries.
import types
import sys

"""
General utility library
"""

from functools import partial

import jax
import numpy as np


def chain(funclist, x):
    """Chain a list of function together and return their composition upon x"""
    for f in funclist:
        x = f(x)
    return x

@partial(jax.jit, static_argnums=(1, 2, 3,))
def tree_uniform(tree, low=0.0, high=1.0, rng=np.random.default_rng()):
    """Create an equivalently shaped tree with random number elements in the range [low, high)"""
    return jax.tree_util.tree_map(lambda x: rng.uniform(low=low, high=high, size=x.shape), tree)  # expect: JIT204


@partial(jax.jit, static_argnums=(1, 2, 3,))
def tree_add_normal(tree, loc=0.0, scale=1.0, rng=np.random.default_rng()):
    """Add normally distributed noise to each element of the tree, (mu=loc, sigma=scale)"""
    return jax.tree_util.tree_map(lambda x: x + rng.normal(loc=loc, scale=scale, size=x.shape), tree)  # expect: JIT204


@jax.jit
def tree_mul(tree, scale):
    """Multiply the elements of a pytree by the value of scale"""
    return jax.tree_util.tree_map(lambda x: x * scale, tree)


@jax.jit
def tree_add(*trees):
    """Element-wise add any number of pytrees"""
    return jax.tree_util.tree_map(lambda *xs: sum(xs), *trees)


fl = types.SimpleNamespace(utils=types.SimpleNamespace(functions=sys.modules[__name__]))


"""
Federated learning free rider attack proposed in https://arxiv.org/abs/1911.12560
"""


def convert(client, attack_type, params, rng=np.random.default_rng()):
    """
    Convert an endpoint into a free rider adversary.

    Arguments:
    - client: the endpoint to convert
    - attack_type: the attack type to use, options are "random", "delta, and "advanced delta"
    - params: the parameters of the starting model
    - rng: the random number generator to use
    """
    client.attack_type = attack_type
    client.prev_params = params
    client.rng = rng
    client.update = update(client.opt).__get__(client)


def update(opt):
    """Free rider update function for endpoints."""
    def _apply(self, params, opt_state, X, y):
        if self.attack_type == "random":
            grads = fl.utils.functions.tree_uniform(params, low=-10e-3, high=10e-3, rng=self.rng)
        else:
            grads = fl.utils.functions.tree_add(params, fl.utils.functions.tree_mul(self.prev_params, -1))
            if "advanced" in self.attack_type:
                grads = fl.utils.functions.tree_add_normal(grads, loc=0.0, scale=10e-4, rng=self.rng)
        updates, opt_state = opt.update(grads, opt_state, params)
        self.prev_params = params
        return grads, opt_state, updates
    return _apply


"""
The bad and good mouthing attacks for federated learning.
"""


class GradientTransform:
    """
    Gradient transformation that copies the gradient of the victim client to the adversaries.
    """
    def __init__(self, num_adversaries, victim, attack_type):
        """
        Construct the gradient transformation.

        Arguments:
        - num_adversaries: the number of adversaries
        - victim: the index of the victim client
        - attack_type: the attack type to use, options are "bad" and "good" for the bad and good mouthing attacks respectively
        """
        self.num_adv = num_adversaries
        self.victim = victim
        self.attack_type = attack_type
        
    def __call__(self, all_grads):
        """Copy victim gradient to all adversaries, negate the adversary gradients if bad mouthing."""
        grad = all_grads[self.victim]
        if "bad" in self.attack_type:
            grad = fl.utils.functions.tree_mul(grad, -1)
        all_grads[-self.num_adv:] = [
            fl.utils.functions.tree_add_normal(grad, loc=0.0, scale=10e-4) for _ in range(self.num_adv)
        ]
        return all_grads


if __name__ == "__main__":
    import jax.numpy as jnp
    import optax

    params = {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}
    opt = optax.sgd(0.1)
    client = types.SimpleNamespace(opt=opt)
    convert(client, "random", params, rng=np.random.default_rng(42))

    opt_state = opt.init(params)
    X, y = jnp.ones((4, 3)), jnp.zeros(4)
    rounds = []
    for _ in range(3):
        grads, opt_state, updates = client.update(params, opt_state, X, y)  # tolerate: JIT204
        rounds.append(grads)
    # observed: line 38 gives the free rider the same uniform "gradient" in every round
    assert all(bool(jnp.all(g["w"] == rounds[0]["w"])) for g in rounds[1:])
    assert not bool(jnp.all(rounds[0]["w"] == rounds[0]["w"][0, 0]))

    victim_grad = {"w": jnp.full((3, 2), 0.5), "b": jnp.ones(2)}
    honest = {"w": jnp.zeros((3, 2)), "b": jnp.zeros(2)}
    all_grads = GradientTransform(3, 0, "bad")([victim_grad, honest, honest, honest, honest])
    # observed: line 44 adds the same noise to the victim's negated gradient for every adversary
    assert all(bool(jnp.all(g["w"] == all_grads[-3]["w"])) for g in all_grads[-2:])
    assert not bool(jnp.all(all_grads[-1]["w"] == -0.5))
