# source: https://github.com/jax-ml/jax/issues/18910
# observed on jax 0.10.2 CPU: jax.jit(f) only mutates a flattened copy of cpt, but under jax.grad(f) the caller's own cpt is mutated and cpt.c is left holding a LinearizeTracer
# gap: stale-state-attributes
# (added: imports of jax.numpy, the inputs _2s/_3s/_4s (the thread does not show them; small float arrays), and the __main__ block; the thread's repr helper is kept)
# observed: line 23 set_c stores a traced value on self; after gf(.5, _4s, cpt) the caller's cpt.c is a leaked tracer
import jax
import jax.numpy as jnp


class CPT:

    __slots__ = (
        'a',
        'b',
        'c'
    )

    def __init__(self, *, a, b):
        self.a = a
        self.b = b

    def set_c(self, e, t=None):
        self.c = self.a * self.b * e  # expect: JIT202
        return t

    def get_d(self, t=None):
        return self.c*2 + 1

    def flatten(self):
        return ((self.a, self.b), (['a', 'b'],))

    @classmethod
    def unflatten(cls, aux, vals):
        return cls(
            **dict(zip(aux[0], vals))
        )

    def __repr__(self):
        return (
            f'{self.__class__}'
            f'[a={self.a}, b={self.b}, '
            f'c={getattr(self, "c", None)}]'
        )

jax.tree_util.register_pytree_node(
    CPT, CPT.flatten, CPT.unflatten
)


def f(x, e, cpt):
    """A convoluted function I could refer to if necessary."""
    e = e.at[1:2].set(x)
    t = cpt.set_c(e, jax.lax.create_token())  # Instead of None
    d = cpt.get_d(t)
    return d.sum()

jf   = jax.jit(f)
gf   = jax.grad(f)


if __name__ == "__main__":
    _2s = jnp.full((3,), 2.)
    _3s = jnp.full((3,), 3.)
    _4s = jnp.full((3,), 4.)

    cpt = CPT(a=_2s, b=_3s)
    print(jf(.5, _4s, cpt))
    print("after jf, cpt.c:", getattr(cpt, "c", None))

    cpt = CPT(a=_2s, b=_3s)
    print(gf(.5, _4s, cpt))
    leaked = isinstance(cpt.c, jax.core.Tracer)
    print("after gf, cpt.c is a tracer:", leaked, type(cpt.c).__name__)
    assert leaked
