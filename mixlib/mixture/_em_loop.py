"""The EM iterations of :meth:`mixlib.mixture.IsotropicGaussianMixture.fit`, compiled.

One compiled loop (numba) runs every iteration of the isotropic mixture's EM until the mean
log-likelihood changes by less than ``tol`` or ``max_iter`` iterations are done. On the study's
small problems (a class of ~70 rows, 13 features, ``K`` up to 32) an iteration's arithmetic
is a few microseconds, and the ~25 numpy calls it took cost ~0.2 ms in per-call overhead;
compiled, the elementwise steps are plain loops. The two matrix products (the cross term of
the distances and the centres' numerator) stay in BLAS (``numpy.dot`` inside numba calls
scipy's BLAS ``dgemm``), so large problems (DNA: 1000 x 240, ``K = 64``) stay as fast.

Numerics: the operations of the numpy loop this replaces, in its order for every element
(``-2 x.mu`` by a scaling of the BLAS product, which is exact; the distances clipped at 0; the
log-sum-exp with the row maximum; responsibilities divided by their row sum). The sums over
rows and features are taken in sequence rather than numpy's pairwise order, so the results
agree with the numpy loop to round-off, not bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

from mixlib.core.log_space import EXP_ZERO_BELOW

_LOG_2PI = float(np.log(2.0 * np.pi))
# Added to every kernel's total responsibility, as scikit-learn does, so that a kernel that
# lost all its examples divides by a tiny positive number instead of zero.
NK_EPS = 10.0 * np.finfo(np.float64).eps


@numba.njit(cache=True)
def em_iterations(Xc, sample_weight, weighted, means, variances, weights, floor, tol,
                  max_iter):
    """Run EM on centred data until the mean log-likelihood converges or ``max_iter``.

    Parameters
    ----------
    Xc : ndarray of shape (n, d), float64, C-contiguous
        Training rows, centred on their weighted mean.
    sample_weight : ndarray of shape (n,)
        Positive weights ``w_n``.
    weighted : bool
        Whether the responsibilities are multiplied by ``w_n`` (False: all weights are 1,
        and the multiplication, exact, is skipped).
    means : ndarray of shape (K, d), C-contiguous
        Initial centres (centred coordinates); not modified.
    variances, weights : ndarray of shape (K,)
        Initial variances ``sigma_j^2`` and mixing weights ``p_j``; not modified.
    floor : float
        Variance floor: ``sigma_j^2 = max(sigma_j^2, floor)`` after every M-step.
    tol : float
        Stop when ``|L_t - L_{t-1}| < tol``.
    max_iter : int
        At most this many iterations (M-steps).

    Returns
    -------
    means, variances, weights : ndarray
        The parameters after the last M-step.
    lower_bounds : ndarray of shape (n_iter,)
        ``L_t = sum_n w_n ln p(x_n) / sum_n w_n`` of every E-step (before its M-step).
    converged : bool

    Notes
    -----
    One iteration, ``a_nj = ln p_j - (d/2) (ln 2 pi + ln sigma_j^2) - D_nj / (2 sigma_j^2)``
    with ``D_nj = max(||x_n||^2 - 2 x_n.mu_j + ||mu_j||^2, 0)``, ``m_n = max_j a_nj`` and
    ``s_n = sum_j exp(a_nj - m_n)``::

        ln p(x_n) = m_n + ln s_n,        r_nj = exp(a_nj - m_n) / s_n
        N_j = sum_n w_n r_nj + 10 eps,   mu_j' = sum_n w_n r_nj x_n / N_j
        sigma_j'^2 = max((sum_n w_n r_nj D_nj / N_j - ||mu_j' - mu_j||^2) / d, floor)
        p_j' = N_j / sum_j N_j
    """
    n, d = Xc.shape
    k = means.shape[0]
    half_d = 0.5 * d
    total_weight = 0.0
    X_sq = np.empty(n)  # ||x_n||^2
    for i in range(n):
        total_weight += sample_weight[i]
        total = 0.0
        for f in range(d):
            total += Xc[i, f] * Xc[i, f]
        X_sq[i] = total
    XcT = Xc.T
    means = means.copy()
    variances = variances.copy()
    weights = weights.copy()
    row_distances = np.empty(k)
    resp = np.empty((n, k))
    scale = np.empty(k)
    offset = np.empty(k)
    means_sq = np.empty(k)
    nk = np.empty(k)
    spread = np.empty(k)
    lower_bounds = np.empty(max_iter)
    previous = np.nan
    converged = False
    n_iter = 0
    while n_iter < max_iter:
        # E-step: squared distances, log densities, responsibilities, mean log-likelihood.
        cross = np.dot(Xc, means.T)
        for j in range(k):
            total = 0.0
            for f in range(d):
                total += means[j, f] * means[j, f]
            means_sq[j] = total
            scale[j] = -0.5 / variances[j]
            offset[j] = np.log(weights[j]) - half_d * (_LOG_2PI + np.log(variances[j]))
            nk[j] = 0.0
            spread[j] = 0.0
        bound = 0.0
        for i in range(n):
            row_max = -np.inf
            for j in range(k):
                distance = (cross[i, j] * -2.0 + X_sq[i]) + means_sq[j]
                if distance < 0.0:
                    distance = 0.0
                row_distances[j] = distance
                a = distance * scale[j] + offset[j]
                resp[i, j] = a
                if a > row_max:
                    row_max = a
            total = 0.0
            for j in range(k):
                x = resp[i, j] - row_max
                e = np.exp(x) if x > EXP_ZERO_BELOW else 0.0
                resp[i, j] = e
                total += e
            bound += sample_weight[i] * (np.log(total) + row_max)
            for j in range(k):
                r = resp[i, j] / total
                if weighted:
                    r *= sample_weight[i]
                resp[i, j] = r
                nk[j] += r
                spread[j] += r * row_distances[j]
        bound /= total_weight
        lower_bounds[n_iter] = bound
        n_iter += 1
        # M-step on the weighted responsibilities w_n r_nj.
        numerator = np.dot(XcT, resp)  # (d, K): the same GEMM as resp.T @ Xc
        nk_total = 0.0
        for j in range(k):
            nk[j] += NK_EPS
            nk_total += nk[j]
        for j in range(k):
            shift_sq = 0.0
            for f in range(d):
                centre = numerator[f, j] / nk[j]
                shift = centre - means[j, f]
                shift_sq += shift * shift
                means[j, f] = centre
            variance = (spread[j] / nk[j] - shift_sq) / d
            variances[j] = variance if variance > floor else floor
            weights[j] = nk[j] / nk_total
        if abs(bound - previous) < tol:
            converged = True
            break
        previous = bound
    return means, variances, weights, lower_bounds[:n_iter].copy(), converged

