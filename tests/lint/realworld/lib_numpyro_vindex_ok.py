# source: https://github.com/pyro-ppl/numpyro/blob/0.22.0/numpyro/ops/indexing.py
#   (the module as installed with numpyro 0.22.0, without the license header and with the
#   long docstring of vindex shortened; the __main__ block indexes under jit with traced
#   index arrays, as the docstring's examples do eagerly)
# observed on jax 0.10.2 CPU: runs clean under jit: every Python test in vindex looks at
#   jnp.ndim of its arguments, isinstance, `is Ellipsis` or a slice, all Python values for
#   traced indices, and the traced indices only reach reshape and indexing.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


def _is_batched(arg):
    if isinstance(arg, slice) or arg is Ellipsis or arg is None:
        return False
    return jnp.ndim(arg) > 0


def vindex(tensor, args):
    """
    Vectorized advanced indexing with broadcasting semantics.
    """
    if not isinstance(args, tuple):
        return tensor[args]
    if not args:
        return tensor

    assert jnp.ndim(tensor) > 0
    # Compute event dim before and after indexing.
    if args[0] is Ellipsis:
        args = args[1:]
        if not args:
            return tensor
        old_event_dim = len(args)
        args = (slice(None),) * (jnp.ndim(tensor) - len(args)) + args
    else:
        args = args + (slice(None),) * (jnp.ndim(tensor) - len(args))
        old_event_dim = len(args)
    assert len(args) == jnp.ndim(tensor)
    if any(a is Ellipsis for a in args):
        raise NotImplementedError("Non-leading Ellipsis is not supported")

    # In simple cases, standard advanced indexing broadcasts correctly.
    is_standard = True
    if jnp.ndim(tensor) > old_event_dim and _is_batched(args[0]):
        is_standard = False
    elif any(_is_batched(a) for a in args[1:]):
        is_standard = False
    if is_standard:
        return tensor[args]

    # Convert args to use broadcasting semantics.
    new_event_dim = sum(isinstance(a, slice) for a in args[-old_event_dim:])
    new_dim = 0
    args = list(args)
    for i, arg in reversed(list(enumerate(args))):
        if isinstance(arg, slice):
            # Convert slices to arange()s.
            if arg != slice(None):
                raise NotImplementedError("Nontrivial slices are not supported")
            arg = jnp.arange(tensor.shape[i], dtype=jnp.int32)
            arg = arg.reshape((-1,) + (1,) * new_dim)
            new_dim += 1
        elif _is_batched(arg):
            # Reshape nontrivial tensors.
            arg = arg.reshape(arg.shape + (1,) * new_event_dim)
        args[i] = arg
    args = tuple(args)

    return tensor[args]


class Vindex:
    """
    Convenience wrapper around :func:`vindex`.

    The following are equivalent::

        Vindex(x)[..., i, j, :]
        vindex(x, (Ellipsis, i, j, slice(None)))

    :param jnp.ndarray tensor: A tensor to be indexed.
    :return: An object with a special :meth:`__getitem__` method.
    """

    def __init__(self, tensor):
        self._tensor = tensor

    def __getitem__(self, args):
        return vindex(self._tensor, args)


if __name__ == "__main__":
    x = jnp.arange(2 * 3 * 4 * 5).reshape((2, 3, 4, 5))
    i = jnp.array([0, 2])
    j = jnp.array([1, 3])
    f = jax.jit(lambda x, i, j: Vindex(x)[..., i, :, j])
    out = f(x, i, j)
    assert out.shape == (2, 4), out.shape
    assert int(out[1, 2]) == int(x[1, 2, 2, 3])
    g = jax.jit(lambda x, i: vindex(x, (i, slice(None))))
    assert g(x[0, 0], jnp.array(2)).shape == (5,)
