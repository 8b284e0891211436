# source: https://github.com/dpiras/cosmopower-jax/blob/fd8e277a4ddedba5f5a13b20437609b2ab9a787f/cosmopower_jax/cosmopower_jax.py (the fix of https://github.com/dpiras/cosmopower-jax/pull/17 for https://github.com/dpiras/cosmopower-jax/issues/9)
# observed on jax 0.10.2 CPU: runs clean: the jitted prediction stacks the parameter dict's values with jnp.stack, which takes the traced values
# gap: other
# __init__ is a stand-in: the original loads a pickled pre-trained network; here a small random network of the same layout
# (weights, hyper_params, training means/stds, parameter names) is built instead. Only the 'cmb_tt' (log) path is kept.
# the docstrings of _predict and predict and the 'mpk_nonlin' branch of predict are left out; the rest of those methods is as committed
# inputs in __main__ are np.array values as in the project README (with the fix, plain Python lists as in the issue no longer stack)
import numpy as np
import jax
import jax.numpy as jnp
from jax.nn import sigmoid


class CosmoPowerJAX:
    def __init__(self, probe, n_modes=8, n_hidden=(16, 16), parameters=(
            'omega_b', 'omega_cdm', 'h', 'tau_reio', 'n_s', 'ln10^{10}A_s')):
        # stand-in for loading the pickled pre-trained model
        self.probe = probe
        self.log = True
        rng = np.random.default_rng(0)
        sizes = [len(parameters)] + list(n_hidden) + [n_modes]
        self.weights = [(jnp.asarray(rng.normal(size=(o, i)) * 0.1), jnp.asarray(rng.normal(size=(o,)) * 0.1))
                        for i, o in zip(sizes[:-1], sizes[1:])]
        self.hyper_params = [(jnp.ones(o), jnp.full(o, 0.5)) for o in sizes[1:-1]]
        self.param_train_mean = jnp.asarray([0.022, 0.12, 0.67, 0.054, 0.965, 3.04])
        self.param_train_std = jnp.asarray([0.002, 0.01, 0.05, 0.01, 0.01, 0.1])
        self.feature_train_mean = jnp.zeros(n_modes)
        self.feature_train_std = jnp.ones(n_modes)
        self.n_parameters = len(parameters)
        self.parameters = list(parameters)
        self.modes = np.arange(2, 2 + n_modes)

    def _dict_to_ordered_arr_np(self,
                               input_dict,
                               ):
        """
        Sort input parameters. Takend verbatim from CP 
        (https://github.com/alessiospuriomancini/cosmopower/blob/main/cosmopower/cosmopower_NN.py#LL291C1-L308C73)

        Parameters:
            input_dict (dict [numpy.ndarray]):
                input dict of (arrays of) parameters to be sorted

        Returns:
            numpy.ndarray:
                parameters sorted according to desired order
        """
        if self.parameters is not None:
            return jnp.stack([input_dict[k] for k in self.parameters], axis=1)
        else:
            return jnp.stack([input_dict[k] for k in input_dict], axis=1)

    def _activation(self, x, a, b):
        """Non-linear activation function. Based on the original CosmoPower paper, Eq. A1.
        x is the input of each layer, while a and b are the trainable hyper-parameters. 
        These correspond to beta and gamma in Eq. A1 in https://arxiv.org/pdf/2106.03846v2.pdf.
        """
        return jnp.multiply(jnp.add(b, jnp.multiply(sigmoid(jnp.multiply(a, x)), jnp.subtract(1., b))), x)

    def _predict(self, weights, hyper_params, param_train_mean, param_train_std,
                 feature_train_mean, feature_train_std, input_vec):
        act = []
        # Standardise
        layer_out = [(input_vec - param_train_mean)/param_train_std]

        # Loop over layers
        for i in range(len(weights[:-1])):
            w, b = weights[i]
            alpha, beta = hyper_params[i]
            act.append(jnp.dot(layer_out[-1], w.T) + b)
            layer_out.append(self._activation(act[-1], alpha, beta))

        # Final layer prediction (no activations)
        w, b = weights[-1]
        if self.probe == 'custom_log' or self.probe == 'custom_pca':
            # in original CP models, we assumed a full final bias vector...
            preds = jnp.dot(layer_out[-1], w.T) + b
        else:   
            # ... unlike in cpjax, where we used only a single bias vector
            preds = jnp.dot(layer_out[-1], w.T) + b[-1]

        # Undo the standardisation
        preds = preds * feature_train_std + feature_train_mean
        if self.log == True:
            preds = 10**preds
        else:
            preds = (preds@self.pca_matrix)*self.training_std + self.training_mean
            if self.probe == 'cmb_pp':
                preds = 10**preds
        predictions = preds.squeeze()
        return predictions
    
    def predict(self, input_vec):
        # convert dict to array, if needed
        if isinstance(input_vec, dict):
            input_vec = self._dict_to_ordered_arr_np(input_vec)  
   
        if len(input_vec.shape) == 1:
            input_vec = input_vec.reshape(-1, self.n_parameters)
        assert len(input_vec.shape) == 2
        predictions = self._predict(self.weights, self.hyper_params, self.param_train_mean, 
                                    self.param_train_std, self.feature_train_mean, self.feature_train_std,
                                    input_vec)
        return predictions


if __name__ == "__main__":
    tt_emulator = CosmoPowerJAX(probe='cmb_tt')
    true_params = {
        "h": np.array([0.67]),
        "ln10^{10}A_s": np.array([3.44]),
        "omega_b": np.array([0.02237]),
        "omega_cdm": np.array([0.1200]),
        "n_s": np.array([0.9649]),
        "tau_reio": np.array([0.0544]),
    }
    tt_cl = tt_emulator.predict(true_params)
    assert tt_cl.shape == (8,)

    def model(omega_cdm, omega_b, logA, h, n_s, tau):
        params = {"omega_cdm": jnp.atleast_1d(omega_cdm), "omega_b": jnp.atleast_1d(omega_b),
                  "ln10^{10}A_s": jnp.atleast_1d(logA), "h": jnp.atleast_1d(h),
                  "n_s": jnp.atleast_1d(n_s), "tau_reio": jnp.atleast_1d(tau)}
        return tt_emulator.predict(params)

    args = (0.12, 0.02237, 3.44, 0.67, 0.9649, 0.0544)
    out = jax.jit(model)(*args)
    assert jnp.allclose(out, tt_cl, rtol=1e-5)
    g = jax.grad(lambda *a: model(*a).sum(), argnums=(0, 1, 2, 3, 4, 5))(*args)
    assert all(jnp.isfinite(x) for x in g)
    tt_emulator.parameters = None
    out2 = jax.jit(model)(*args)
    assert out2.shape == (8,)
    print("ok", out[:3])
