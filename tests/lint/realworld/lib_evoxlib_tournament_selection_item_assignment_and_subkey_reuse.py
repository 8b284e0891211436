# source: https://github.com/EMI-Group/evox/blob/06e729aabdc9270d6179a5f835c0fd11b56914cd/evoxlib/operators/selection/tournament.py
# observed on jax 0.10.2 CPU: evoxlib's jit_class jits TournamentSelection.__call__ with self
#   static; tracing it raises TypeError at `possibilities[0] = 1` (JAX arrays are immutable;
#   the commit, "change for-loop to cumprod", replaced `possibilities[i] *= temp` with this
#   line). The weighted draw that follows hands `subkey` to jax.random.choice a second time,
#   after it already drew the candidates (not reached: the line above raises, and as posted
#   the call also passes `key=` twice). The operator was later rewritten (618f5243, "a more
#   generic TournamentSelection") to one draw and a tournament_func.
# gap: other
# added: a stand-in `exl` namespace: jit_method, default_cond_fun, _class_decorator and
#   jit_class are evoxlib/core/module.py's at that commit; Operator (a plain base class here;
#   evoxlib's Module metaclass wraps methods to route sub-states) and State (a small
#   registered pytree with attribute access) are stand-ins; the __main__ block. Removed: the unused `from turtle import pos` is a comment (turtle needs Tk).
import types

import jax
import jax.numpy as jnp


def jit_method(method):
    """Decorator for methods, wrapper the method with jax.jit, and set self as static argument."""
    return jax.jit(
        method,
        static_argnums=[
            0,
        ],
    )


def default_cond_fun(name):
    if name == "__call__":
        return True

    if name.startswith("_"):
        return False

    if name in ["init", "setup"]:
        return False

    return True


def _class_decorator(cls, wrapper, cond_fun=default_cond_fun):
    for attr_name in dir(cls):
        func = getattr(cls, attr_name)
        if callable(func) and cond_fun(attr_name):
            wrapped = wrapper(func)
            setattr(cls, attr_name, wrapped)
    return cls


def jit_class(cls, cond_fun=default_cond_fun):
    return _class_decorator(cls, jit_method, cond_fun)


@jax.tree_util.register_pytree_node_class
class State:
    # stand-in for evoxlib.core.state.State
    def __init__(self, **kwargs):
        self.__dict__["_data"] = dict(kwargs)

    def __getattr__(self, name):
        return self._data[name]

    def tree_flatten(self):
        names = sorted(self._data)
        return [self._data[n] for n in names], names

    @classmethod
    def tree_unflatten(cls, names, children):
        return cls(**dict(zip(names, children)))


class Operator:
    # stand-in for evoxlib.core.operator.Operator
    def __call__(self, state, pop):
        pass


exl = types.SimpleNamespace(jit_class=jit_class, Operator=Operator, State=State)


# from turtle import pos
import jax
import jax.numpy as jnp


@exl.jit_class
class TournamentSelection(exl.Operator):
    def __init__(self, p, k):
        self.p = p
        self.k = k

    def setup(self, key):
        return exl.State(key=key)

    def __call__(self, state, x, fitness):
        key, subkey = jax.random.split(state.key)
        # randomly select k individuals to form candidates
        chosen = jax.random.choice(subkey, x.shape[0], shape=(self.k,))
        candidates = x[chosen,:]
        candidates_fitness = fitness[chosen]
        # sort candidates
        order = jnp.argsort(candidates_fitness)[::-1]
        candidates = candidates[order]

        possibilities = jnp.full((self.k, ), 1 - self.p)
        possibilities[0] = 1  # expect: JIT501
        possibilities = jnp.cumprod(possibilities) * self.p

        # select an individual from k candidates by possibilities
        chosen = jax.random.choice(subkey, self.k, key=possibilities, shape=(1,))  # expect: JIT502
        return exl.State(key=key), candidates[chosen, :]


if __name__ == "__main__":
    import traceback

    key = jax.random.PRNGKey(0)
    x = jax.random.normal(jax.random.PRNGKey(1), (20, 3))
    fitness = jnp.sum(x ** 2, axis=1)
    selection = TournamentSelection(p=0.5, k=4)
    state = selection.setup(key)
    try:
        selection(state, x, fitness)
        raise AssertionError("no error")
    except TypeError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        # observed: line 108 raises TypeError under jit: item assignment on the traced jnp.full array
        assert frames[-1].lineno == 108, frames[-1].lineno
    # observed: line 112 draws again from `subkey`, which the candidate draw already consumed (not reached: line 108 raises first)
