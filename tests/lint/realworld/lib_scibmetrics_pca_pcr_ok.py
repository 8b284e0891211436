# source: https://github.com/YosefLab/scib-metrics/blob/96cb2c07c00114e88ab316c1f10988c53f68d508/src/scib_metrics/utils/_pcr.py
# observed on jax 0.10.2 CPU: runs clean: principal_component_regression one-hot encodes the
#   batch covariate outside jit, calls the jitted _pca (SVD, sign flip through a Python-bool
#   branch on a default argument, variance from the static X.shape[0]) and the jitted _pcr
#   (least squares), and converts the result with float() outside jit; the scores of a
#   batch-confounded and a batch-free embedding come out high and near zero.
# gap: exemption-vs-JAX
# added: imports; NdArray (scib_metrics._types) as a stand-in alias; the code of
#   scib_metrics/utils/_pca.py (_SVDResult, _PCAResult, _svd_flip, pca, _pca) at the same
#   commit, and get_ndarray and one_hot from scib_metrics/utils/_utils.py, in place of the
#   package imports; `pd.Categorical(covariate).codes` replaced by np.unique's inverse
#   indices (pandas is not installed); the __main__ block with its synthetic cells.
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
from chex import dataclass
from jax import jit, nn

NdArray = np.ndarray | jax.Array  # stand-in for scib_metrics._types.NdArray


def get_ndarray(x) -> np.ndarray:  # from scib_metrics/utils/_utils.py
    """Convert Jax device array to Numpy array."""
    return np.array(jax.device_get(x))


def one_hot(y: NdArray, n_classes: Optional[int] = None) -> jnp.ndarray:  # from scib_metrics/utils/_utils.py
    """One-hot encode an array. Wrapper around :func:`~jax.nn.one_hot`."""
    n_classes = n_classes or int(jax.device_get(jnp.max(y))) + 1
    return nn.one_hot(jnp.ravel(y), n_classes)

@dataclass
class _SVDResult:
    """SVD result.

    Attributes
    ----------
    u
        Array of shape (n_cells, n_components) containing the left singular vectors.
    s
        Array of shape (n_components,) containing the singular values.
    v
        Array of shape (n_components, n_features) containing the right singular vectors.
    """

    u: NdArray
    s: NdArray
    v: NdArray


@dataclass
class _PCAResult:
    """PCA result.

    Attributes
    ----------
    coordinates
        Array of shape (n_cells, n_components) containing the PCA coordinates.
    components
        Array of shape (n_components, n_features) containing the PCA components.
    variance
        Array of shape (n_components,) containing the explained variance of each PC.
    variance_ratio
        Array of shape (n_components,) containing the explained variance ratio of each PC.
    svd
        Dataclass containing the SVD data.
    """

    coordinates: NdArray
    components: NdArray
    variance: NdArray
    variance_ratio: NdArray
    svd: Optional[_SVDResult] = None


def _svd_flip(
    u: NdArray,
    v: NdArray,
    u_based_decision: bool = True,
):
    """Sign correction to ensure deterministic output from SVD.

    Jax implementation of :func:`~sklearn.utils.extmath.svd_flip`.

    Parameters
    ----------
    u
        Left singular vectors of shape (M, K).
    v
        Right singular vectors of shape (K, N).
    u_based_decision
        If True, use the columns of u as the basis for sign flipping.
    """
    if u_based_decision:
        max_abs_cols = jnp.argmax(jnp.abs(u), axis=0)
        signs = jnp.sign(u[max_abs_cols, jnp.arange(u.shape[1])])
    else:
        max_abs_rows = jnp.argmax(jnp.abs(v), axis=1)
        signs = jnp.sign(v[jnp.arange(v.shape[0]), max_abs_rows])
    u_ = u * signs
    v_ = v * signs[:, None]
    return u_, v_


def pca(
    X: NdArray,
    n_components: Optional[int] = None,
    return_svd: bool = False,
) -> _PCAResult:
    """Principal component analysis (PCA).

    Parameters
    ----------
    X
        Array of shape (n_cells, n_features).
    n_components
        Number of components to keep. If None, all components are kept.
    return_svd
        If True, also return the results from SVD.

    Returns
    -------
    results: _PCAData
    """
    max_components = min(X.shape)
    if n_components and n_components > max_components:
        raise ValueError(f"n_components = {n_components} must be <= min(n_cells, n_features) = {max_components}")
    n_components = n_components or max_components

    u, s, v, variance, variance_ratio = _pca(X)

    # Select n_components
    coordinates = u[:, :n_components] * s[:n_components]
    components = v[:n_components]
    variance_ = variance[:n_components]
    variance_ratio_ = variance_ratio[:n_components]

    results = _PCAResult(
        coordinates=get_ndarray(coordinates),
        components=get_ndarray(components),
        variance=get_ndarray(variance_),
        variance_ratio=get_ndarray(variance_ratio_),
        svd=_SVDResult(u=get_ndarray(u), s=get_ndarray(s), v=get_ndarray(v)) if return_svd else None,
    )
    return results


@jit
def _pca(
    X: NdArray,
) -> tuple[NdArray, NdArray, NdArray, NdArray, NdArray]:
    """Principal component analysis.

    Parameters
    ----------
    X
        Array of shape (n_cells, n_features).

    Returns
    -------
    u: NdArray
        Left singular vectors of shape (M, K).
    s: NdArray
        Singular values of shape (K,).
    v: NdArray
        Right singular vectors of shape (K, N).
    variance: NdArray
        Array of shape (K,) containing the explained variance of each PC.
    variance_ratio: NdArray
        Array of shape (K,) containing the explained variance ratio of each PC.
    """
    X_ = X - jnp.mean(X, axis=0)
    u, s, v = jnp.linalg.svd(X_, full_matrices=False)
    u, v = _svd_flip(u, v)

    variance = (s**2) / (X.shape[0] - 1)
    total_variance = jnp.sum(variance)
    variance_ratio = variance / total_variance

    return u, s, v, variance, variance_ratio



def principal_component_regression(
    X: NdArray,
    covariate: NdArray,
    categorical: bool = False,
    n_components: Optional[int] = None,
) -> float:
    """Principal component regression (PCR) :cite:p:`buttner2018`.

    Parameters
    ----------
    X
        Array of shape (n_cells, n_features).
    covariate
        Array of shape (n_cells,) or (n_cells, 1) representing batch/covariate values.
    categorical
        If True, batch will be treated as categorical and one-hot encoded.
    n_components:
        Number of components to compute, passed into :func:`~scib_metrics.utils.pca`.
        If None, all components are used.

    Returns
    -------
    pcr: float
        Principal component regression using the first n_components principal components.
    """
    if len(X.shape) != 2:
        raise ValueError("Dimension mismatch: X must be 2-dimensional.")
    if X.shape[0] != covariate.shape[0]:
        raise ValueError("Dimension mismatch: X and batch must have the same number of samples.")
    if categorical:
        covariate = np.unique(np.asarray(covariate), return_inverse=True)[1]  # pd.Categorical(covariate).codes
    else:
        covariate = np.asarray(covariate)

    covariate = one_hot(covariate) if categorical else covariate.reshape((covariate.shape[0], 1))

    pca_results = pca(X, n_components=n_components)

    # Center inputs for no intercept
    covariate = covariate - jnp.mean(covariate, axis=0)
    pcr = _pcr(pca_results.coordinates, covariate, pca_results.variance)
    return float(pcr)


@jit
def _pcr(
    X_pca: NdArray,
    covariate: NdArray,
    var: NdArray,
) -> NdArray:
    """Principal component regression.

    Parameters
    ----------
    X_pca
        Array of shape (n_cells, n_components) containing PCA coordinates. Must be standardized.
    covariate
        Array of shape (n_cells, 1) or (n_cells, n_classes) containing batch/covariate values. Must be standardized
        if not categorical (one-hot).
    var
        Array of shape (n_components,) containing the explained variance of each PC.
    """
    residual_sum = jnp.linalg.lstsq(covariate, X_pca)[1]
    total_sum = jnp.sum((X_pca - jnp.mean(X_pca, axis=0, keepdims=True)) ** 2, axis=0)
    r2 = jnp.maximum(0, 1 - residual_sum / total_sum)

    return jnp.dot(jnp.ravel(r2), var) / jnp.sum(var)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n_cells, n_genes = 200, 30
    batch = np.repeat(np.array(["a", "b"]), n_cells // 2)
    X_free = rng.normal(size=(n_cells, n_genes)).astype(np.float32)
    X_batch = X_free.copy()
    X_batch[batch == "b", :] += 5.0
    high = principal_component_regression(X_batch, batch, categorical=True, n_components=10)
    low = principal_component_regression(X_free, batch, categorical=True, n_components=10)
    assert high > 0.5 and low < 0.1, (high, low)
    cont = principal_component_regression(X_batch, (batch == "b").astype(np.float32))
    assert cont > 0.5
