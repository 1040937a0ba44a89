"""ID3: the tennis example of the supervised-learning notes, information gain, fallbacks, raw splice bases."""

import numpy as np
import pytest

from mixlib.core.exceptions import NotFittedError
from mixlib.tree.id3 import ID3Classifier, information_gain
from mixlib.tree.decision_tree import DecisionTreeClassifier

# Seed 002, example 5 (Quinlan's table). The seed's copy stops after 13 rows; the 14th row is
# the classic one (Rain, Mild, High, Strong -> No).
TENNIS = np.array(
    [
        ["Soleil", "Chaud", "Elevee", "Faible", "Non"],
        ["Soleil", "Chaud", "Elevee", "Fort", "Non"],
        ["Nuages", "Chaud", "Elevee", "Faible", "Oui"],
        ["Pluie", "Moyen", "Elevee", "Faible", "Oui"],
        ["Pluie", "Frais", "Normale", "Faible", "Oui"],
        ["Pluie", "Frais", "Normale", "Fort", "Non"],
        ["Nuages", "Frais", "Normale", "Fort", "Oui"],
        ["Soleil", "Moyen", "Elevee", "Faible", "Non"],
        ["Soleil", "Frais", "Normale", "Faible", "Oui"],
        ["Pluie", "Moyen", "Normale", "Faible", "Oui"],
        ["Soleil", "Moyen", "Normale", "Fort", "Oui"],
        ["Nuages", "Moyen", "Elevee", "Fort", "Oui"],
        ["Nuages", "Chaud", "Normale", "Faible", "Oui"],
        ["Pluie", "Moyen", "Elevee", "Fort", "Non"],
    ]
)
CIEL, TEMPERATURE, HUMIDITE, VENT = range(4)


def fit_tennis():
    return ID3Classifier().fit(TENNIS[:, :4], TENNIS[:, 4])


def child(model, node, feature, value):
    a = int(np.flatnonzero(model.categories_[feature] == value)[0])
    return int(model.children_[node, a])


def test_tennis_tree_is_the_notes_tree():
    model = fit_tennis()
    assert model.feature_[0] == CIEL
    soleil, nuages, pluie = (child(model, 0, CIEL, v) for v in ("Soleil", "Nuages", "Pluie"))
    assert model.feature_[soleil] == HUMIDITE
    assert model.feature_[pluie] == VENT
    assert model.feature_[nuages] == -1  # overcast: always played
    leaves = {
        (soleil, HUMIDITE, "Elevee"): "Non",
        (soleil, HUMIDITE, "Normale"): "Oui",
        (pluie, VENT, "Fort"): "Non",
        (pluie, VENT, "Faible"): "Oui",
    }
    for (node, feature, value), label in leaves.items():
        leaf = child(model, node, feature, value)
        assert model.feature_[leaf] == -1
        assert model.classes_[np.argmax(model.value_[leaf])] == label
    assert model.predict(TENNIS[:, :4]).tolist() == TENNIS[:, 4].tolist()
    assert model.feature_.shape[0] == 8  # root, 3 outlook children, 2 + 2 leaves


def test_tennis_root_gains_by_hand():
    # H(S) with 9 Oui / 5 Non; e.g. G(Ciel) = H(S) - 5/14 H(2,3) - 4/14 H(4,0) - 5/14 H(3,2).
    def H(*c):
        p = np.array(c, float) / sum(c)
        p = p[p > 0]
        return -(p * np.log2(p)).sum()

    hs = H(9, 5)
    expected = [
        hs - 5 / 14 * H(2, 3) - 4 / 14 * H(4, 0) - 5 / 14 * H(3, 2),  # Ciel  ~0.2467
        hs - 4 / 14 * H(2, 2) - 6 / 14 * H(4, 2) - 4 / 14 * H(3, 1),  # Temp  ~0.0292
        hs - 7 / 14 * H(3, 4) - 7 / 14 * H(6, 1),  # Humidite ~0.1518
        hs - 8 / 14 * H(6, 2) - 6 / 14 * H(3, 3),  # Vent ~0.0481
    ]
    X, y = TENNIS[:, :4], TENNIS[:, 4]
    classes = np.unique(y)
    table = np.zeros((4, 3, 2))
    for j in range(4):
        for a, value in enumerate(np.unique(X[:, j])):
            for k, c in enumerate(classes):
                table[j, a, k] = np.sum((X[:, j] == value) & (y == c))
    np.testing.assert_allclose(information_gain(table), expected, rtol=1e-12)
    np.testing.assert_allclose(expected, [0.2467, 0.0292, 0.1518, 0.0481], atol=5e-4)


def test_unseen_category_falls_back_to_node_majority():
    model = fit_tennis()
    rows = np.array(
        [
            ["Brouillard", "Chaud", "Elevee", "Faible"],  # unseen outlook: root majority
            ["Soleil", "Chaud", "Moyenne", "Faible"],  # unseen humidity: sunny majority
            ["Pluie", "Chaud", "Elevee", "Tempete"],  # unseen wind: rain majority
        ]
    )
    # Root: 9 Oui / 5 Non; Soleil: 2 Oui / 3 Non; Pluie: 3 Oui / 2 Non.
    assert model.predict(rows).tolist() == ["Oui", "Non", "Oui"]
    np.testing.assert_allclose(model.predict_proba(rows)[1], [3 / 5, 2 / 5])


def test_seed_13_rows_give_the_same_tree():
    model = ID3Classifier().fit(TENNIS[:13, :4], TENNIS[:13, 4])
    assert model.feature_[0] == CIEL
    assert model.feature_[child(model, 0, CIEL, "Soleil")] == HUMIDITE
    assert model.feature_[child(model, 0, CIEL, "Pluie")] == VENT


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_features_match_entropy_tree(seed):
    # On 0/1 features a multi-way split is a binary split and the gain is the entropy
    # decrease, so ID3 grows the same tree as the entropy CART tree stopped at zero gain
    # (to depth 3: deeper, small nodes have exact ties between features, which the two
    # computations may break differently by rounding).
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(400, 8)).astype(float)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + (rng.random(400) < 0.2) > 1).astype(int)
    id3 = ID3Classifier(max_depth=3).fit(X, y)
    cart = DecisionTreeClassifier(
        criterion="entropy", max_depth=3, min_impurity_decrease=1e-9
    ).fit(X, y)
    grid = np.array(np.meshgrid(*[[0.0, 1.0]] * 8)).reshape(8, -1).T
    np.testing.assert_array_equal(id3.predict(grid), cart.predict(grid))
    assert id3.feature_.shape[0] == cart.tree_.n_nodes


def test_raw_splice_bases():
    from mixlib.datasets import load_bundled

    raw = load_bundled("splice")
    X = np.array([list(s) for s in raw["sequence"]])
    y = raw["class"].to_numpy()
    assert X.shape == (3190, 60) and set(np.unique(X)) >= {"A", "C", "G", "T"}
    perm = np.random.default_rng(0).permutation(len(y))
    train, test = perm[:2000], perm[2000:]
    model = ID3Classifier(max_depth=6).fit(X[train], y[train])
    error = np.mean(model.predict(X[test]) != y[test])
    majority = 1 - np.mean(y[test] == "N")
    assert error < 0.5 * majority  # far better than the majority class
    assert model.feature_[0] in range(25, 35)  # the root tests a base next to the junction
    assert model.depth_.max() <= 6


def test_max_depth_and_weights():
    model = ID3Classifier(max_depth=1).fit(TENNIS[:, :4], TENNIS[:, 4])
    assert model.depth_.max() == 1
    w = np.ones(14)
    w[TENNIS[:, 4] == "Non"] = 10.0  # Non now dominates every outlook value
    weighted = ID3Classifier(max_depth=1).fit(TENNIS[:, :4], TENNIS[:, 4], sample_weight=w)
    assert weighted.classes_[np.argmax(weighted.value_[0])] == "Non"


def test_invalid_inputs():
    with pytest.raises(ValueError, match="max_depth must be None or an int >= 1, got 0"):
        ID3Classifier(max_depth=0).fit(TENNIS[:, :4], TENNIS[:, 4])
    with pytest.raises(ValueError, match="X must be 2-dimensional"):
        ID3Classifier().fit(TENNIS[:, 0], TENNIS[:, 4])
    model = fit_tennis()
    with pytest.raises(ValueError, match="X has 3 features, but ID3Classifier is expecting 4 features"):
        model.predict(TENNIS[:, :3])
    with pytest.raises(NotFittedError, match="not fitted"):
        ID3Classifier().predict(TENNIS[:, :4])


def test_input_is_validated_as_categories():
    X, y = TENNIS[:, :4], TENNIS[:, 4]
    with pytest.raises(ValueError, match="Reshape your data"):
        ID3Classifier().fit(TENNIS[:, 0], y)
    with pytest.raises(ValueError, match=r"0 feature\(s\)"):
        ID3Classifier().fit(np.empty((len(y), 0)), y)
    numeric = np.arange(len(y) * 2, dtype=float).reshape(-1, 2)
    for bad in (np.nan, np.inf):
        numeric[3, 1] = bad
        with pytest.raises(ValueError, match="NaN or infinite values; code a missing value"):
            ID3Classifier().fit(numeric, y)
    cells = X.astype(object)
    cells[2, 1] = {"not": "a category"}
    with pytest.raises(TypeError, match=r"must be a string or a number: X\[2, 1\] is a dict"):
        ID3Classifier().fit(cells, y)
    import scipy.sparse

    with pytest.raises(TypeError, match="sparse matrix; ID3Classifier needs a dense array"):
        ID3Classifier().fit(scipy.sparse.csr_matrix(np.ones((len(y), 2))), y)
    # strings, and numbers mixed with strings, are categories
    assert fit_tennis().score(X, y) == 1.0
