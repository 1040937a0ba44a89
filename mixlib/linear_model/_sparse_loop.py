"""The sparse products of :class:`mixlib.linear_model._softmax.SparseProducts`, compiled.

One compiled loop (numba) multiplies a matrix in compressed-row form by a dense block of one
to three columns (the scores or residuals of two or three classes). scipy's
``csr_matvecs``/``csc_matvecs`` run a loop over the block's columns for every stored entry and
read and write the result in memory; here the columns are unrolled and every entry of the
result is summed in a register. Each entry is the same sum as scipy's, term for term and in
the same order: ``0 + a_1 b_1 + a_2 b_2 + ...`` over the stored entries of its row in storage
order, every product rounded before it is added (numba compiles without fast-math flags, so
no fused multiply-add). Wider blocks go to scipy (:data:`COMPILED_MAX_CLASSES` of
:mod:`mixlib.linear_model._softmax`): four columns in registers were no faster than scipy.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def compressed_product(indptr, indices, data, block, out):
    """``out[c, r] = sum_p data[p] block[indices[p], c]`` over the stored entries ``p`` of row
    ``r`` in storage order, for ``A`` in compressed-row form: ``out = (A block)^T``.

    Parameters
    ----------
    indptr, indices : ndarray of int32 or int64
        Row pointers and column indices of ``A`` (n_rows, n_columns).
    data : ndarray of float64
    block : ndarray of shape (n_columns, 1 to 3), C-ordered
    out : ndarray of shape (block.shape[1], n_rows), written
    """
    width = block.shape[1]
    stride = np.uint64(width)
    flat = block.ravel()
    one, two = np.uint64(1), np.uint64(2)
    for r in range(len(indptr) - 1):
        s0 = s1 = s2 = 0.0
        # Unsigned positions: no wrap-around test for negative indices in the inner loops.
        if width == 3:
            for p in range(indptr[r], indptr[r + 1]):
                a, j = data[p], np.uint64(indices[p]) * stride
                s0 += a * flat[j]
                s1 += a * flat[j + one]
                s2 += a * flat[j + two]
            out[2, r] = s2
        elif width == 2:
            for p in range(indptr[r], indptr[r + 1]):
                a, j = data[p], np.uint64(indices[p]) * stride
                s0 += a * flat[j]
                s1 += a * flat[j + one]
        else:
            for p in range(indptr[r], indptr[r + 1]):
                s0 += data[p] * flat[np.uint64(indices[p])]
        out[0, r] = s0
        if width > 1:
            out[1, r] = s1
