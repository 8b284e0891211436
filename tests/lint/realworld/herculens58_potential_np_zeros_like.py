# source: https://github.com/Herculens/herculens/blob/55b6b5093efdde814a38b87459524743b15bb873/herculens/MassModel/mass_model.py
#   (MassModel.potential before commit 7ab3ff3 "Make MassModel.potential JAX-compatible",
#   reported in https://github.com/Herculens/herculens/issues/58)
# observed on jax 0.10.2 CPU: under jax.jit, `np.zeros_like(x)` is given the traced x and
#   raises TracerArrayConversionError. Added: imports, stand-ins for the MassModel class
#   (func_list, _bool_list) and for one mass profile, and the __main__ block.
# gap: types
import numpy as np
import jax.numpy as jnp
import jax


class SIS:
    """Stand-in for a herculens mass profile (singular isothermal sphere)."""

    def function(self, x, y, theta_E, center_x=0., center_y=0.):
        return theta_E * jnp.sqrt((x - center_x)**2 + (y - center_y)**2)


class MassModel:
    """Stand-in for herculens' MassModel: only what `potential` uses."""

    def __init__(self, func_list):
        self.func_list = func_list
        self._num_func = len(func_list)

    def _bool_list(self, k):
        # stand-in for util.convert_bool_list(n=self._num_func, k=k) with k=None
        return [True] * self._num_func

    def potential(self, x, y, kwargs, k=None):
        """
        lensing potential
        :param x: x-position (preferentially arcsec)
        :type x: numpy array
        :param y: y-position (preferentially arcsec)
        :type y: numpy array
        :param kwargs: list of keyword arguments of lens model parameters matching the lens model classes
        :param k: only evaluate the k-th lens model
        :return: lensing potential in units of arcsec^2
        """
        # x = np.array(x, dtype=float)
        # y = np.array(y, dtype=float)
        if isinstance(k, int):
            return self.func_list[k].function(x, y, **kwargs[k])
        bool_list = self._bool_list(k)
        potential = np.zeros_like(x)  # expect: JIT402
        for i, func in enumerate(self.func_list):
            if bool_list[i] is True:
                potential += func.function(x, y, **kwargs[i])
        return potential


if __name__ == "__main__":
    model = MassModel([SIS()])
    kwargs = [{"theta_E": 1.2}]
    x = jnp.linspace(-1., 1., 5)
    y = jnp.zeros(5)
    print(jax.jit(lambda x, y: model.potential(x, y, kwargs))(x, y))
