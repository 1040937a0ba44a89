"""CART's cost-complexity pruning: the weakest-link sequence and the pruned trees
against scikit-learn's ``cost_complexity_pruning_path`` and ``ccp_alpha``, the
one-standard-error rule, and the estimator's contract."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkTree

from mixlib.tree import CARTClassifier, DecisionTreeClassifier
from mixlib.tree._growth import TreeArrays
from mixlib.tree.pruning import cost_complexity_path, node_risks, prune, pruned_leaves
from tests.test_tree import compare_with_sklearn, tie_free_problem


def arrays_of(sk: SkTree) -> TreeArrays:
    """scikit-learn's fitted tree as our flat arrays (its depth-first ids kept: children
    come after their parent, all the pruning code needs)."""
    t = sk.tree_
    leaf = t.children_left < 0
    depth = np.zeros(t.node_count, dtype=np.intp)
    for node in range(t.node_count):
        if not leaf[node]:
            depth[[t.children_left[node], t.children_right[node]]] = depth[node] + 1
    return TreeArrays(feature=np.where(leaf, -1, t.feature).astype(np.intp),
                      threshold=np.where(leaf, np.nan, t.threshold),
                      left=t.children_left.astype(np.intp), right=t.children_right.astype(np.intp),
                      value=t.value[:, 0, :], impurity=t.impurity.copy(),
                      n_node_samples=t.n_node_samples.copy(),
                      weighted_n_node_samples=t.weighted_n_node_samples.copy(), depth=depth)


def same_tree(a: TreeArrays, b: TreeArrays) -> bool:
    """Same splits (feature, threshold) and same leaves, walked from both roots."""
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if (a.left[i] < 0) != (b.left[j] < 0):
            return False
        if a.left[i] < 0:
            continue
        if a.feature[i] != b.feature[j] or a.threshold[i] != b.threshold[j]:
            return False
        stack += [(a.left[i], b.left[j]), (a.right[i], b.right[j])]
    return True


def distinct(alphas: np.ndarray, impurities: np.ndarray):
    """scikit-learn prunes tied weakest links one at a time, repeating their alpha: keep each
    alpha once, with the impurity after its last repetition."""
    new = np.r_[True, np.diff(alphas) > 1e-12 * np.maximum(alphas[1:], 1e-300)]
    last = np.r_[np.flatnonzero(new)[1:] - 1, len(alphas) - 1]
    return alphas[new], impurities[last]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_alpha_sequence_and_risks_are_scikit_learns(seed, criterion):
    X, y, _ = tie_free_problem(seed)
    sk = SkTree(criterion=criterion, random_state=0).fit(X, y)
    reference = sk.cost_complexity_pruning_path(X, y)
    alphas, impurities = distinct(reference.ccp_alphas, reference.impurities)
    path = cost_complexity_path(arrays_of(sk), risk="impurity")
    assert len(path.ccp_alphas) > 20
    np.testing.assert_allclose(path.ccp_alphas, alphas, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(path.risks, impurities, rtol=1e-10, atol=1e-15)
    assert path.n_leaves[-1] == 1 and np.all(np.diff(path.n_leaves) < 0)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_pruned_tree_for_an_alpha_is_scikit_learns(seed, criterion):
    X, y, _ = tie_free_problem(seed)
    sk = SkTree(criterion=criterion, random_state=0).fit(X, y)
    tree = arrays_of(sk)
    path = cost_complexity_path(tree, risk="impurity")
    # between two consecutive alphas (at an alpha itself both ends are optimal)
    for alpha in np.sqrt(path.ccp_alphas[1:] * path.ccp_alphas[:-1]):
        reference = SkTree(criterion=criterion, random_state=0, ccp_alpha=alpha).fit(X, y)
        pruned = prune(tree, path, alpha)
        assert same_tree(pruned, arrays_of(reference))
        assert pruned.n_leaves == reference.get_n_leaves()
        leaves = pruned_leaves(path, tree, X, alpha)
        np.testing.assert_array_equal(tree.value[leaves], pruned.value[pruned.apply(X)])


def test_our_grown_tree_pruned_end_to_end_equals_scikit_learns():
    X, y, _ = tie_free_problem(2, n=400, n_classes=3)  # no tied split with leaves of >= 10
    ours = DecisionTreeClassifier(min_samples_leaf=10).fit(X, y)
    sk = SkTree(min_samples_leaf=10, random_state=0).fit(X, y)
    assert compare_with_sklearn(ours, sk)[1] == 0  # the same grown tree
    reference = sk.cost_complexity_pruning_path(X, y)
    alphas, _ = distinct(reference.ccp_alphas, reference.impurities)
    cart = CARTClassifier(risk="impurity", min_samples_leaf=10, ccp_alpha=0.0).fit(X, y)
    np.testing.assert_allclose(cart.ccp_alphas_, alphas, rtol=1e-10, atol=1e-15)
    for alpha in np.sqrt(alphas[1:] * alphas[:-1]):
        cart.set_params(ccp_alpha=alpha).fit(X, y)
        reference = SkTree(min_samples_leaf=10, random_state=0, ccp_alpha=alpha).fit(X, y)
        assert same_tree(cart.tree_, arrays_of(reference))
        np.testing.assert_array_equal(cart.predict(X), reference.predict(X))


def subtree_costs(tree: TreeArrays, r: np.ndarray, alpha: float) -> float:
    """min over pruned subtrees of sum_leaves R + alpha |leaves|, by dynamic programming."""
    def best(node):
        stay = r[node] + alpha
        if tree.left[node] < 0:
            return stay
        return min(stay, best(tree.left[node]) + best(tree.right[node]))
    return best(0)


@pytest.mark.parametrize("risk", ["misclassification", "impurity"])
def test_each_subtree_minimises_the_cost_complexity_on_its_interval(risk):
    """Breiman's theorem, checked by brute force: T_k minimises R(T) + alpha |T| over all
    pruned subtrees for alpha in [alpha_k, alpha_{k+1}), and no smaller subtree does."""
    X, y, _ = tie_free_problem(3, n=200)
    tree = DecisionTreeClassifier().fit(X, y).tree_
    path = cost_complexity_path(tree, risk)
    r = node_risks(tree, risk)
    ends = np.append(path.ccp_alphas[1:], path.ccp_alphas[-1] * 2 + 1e-3)
    for k, (low, high) in enumerate(zip(path.ccp_alphas, ends)):
        for alpha in (low, 0.5 * (low + high)):
            pruned = prune(tree, path, alpha)
            leaves = pruned.left < 0
            own = node_risks(pruned, risk)[leaves].sum() * pruned.weighted_n_node_samples[0] \
                / tree.weighted_n_node_samples[0] + alpha * leaves.sum()
            np.testing.assert_allclose(own, subtree_costs(tree, r, alpha), rtol=1e-9, atol=1e-12)
            assert pruned.n_leaves == path.n_leaves[k]


def test_one_standard_error_rule_picks_the_smallest_tree_within_one_se():
    X, y, _ = tie_free_problem(5, n=500)
    cart = CARTClassifier(random_state=0).fit(X, y)
    errors, se = cart.cv_errors_, cart.cv_standard_errors_
    best = np.argmin(errors)
    chosen = np.flatnonzero(cart.ccp_alphas_ == cart.ccp_alpha_)[0]
    assert errors[chosen] <= errors[best] + se[best] + 1e-12
    assert np.all(errors[chosen + 1:] > errors[best] + se[best])
    assert cart.get_n_leaves() == cart.n_leaves_path_[chosen]
    minimum = CARTClassifier(random_state=0, se_rule=0.0).fit(X, y)
    assert minimum.get_n_leaves() >= cart.get_n_leaves()
    assert minimum.ccp_alpha_ == cart.ccp_alphas_[best]


def test_cross_validation_is_deterministic_and_seeded():
    X, y, _ = tie_free_problem(1, n=300)
    a = CARTClassifier(random_state=3).fit(X, y)
    b = CARTClassifier(random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.cv_errors_, b.cv_errors_)
    assert a.ccp_alpha_ == b.ccp_alpha_
    c = CARTClassifier(random_state=4).fit(X, y)
    assert not np.array_equal(a.cv_errors_, c.cv_errors_)


def test_pruning_beats_the_unpruned_tree_on_noisy_labels():
    X, y, rng = tie_free_problem(2, n=1200, n_classes=2)
    flip = rng.random(len(y)) < 0.2
    y_noisy = np.where(flip, 1 - y, y)
    train, test = np.arange(600), np.arange(600, 1200)
    cart = CARTClassifier(random_state=0).fit(X[train], y_noisy[train])
    full = DecisionTreeClassifier().fit(X[train], y_noisy[train])
    assert cart.get_n_leaves() < full.get_n_leaves() / 5
    assert np.mean(cart.predict(X[test]) != y[test]) < np.mean(full.predict(X[test]) != y[test])


@pytest.mark.parametrize("params, match", [
    ({"risk": "error"}, "risk"), ({"n_folds": 1}, "n_folds"), ({"se_rule": -1.0}, "se_rule"),
    ({"ccp_alpha": -0.1}, "ccp_alpha"), ({"criterion": "log_loss"}, "criterion"),
])
def test_invalid_parameters_are_named(params, match):
    X, y, _ = tie_free_problem(0, n=50)
    with pytest.raises(ValueError, match=match):
        CARTClassifier(**params).fit(X, y)


def test_scikit_learn_meta_estimators_accept_cart():
    from sklearn.model_selection import cross_val_score

    X, y, _ = tie_free_problem(0, n=150)
    scores = cross_val_score(CARTClassifier(random_state=0), X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.4)


def test_registry_has_cart_and_the_unpruned_tree():
    from mixlib.catalogue.registry import MODELS, make_model, model_spec

    assert isinstance(make_model("cart", {"n_folds": 5}, 0), CARTClassifier)
    assert MODELS["tree_unpruned"].parameters["max_depth"] == "DecisionTreeClassifier"
    with pytest.raises(ValueError, match="unknown model 'tree'"):
        model_spec("tree")



def test_one_sample_is_refused_in_the_users_terms():
    with pytest.raises(ValueError, match=r"CARTClassifier has 1 sample .* cross-validation on the "
                                         r"training rows \(up to n_folds=10 folds\), which needs "
                                         r"at least 2 samples\. .* set ccp_alpha"):
        CARTClassifier().fit([[1.0]], [0])
    # a fixed pruning level needs no cross-validation
    assert CARTClassifier(ccp_alpha=0.0).fit([[1.0]], [0]).predict([[2.0]]).tolist() == [0]
