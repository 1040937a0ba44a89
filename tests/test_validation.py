"""Tests of mixlib.core.validation's array check on sparse input, and of its import cost."""

import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse

from mixlib.core.validation import check_array
from mixlib.mixture import MixtureClassifier


@pytest.mark.parametrize("make", [scipy.sparse.csr_matrix, scipy.sparse.csc_array, scipy.sparse.coo_matrix])
def test_sparse_input_is_refused_by_name(make):
    X = make(np.eye(3))
    with pytest.raises(TypeError, match=r"^X is a sparse (csr|csc|coo) matrix"):
        check_array(X)
    with pytest.raises(TypeError, match="sparse"):
        MixtureClassifier(1).fit(X, [0, 1, 1])


def test_dense_input_passes_and_scipy_sparse_is_not_imported_for_it():
    """A pipeline job that never sees sparse input does not pay scipy.sparse's import."""
    code = ("import sys, numpy as np; from mixlib.core.validation import check_array; "
            "check_array(np.eye(2)); print('scipy.sparse' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_one_class_message_shows_the_label_as_the_user_wrote_it():
    from mixlib.core.validation import encode_labels

    for labels, shown in (([3, 3], "y holds one class (3);"), (["a", "a"], "y holds one class ('a');")):
        with pytest.raises(ValueError, match=re.escape(shown)):
            encode_labels(np.array(labels), min_classes=2)
