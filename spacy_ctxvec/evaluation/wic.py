"""Word-in-Context decisions from per-layer vectors (pure numpy, no spaCy).

Each example gives, per view (hidden layer), the target's vector in sentence 1 and 2,
the mean vector of the other tokens of each sentence, and the target word's vector
out of context (its type vector). From these come families of per-view cosines:

- ``cosine``: cos(v1, v2), the bare baseline;
- ``whitened``: the same after centring and whitening with corpus statistics;
- ``shift``: cos(v1 - t, v2 - t), each occurrence's shift from the type vector t;
- ``context``: whitened cosine of the two sentences' other tokens.

Decisions are fitted on train only: a threshold per (family, view) and logistic
regressions over whole families; the setting is chosen by grouped cross-validation
on train (folds never share a target word), never by the evaluated split.
"""

from dataclasses import asdict, dataclass, field
from typing import Dict, List, Sequence, Tuple, Union

import numpy as np
from sklearn.pipeline import Pipeline

from ..errors import CtxvecError, Errors
from ..ops.cosine import rowwise_cosine
from .metrics import (
    accuracy,
    fit_logistic,
    fit_threshold,
    group_folds,
)
from .moments import Moments

TARGET_FAMILIES = ("cosine", "whitened", "shift")
ALL_FAMILIES = TARGET_FAMILIES + ("context",)
N_FOLDS = 5  # train cross-validation folds, grouped by target word
# Logistic regressions over these family groups are candidate settings.
LOGISTIC_GROUPS: Dict[str, Tuple[str, ...]] = {
    "logistic[cosine]": ("cosine",),
    "logistic[whitened+shift]": ("whitened", "shift"),
    "logistic[whitened+context]": ("whitened", "context"),
    "logistic[whitened+shift+context]": ("whitened", "shift", "context"),
}


@dataclass
class PairVectors:
    """(n, n_views, width) arrays for n examples of one split."""

    target1: np.ndarray
    target2: np.ndarray
    context1: np.ndarray
    context2: np.ndarray
    type_vectors: np.ndarray


def whiten(vectors: np.ndarray, mean: np.ndarray, whitening: np.ndarray) -> np.ndarray:
    """(n, n_views, width) vectors centred and whitened per view."""
    return np.einsum("nvi,vij->nvj", vectors - mean[None], whitening)


def cosine_families(pairs: PairVectors, moments: Moments) -> Dict[str, np.ndarray]:
    """Family name -> (n, n_views) cosines; whitening uses the (train) ``moments``."""
    mean, whitening = moments.mean(), moments.whitening()
    return {
        "cosine": rowwise_cosine(pairs.target1, pairs.target2),
        "whitened": rowwise_cosine(whiten(pairs.target1, mean, whitening), whiten(pairs.target2, mean, whitening)),
        "shift": rowwise_cosine(pairs.target1 - pairs.type_vectors, pairs.target2 - pairs.type_vectors),
        "context": rowwise_cosine(whiten(pairs.context1, mean, whitening), whiten(pairs.context2, mean, whitening)),
    }


@dataclass
class ThresholdDecision:
    column: int
    threshold: float

    def predict(self, features: np.ndarray) -> np.ndarray:
        return features[:, self.column] > self.threshold


@dataclass
class LogisticDecision:
    columns: np.ndarray
    model: Pipeline

    def predict(self, features: np.ndarray) -> np.ndarray:
        return self.model.predict(features[:, self.columns])


Decision = Union[ThresholdDecision, LogisticDecision]


@dataclass
class Setting:
    """A candidate decision: a threshold on one column or a logistic regression on some."""

    name: str
    columns: np.ndarray

    def fit(self, features: np.ndarray, labels: np.ndarray) -> Decision:
        if len(self.columns) == 1:
            threshold, _ = fit_threshold(features[:, self.columns[0]], labels)
            return ThresholdDecision(int(self.columns[0]), threshold)
        return LogisticDecision(self.columns, fit_logistic(features[:, self.columns], labels))


def feature_matrix(families: Dict[str, np.ndarray], family_names: Sequence[str]) -> np.ndarray:
    """(n, n_families * n_views) columns, family by family."""
    return np.hstack([families[name] for name in family_names])


def candidate_settings(family_names: Sequence[str], view_names: Sequence[str]) -> List[Setting]:
    """A threshold per (family, view) and the logistic groups whose families are all present."""
    n_views = len(view_names)
    settings = [
        Setting(f"threshold[{family}/{view}]", np.array([f * n_views + v]))
        for f, family in enumerate(family_names)
        for v, view in enumerate(view_names)
    ]
    for name, group in LOGISTIC_GROUPS.items():
        if all(family in family_names for family in group):
            columns = np.concatenate([np.arange(n_views) + family_names.index(family) * n_views for family in group])
            settings.append(Setting(name, columns))
    return settings


def cross_validated_accuracy(setting: Setting, features: np.ndarray, labels: np.ndarray, folds: np.ndarray) -> float:
    """Accuracy of ``setting`` fitted on all folds but one, pooled over held-out folds."""
    correct = 0
    for fold in np.unique(folds):
        held_out = folds == fold
        decision = setting.fit(features[~held_out], labels[~held_out])
        correct += int(np.sum(decision.predict(features[held_out]) == labels[held_out]))
    return correct / len(labels)


@dataclass
class WicReport:
    """``accuracy`` of the setting chosen on train (``chosen``); per setting, its
    train cross-validation accuracy and its accuracy on the evaluated split."""

    split: str
    accuracy: float
    chosen: str
    n_examples: int
    n_train: int
    settings: Dict[str, Dict[str, float]] = field(default_factory=dict)

    def per_family(self, family: str) -> Dict[str, float]:
        """View -> accuracy of the train threshold on ``family`` cosines."""
        prefix = f"threshold[{family}/"
        return {
            name[len(prefix) : -1]: values["accuracy"]
            for name, values in self.settings.items()
            if name.startswith(prefix)
        }

    def to_dict(self) -> Dict[str, object]:
        return asdict(self)


def check_wic_train(
    train_labels: np.ndarray, train_groups: Sequence[str], n_folds: int = N_FOLDS, seed: int = 0
) -> None:
    """E306 unless the train labels hold both T and F, E309 unless the train split has
    2 or more target words (the groups of cross-validation), E310 unless every
    cross-validation fold leaves both labels to train on: what fitting a decision needs,
    checked from the data alone (the folds depend on the target words only), so before any
    vectors are computed."""
    train_labels = np.asarray(train_labels, dtype=bool)
    n_true = int(train_labels.sum())
    if n_true == 0 or n_true == len(train_labels):
        raise CtxvecError(Errors.E306.format(n_true=n_true, n_false=len(train_labels) - n_true))
    n_groups = len(set(train_groups))
    if n_groups < 2:
        raise CtxvecError(Errors.E309.format(n_groups=n_groups))
    folds = group_folds(np.asarray(train_groups), min(n_folds, n_groups), seed=seed)
    for fold in np.unique(folds):
        rest = train_labels[folds != fold]
        if rest.all() or not rest.any():
            held_out = sorted(set(np.asarray(train_groups)[folds == fold].tolist()))
            raise CtxvecError(
                Errors.E310.format(
                    n_folds=len(np.unique(folds)),
                    words=", ".join(repr(w) for w in held_out[:5]) + (" ..." if len(held_out) > 5 else ""),
                    label="T" if rest.all() else "F",
                    n_train=len(train_labels),
                )
            )


def evaluate_wic_features(
    train_families: Dict[str, np.ndarray],
    train_labels: np.ndarray,
    train_groups: Sequence[str],
    eval_families: Dict[str, np.ndarray],
    eval_labels: np.ndarray,
    view_names: Sequence[str],
    split: str,
    family_names: Sequence[str] = ALL_FAMILIES,
    n_folds: int = N_FOLDS,
    seed: int = 0,
) -> WicReport:
    """Fit every candidate setting on train, choose by grouped cross-validation on
    train, and report every setting's accuracy on the evaluated split."""
    train_labels = np.asarray(train_labels, dtype=bool)
    check_wic_train(train_labels, train_groups, n_folds, seed)
    family_names = list(family_names)
    train_features = feature_matrix(train_families, family_names)
    eval_features = feature_matrix(eval_families, family_names)
    folds = group_folds(np.asarray(train_groups), min(n_folds, len(set(train_groups))), seed=seed)
    table: Dict[str, Dict[str, float]] = {}
    for setting in candidate_settings(family_names, view_names):
        decision = setting.fit(train_features, train_labels)
        table[setting.name] = {
            "train_cv_accuracy": cross_validated_accuracy(setting, train_features, train_labels, folds),
            "train_accuracy": accuracy(decision.predict(train_features), train_labels),
            "accuracy": accuracy(decision.predict(eval_features), eval_labels),
        }
        if isinstance(decision, ThresholdDecision):
            table[setting.name]["threshold"] = decision.threshold
    # Ties go to the simpler setting: thresholds come first in the candidate order.
    chosen = max(table, key=lambda name: table[name]["train_cv_accuracy"])
    return WicReport(
        split=split,
        accuracy=table[chosen]["accuracy"],
        chosen=chosen,
        n_examples=len(eval_labels),
        n_train=len(train_labels),
        settings=table,
    )
