# source: https://github.com/markusschmitt/vmc_jax/blob/4cfa47e2d255e2c4c09159c3529a47f01000f6e5/jVMC/stats.py
#   (jVMC's SampledObs, verbatim but for tangent_kernel (cut: it needs MPI's gather), before
#   commit e47ab3c "Removed unneccessary recompilations." (jVMC issue
#   https://github.com/markusschmitt/vmc_jax/issues/59, "Frequent recompilation in v1.2.0"),
#   which builds the pmapped helpers once, at module level. jVMC is not installed:
#   `global_defs` keeps the lines of jVMC/global_defs.py used here (pmap_for_my_devices and
#   pmap_devices_updated with its module-level `pmapDevices = None`, which nothing in
#   stats.py updates), and `mpi.global_sum` stands for jVMC.mpi_wrapper's with one process:
#   a sum over the device and batch axes. The __main__ block runs what a TDVP step does
#   with the gradients' statistics, twice, on fresh samples: SampledObs(observations,
#   weights), covar, covar_var, covar_data, transform and select)
# observed on jax 0.10.2 CPU: pmap_devices_updated() is always True, so jit_my_stuff (run by
#   __init__, covar, covar_var and covar_data) builds new pmapped lambdas on every call and
#   every instance: the second step compiles as often as the first, and each instance
#   holds its own helper functions.
# gap: per-call-recompile
import collections
from functools import partial
import types

import jax
import jax.numpy as jnp

# jVMC/global_defs.py at the same commit
myPmapDevices = jax.devices()  # [myDevice]
myDeviceCount = len(myPmapDevices)
pmap_for_my_devices = partial(jax.pmap, devices=myPmapDevices)

pmapDevices = None
def pmap_devices_updated():
    if collections.Counter(pmapDevices) == collections.Counter(myPmapDevices):
        return False
    return True


jVMC = types.SimpleNamespace(global_defs=types.SimpleNamespace(pmap_devices_updated=pmap_devices_updated))
mpi = types.SimpleNamespace(global_sum=lambda data: jnp.sum(data, axis=(0, 1)))  # one MPI process


class SampledObs():
    """This class implements the computation of statistics from Monte Carlo or exact samples.

    Initializer arguments:
        * ``observations``: Observations :math:`O_n` in the sample. The array must have a leading device \
            dimension plus a batch dimension.
        * ``weights``: Weights :math:`w_n` associated with observation :math:`O_n`.
    """

    def __init__(self, observations=None, weights=None):
        """Initializes SampledObs class.

        Args:
            * ``observations``: Observations :math:`O_n` in the sample. The array must have a leading device \
                dimension plus a batch dimension.
            * ``weights``: Weights :math:`w_n` associated with observation :math:`O_n`.
        """

        self.jit_my_stuff()

        if (observations is not None) and (weights is not None):
            if len(observations.shape) == 2:
                observations = observations[...,None]

            self._weights = weights
            self._mean = mpi.global_sum( self._mean_helper(observations,self._weights)[None,...] )
            self._data = self._data_prep(observations, self._weights, self._mean)
        else:
            self._weights = weights
            self._data = observations
            self._mean = None


    def mean(self):
        """Returns the mean.
        """

        return self._mean
    

    def covar(self, other=None):
        """Returns the covariance.

        Args:
            * ``other`` [optional]: Another instance of `SampledObs`.
        """

        self.jit_my_stuff()

        if other is None:
            other = self
        
        #return mpi.global_sum( self._covar_helper(self._data, other._data, self._weights)[None,...] )
        return mpi.global_sum( self._covar_helper(self._data, other._data)[None,...] )
    

    def var(self):
        """Returns the variance.
        """

        #return mpi.global_sum( self._mean_helper(jnp.abs(self._data)**2, self._weights)[None,...] )
        return mpi.global_sum( jnp.abs(self._data)**2 )
    

    def covar_data(self, other=None):
        """Returns the covariance.

        Args:
            * ``other`` [optional]: Another instance of `SampledObs`.
        """

        self.jit_my_stuff()

        if other is None:
            other = self

        #return SampledObs( self._covar_data_helper(self._data, other._data), self._weights )
        return SampledObs( self._covar_data_helper(self._data, other._data, self._weights), self._weights )
    

    def covar_var(self, other=None):
        """Returns the variance of the covariance.

        Args:
            * ``other`` [optional]: Another instance of `SampledObs`.
        """

        self.jit_my_stuff()

        if other is None:
            other = self
        
        return mpi.global_sum( self._covar_var_helper(self._data, other._data, self._weights)[None,...] ) \
                    - jnp.abs(self.covar(other))**2


    def transform(self, fun=lambda x: x):
        """Returns a `SampledObs` for the transformed data.

        Args:
            * ``fun``: A function.
        """

        #return SampledObs( self._trafo_helper(self._data, self._mean, fun), self._weights )
        return SampledObs( self._trafo_helper(self._data, self._weights, self._mean, fun), self._weights )


    def select(self, ixs):
        """Returns a `SampledObs` for the data selection indicated by the given indices.

        Args:
            * ``ixs``: Indices of selected data.
        """

        newObs = SampledObs()
        newObs._data = self._select_helper(ixs, self._data)
        newObs._mean = self._mean[ixs]
        newObs._weights = self._weights

        return newObs
    

    def jit_my_stuff(self):
        # This is a helper function to make sure that pmap'd functions work with the actual choice of devices
        # at all times.

        if jVMC.global_defs.pmap_devices_updated():
            self._mean_helper = pmap_for_my_devices(lambda data, w: jnp.tensordot(w, data, axes=(0,0)), in_axes=(0, 0))  # expect: JIT301
            self._data_prep = pmap_for_my_devices(lambda data, w, mean: jax.vmap(lambda d, w, m: jnp.sqrt(w) * (d - m), in_axes=(0,0,None))(data, w, mean), in_axes=(0, 0, None))  # expect: JIT301
            self._covar_helper = pmap_for_my_devices(  # expect: JIT301
                                    lambda data1, data2:
                                        jnp.tensordot(
                                            jnp.conj(data1),
                                            data2, axes=(0,0)), 
                                    in_axes=(0, 0)
                                    )
            self._covar_var_helper = pmap_for_my_devices(  # expect: JIT301
                                        lambda data1, data2, w: 
                                            jnp.sum(
                                                jnp.abs( 
                                                    jax.vmap(lambda a,b: jnp.outer(a,b))(jnp.conj(data1), data2),
                                                )**2 / w[...,None,None],
                                                axis=0),
                                        in_axes=(0, 0, 0)
                                        )
            self._covar_data_helper = pmap_for_my_devices(lambda data1, data2, w: jax.vmap(lambda a,b,w: jnp.outer(a,b) / w)(jnp.conj(data1), data2, w), in_axes=(0, 0, 0))  # expect: JIT301
            self._trafo_helper = pmap_for_my_devices(  # expect: JIT301
                                    lambda data, w, mean, f: f(
                                        jax.vmap(lambda x,y: x/jnp.sqrt(y), in_axes=(0,0))(data, w) 
                                        + mean
                                        ), 
                                    in_axes=(0, 0, None), static_broadcasted_argnums=(3,))
            self._select_helper = pmap_for_my_devices( lambda ix,g: jax.vmap(lambda ix,g: g[ix], in_axes=(None, 0))(ix,g), in_axes=(None, 0) )  # expect: JIT301


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    def square(x):
        return x ** 2

    def tdvp_statistics(key):
        # per-sample log-derivatives of 3 parameters on 16 samples, as a TDVP step has them
        grads = jax.random.normal(key, (len(myPmapDevices), 16, 3))
        weights = jnp.full((len(myPmapDevices), 16), 1.0 / 16)
        obs = SampledObs(grads, weights)
        S = obs.covar()
        var_S = obs.covar_var()
        data = obs.covar_data()
        sq = obs.transform(square)
        sub = obs.select(jnp.array([0, 2]))
        return obs, (S, var_S, data, sq, sub)

    key1, key2 = jax.random.split(jax.random.PRNGKey(0))
    obs1, _ = tdvp_statistics(key1)
    first = compiles.count("jit(_fun)")  # pmap compilations
    obs2, _ = tdvp_statistics(key2)
    second = compiles.count("jit(_fun)") - first
    print(first, second)
    # observed: line 167, line 168, line 169, line 176, line 185, line 186 and line 192
    #   build new pmapped lambdas per call and per instance: the second step recompiles
    #   them all (as many pmap compilations as the first step)
    assert second == first and second >= 7, (first, second)
    for attr in ["_mean_helper", "_data_prep", "_covar_helper", "_covar_var_helper",
                 "_covar_data_helper", "_trafo_helper", "_select_helper"]:
        assert getattr(obs1, attr) is not getattr(obs2, attr), attr
