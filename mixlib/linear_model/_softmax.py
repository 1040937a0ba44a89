"""Objective and gradient of multinomial logistic regression (linear-classification lecture).

:func:`softmax_objective` evaluates it once; :class:`SoftmaxLoss` evaluates it at every L-BFGS
step of :meth:`~mixlib.linear_model.LogisticRegression.fit`, with the products with ``X``
(:class:`DenseProducts` or :class:`SparseProducts`) built once for the fit.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

__all__ = [
    "COMPILED_MAX_CLASSES", "SPARSE_DENSITY", "DenseProducts", "SoftmaxLoss", "SparseProducts",
    "fit_products", "softmax_objective",
]


#: :meth:`~mixlib.linear_model.LogisticRegression.fit` computes the objective's two products
#: with ``X`` by :class:`SparseProducts` when at most this share of the entries of ``X`` is
#: non-zero (one-hot DNA: a quarter), by :class:`DenseProducts` otherwise. Splice's 2126 x 240
#: one-hot rows, three classes: about 0.4 ms per product by scipy's CSC product (0.25 ms
#: compiled, :data:`COMPILED_MAX_CLASSES`) against 0.7 ms (``X W^T``) and 0.4 ms (``R^T X``)
#: by dense BLAS, whose sums are not in the same order.
SPARSE_DENSITY = 1.0 / 3.0


def _csr_from_dense(A: np.ndarray) -> scipy.sparse.csr_array:
    """The C-ordered array ``A`` in compressed-row (CSR) form, with sorted indices.

    The same arrays as ``scipy.sparse.csr_array(A)`` (32-bit indices where they fit) in about
    a third of its time (3.1 against 8.7 ms of CPU for splice's 2126 x 241 rows): the
    non-zeros come from one pass over ``A`` and the row pointers from a binary search of their
    flat positions, where scipy goes through coordinates.
    """
    n_rows, n_columns = A.shape
    index_type = np.int32 if A.size <= np.iinfo(np.int32).max else np.int64
    flat = np.flatnonzero(A != 0)
    indptr = np.searchsorted(flat, np.arange(n_rows + 1) * n_columns).astype(index_type)
    row_starts = np.repeat(np.arange(0, A.size, n_columns), np.diff(indptr))
    indices = (flat - row_starts).astype(index_type)
    return scipy.sparse.csr_array((A.ravel()[flat], indices, indptr), shape=A.shape)


class DenseProducts:
    """The products of :func:`softmax_objective` with a dense ``X``, by BLAS.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    fit_intercept : bool
    """

    def __init__(self, X: np.ndarray, fit_intercept: bool) -> None:
        self.X = X
        self.fit_intercept = fit_intercept

    def scores(self, W: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``a_kn = w_k.x_n + b_k``, shape (n_classes, n_samples) (class-major)."""
        scores = np.ascontiguousarray((self.X @ W.T).T)
        if self.fit_intercept:
            scores += b[:, None]
        return scores

    def gradient_terms(self, residual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``sum_n r_kn x_n`` (n_classes, n_features) and ``sum_n r_kn`` (n_classes,), the
        second added row after row (empty without intercept), for class-major ``residual``.

        Both are computed on a sample-major copy of ``residual``, the layout BLAS and numpy's
        reduction were given before the scores were held class-major (same sums, same order).
        """
        sample_major = np.ascontiguousarray(residual.T)
        intercept_term = sample_major.sum(axis=0) if self.fit_intercept else np.empty(0)
        return sample_major.T @ self.X, intercept_term


#: :class:`SparseProducts` multiplies by its compiled loop
#: (:func:`mixlib.linear_model._sparse_loop.compressed_product`) up to this many classes, and
#: by scipy's CSC products above, with the same sums in the same order. Splice's one-hot rows
#: with the intercept column, per pair of products: 0.62 (2 classes) and 0.63 (3) of scipy's
#: time, 0.95 (4), 1.05 (5), 1.2-1.7 (8-26). Only a process that fits few classes on sparse
#: rows imports numba (about 0.5 s of CPU, 1.3 s more the first time, to compile).
COMPILED_MAX_CLASSES = 3


class SparseProducts:
    """The products of :func:`softmax_objective` with a sparse ``X``, the intercept as a last
    column of ones.

    ``X_1 = [X 1]`` is kept in compressed-row (CSR) and compressed-column (CSC) form, built
    once. Every entry of ``X_1 [W b]^T`` adds its terms by increasing column, so the intercept
    last; every entry of ``X_1^T R`` adds its terms by increasing row: the very sums
    ``X W^T + b`` and ``sum_n r_n`` of :class:`DenseProducts`, in the same order, with one
    product each instead of a product and a broadcast or a reduction. Up to
    :data:`COMPILED_MAX_CLASSES` classes a compiled loop computes them from the rows of the
    factor (``X_1`` by rows, ``X_1^T`` by the columns of ``X_1``); above, scipy scatters the
    columns of the factor (its CSC product, about twice as fast as its CSR one): the same
    sums either way.

    Parameters
    ----------
    X : ndarray or scipy sparse array of shape (n_samples, n_features)
    fit_intercept : bool
    n_classes : int
    """

    def __init__(self, X, fit_intercept: bool, n_classes: int) -> None:
        self.n_features = X.shape[1]
        self.fit_intercept = fit_intercept
        rows = _csr_with_ones(X) if fit_intercept else _csr(X)
        columns = rows.tocsc()
        # X_1 and X_1^T, each by rows (CSR) and by columns (CSC); transposes are views, but
        # scipy checks their arrays when it makes them, so once for the fit.
        self.design, self.design_T = (rows, columns), (columns.T, rows.T)
        self.compiled = None
        if n_classes <= COMPILED_MAX_CLASSES:
            from mixlib.linear_model._sparse_loop import compressed_product  # imports numba

            self.compiled = compressed_product

    def scores(self, W: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``a_kn = w_k.x_n + b_k``, shape (n_classes, n_samples) (class-major)."""
        coef = np.empty((self.design[0].shape[1], W.shape[0]))
        coef[: self.n_features] = W.T
        if self.fit_intercept:
            coef[self.n_features] = b
        return self._product(*self.design, coef)

    def gradient_terms(self, residual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``sum_n r_kn x_n`` (n_classes, n_features) and ``sum_n r_kn`` (n_classes,) (empty
        without intercept), both from one product with ``X_1^T``, for class-major ``residual``."""
        terms = self._product(*self.design_T, np.ascontiguousarray(residual.T))
        return terms[:, : self.n_features], terms[:, self.n_features:].ravel()

    def _product(self, by_rows, by_columns, block: np.ndarray) -> np.ndarray:
        """``(A block)^T`` (class-major) for ``A`` given in CSR (``by_rows``) and CSC
        (``by_columns``) form and ``block`` of shape (n_columns of A, n_classes)."""
        if self.compiled is None:
            return np.ascontiguousarray((by_columns @ block).T)
        out = np.empty((block.shape[1], by_rows.shape[0]))
        self.compiled(by_rows.indptr, by_rows.indices, by_rows.data, block, out)
        return out


def _csr(X) -> scipy.sparse.csr_array:
    """``X`` (dense or scipy sparse) in canonical CSR form: sorted indices, no duplicates."""
    if scipy.sparse.issparse(X):
        design = scipy.sparse.csr_array(X)
        design.sum_duplicates()
        return design
    return _csr_from_dense(np.ascontiguousarray(X))


def _csr_with_ones(X) -> scipy.sparse.csr_array:
    """``[X 1]`` (``X`` dense or scipy sparse) in CSR form with sorted indices."""
    if scipy.sparse.issparse(X):
        return _csr(scipy.sparse.hstack([X, np.ones((X.shape[0], 1))]))
    design = np.empty((X.shape[0], X.shape[1] + 1))
    design[:, :-1] = X
    design[:, -1] = 1.0
    return _csr_from_dense(design)


def fit_products(X: np.ndarray, fit_intercept: bool, n_classes: int):
    """The products of :meth:`LogisticRegression.fit`: :class:`SparseProducts` when at most
    :data:`SPARSE_DENSITY` of the entries of the dense ``X`` are non-zero, else
    :class:`DenseProducts`."""
    if X.size and np.count_nonzero(X) <= SPARSE_DENSITY * X.size:
        return SparseProducts(X, fit_intercept, n_classes)
    return DenseProducts(X, fit_intercept)


def _class_sum(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=0)`` of class-major ``a`` (n_classes, n_samples), bit for bit numpy's row
    sums of the sample-major ``a.T``: classes added in order below 8 classes (numpy's own
    order for a row of fewer than 8 entries), numpy's row sums of a sample-major copy from 8."""
    if a.shape[0] < 8:
        return a.sum(axis=0)
    return np.ascontiguousarray(a.T).sum(axis=1)


class SoftmaxLoss:
    """:func:`softmax_objective` on fixed data: the products with ``X`` built once for the fit.

    A call at ``params`` computes, with the scores held class-major (n_classes, n_samples) so
    that every elementwise step runs along the samples:

    - ``a_kn = w_k.x_n + b_k`` (``products.scores``);
    - ``A_n = max_k a_kn``, ``Z_n = sum_k exp(a_kn - A_n)``, ``logsumexp_k a_kn = A_n + log Z_n``;
    - ``E = (1/S) [ sum_n s_n (logsumexp_k a_kn - sum_k t_nk a_kn) + (1 / 2C) ||W||_F^2 ]``;
    - ``r_kn = s_n (exp(a_kn - A_n) / Z_n - t_nk)``, i.e. ``s_n (p(C_k | x_n) - t_nk)``;
    - ``dE/dW = (1/S) [ sum_n r_kn x_n + W / C ]`` and ``dE/db_k = (1/S) sum_n r_kn``
      (``products.gradient_terms``).

    Each step is the same floating-point operation, in the same order, as in the sample-major
    code it replaced, so L-BFGS follows the same path bit for bit.

    Parameters
    ----------
    products : DenseProducts or SparseProducts
    T : ndarray of shape (n_samples, n_classes)
    sample_weight : ndarray of shape (n_samples,)
    C : float
    fit_intercept : bool
    """

    def __init__(self, products, T: np.ndarray, sample_weight: np.ndarray, C: float,
                 fit_intercept: bool) -> None:
        self.products = products
        self.targets = np.ascontiguousarray(T.T)
        self.sample_weight = sample_weight
        self.total = sample_weight.sum()
        self.C = C
        self.fit_intercept = fit_intercept

    def __call__(self, params: np.ndarray) -> tuple[float, np.ndarray]:
        """Value and gradient at ``params`` (the layout of :func:`softmax_objective`)."""
        n_classes = self.targets.shape[0]
        n_weights = params.size - n_classes * int(self.fit_intercept)
        W = params[:n_weights].reshape(n_classes, -1)
        scores = self.products.scores(W, params[n_weights:])
        # Log-sum-exp trick of the lecture, written out so that the shifted exponentials are
        # reused for the probabilities of the gradient (one exp per score instead of two).
        shift = np.maximum.reduce(scores, axis=0)
        exp_scores = np.exp(scores - shift)
        norm = _class_sum(exp_scores)
        log_norm = shift + np.log(norm)
        value = self.sample_weight @ (log_norm - np.einsum("kn,kn->n", self.targets, scores))
        value = (value + 0.5 / self.C * np.einsum("kj,kj->", W, W)) / self.total
        residual = exp_scores / norm
        residual -= self.targets
        residual *= self.sample_weight
        data_term, intercept_term = self.products.gradient_terms(residual)
        gradient = np.empty_like(params)
        np.divide(data_term + W / self.C, self.total, out=gradient[:n_weights].reshape(W.shape))
        np.divide(intercept_term, self.total, out=gradient[n_weights:])
        return float(value), gradient


def softmax_objective(
    params: np.ndarray,
    X: np.ndarray | scipy.sparse.sparray | scipy.sparse.spmatrix,
    T: np.ndarray,
    sample_weight: np.ndarray,
    C: float,
    fit_intercept: bool,
) -> tuple[float, np.ndarray]:
    """Penalised negative log-likelihood of softmax regression and its gradient.

    Parameters
    ----------
    params : ndarray of shape (n_classes * (n_features + fit_intercept),)
        ``W`` (n_classes, n_features) raveled, followed by the intercepts ``b`` (n_classes,)
        when ``fit_intercept``.
    X : ndarray or scipy sparse array of shape (n_samples, n_features)
    T : ndarray of shape (n_samples, n_classes)
        One-of-K targets ``t_nk``.
    sample_weight : ndarray of shape (n_samples,)
        ``s_n``; the objective is divided by ``S = sum_n s_n``.
    C : float
        Inverse penalty strength.
    fit_intercept : bool

    Returns
    -------
    value : float
    gradient : ndarray, same shape as ``params``

    Notes
    -----
    With ``a_nk = w_k.x_n + b_k`` and ``lambda = 1 / C``,

    ``E(W, b) = (1/S) [ sum_n s_n (logsumexp_j a_nj - sum_k t_nk a_nk) + (lambda/2) ||W||_F^2 ]``

    (the intercepts are not penalised; ``logsumexp_j a_nj = A_n + log sum_j exp(a_nj - A_n)``
    with ``A_n = max_j a_nj``, so no exponential overflows), and, as in the lecture,

    ``dE/dw_k = (1/S) [ sum_n s_n (p(C_k | x_n) - t_nk) x_n + lambda w_k ]``,
    ``dE/db_k = (1/S) sum_n s_n (p(C_k | x_n) - t_nk)``.

    ``S E`` is scikit-learn's objective ``0.5 ||W||^2 + C sum_n s_n loss_n`` divided by ``C``,
    so both have the same minimiser for the same ``C``.

    Computed by :class:`SoftmaxLoss` (the steps are listed there), with dense BLAS for a dense
    ``X`` and scipy's sparse products for a sparse one.
    """
    if scipy.sparse.issparse(X):
        products = SparseProducts(X, fit_intercept, T.shape[1])
    else:
        products = DenseProducts(X, fit_intercept)
    return SoftmaxLoss(products, T, sample_weight, C, fit_intercept)(params)
