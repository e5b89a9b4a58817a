"""Which model a table of vectors belongs to: a short hash of the model's input-embedding
table, recorded by lexicons, probes and Docs and compared where they meet, and the labels
saying how contextual vectors were made ("layer 5 of 6, pooled by pool_mean, model
1a2b...": lexicon.statistics.CONTEXT_VECTORS_META, doc._.ctxvec_context_source)."""

import hashlib
import re
from typing import Dict, Optional, Tuple

import numpy as np

# How a vectors label (with_model) names the model, after how the vectors were pooled.
_MODEL_MARK = ", model "
# A pooling's or layer combination's settings in a label ("pooled by pool_scaled (weight=0.5)",
# "combined by Weighted (weights=[1, 3])"; components.choices.pooling_name), one slot each.
# One level of parentheses inside, for a tuple setting: "pool_x (shape=(1, 2))".
_SETTINGS = {
    slot: re.compile(rf"(?<={slot} by )(?P<name>\w+) \((?:[^()]|\([^()]*\))*\)") for slot in ("pooled", "combined")
}
# Fingerprints written before zeros were hashed as +0.0, of the models known to hold a
# -0.0 in their input embeddings, and what they are now. The offline default,
# sentence-transformers/all-MiniLM-L6-v2, holds one (row 30439, column 146).
EARLIER_FINGERPRINTS = {"97d6177f612cc2be": "234c5e47902457b9"}


def embedding_fingerprint(embeddings: np.ndarray) -> str:
    """A short hash of a model's input-embedding table: which model a probe belongs to,
    wherever the model is loaded from. A zero counts as +0.0 whatever its sign: an
    optimizer step with learning rate 0 (the first step of spacy train's warm-up) turns
    -0.0 into +0.0 and changes no value."""
    table = np.ascontiguousarray(embeddings, dtype=np.float32) + np.float32(0.0)  # -0.0 + 0.0 is +0.0
    digest = hashlib.sha256(str(table.shape).encode("ascii"))
    digest.update(table.tobytes())
    return digest.hexdigest()[:16]


def current_fingerprint(fingerprint: str) -> str:
    """``fingerprint`` as embedding_fingerprint gives it now: one written by an earlier
    version for a model with a -0.0 (EARLIER_FINGERPRINTS) becomes today's."""
    return EARLIER_FINGERPRINTS.get(fingerprint, fingerprint)


def with_model(how: str, model: Optional[str]) -> str:
    """A CONTEXT_VECTORS_META label ``how`` the vectors were pooled, naming ``model``."""
    return how if model is None else f"{how}{_MODEL_MARK}{model}"


def pooling_of(label: str) -> str:
    """How a CONTEXT_VECTORS_META label's vectors were pooled, without the model's fingerprint."""
    return label.partition(_MODEL_MARK)[0]


def vectors_differ(expected: str, found: str) -> bool:
    """Whether two CONTEXT_VECTORS_META labels describe different vectors: other layers or
    pooling, or two models named that differ (a label without a model, from an earlier
    version or another transformer component, matches any model)."""
    expected_how, _, expected_model = current_label(expected).partition(_MODEL_MARK)
    found_how, _, found_model = current_label(found).partition(_MODEL_MARK)
    for settings in _SETTINGS.values():
        if settings.search(expected_how) is None or settings.search(found_how) is None:
            # a label from before these settings were named matches the same function with any
            expected_how, found_how = (settings.sub(r"\g<name>", how) for how in (expected_how, found_how))
        else:  # one from before lists and tuples were named matches the same plain settings
            expected_how, found_how = _without_unmatched_lists(settings, expected_how, found_how)
    return expected_how != found_how or bool(expected_model and found_model and expected_model != found_model)


def _without_unmatched_lists(settings: "re.Pattern[str]", first: str, second: str) -> Tuple[str, str]:
    """The two labels without the list or tuple settings that only one of them names (a label
    written before lists and tuples were named), where those are all they differ in."""
    found = [settings.search(how) for how in (first, second)]
    items = [_setting_items(match.group(0)[len(match.group("name")) + 2 : -1]) for match in found if match]
    if len(items) != 2:
        return first, second
    only = set(items[0]) ^ set(items[1])
    listed = {key for key in only if (items[0].get(key) or items[1].get(key) or "")[:1] in ("[", "(")}
    if not only or listed != only:
        return first, second
    kept = [{key: value for key, value in part.items() if key not in only} for part in items]
    rebuilt = [
        how[: match.start()] + _named(match.group("name"), part) + how[match.end() :]
        for how, match, part in zip((first, second), found, kept)
        if match is not None
    ]
    return rebuilt[0], rebuilt[1]


def _setting_items(text: str) -> Dict[str, str]:
    """ "a=1, b=[1, 2]" as {"a": "1", "b": "[1, 2]"}: commas inside brackets kept."""
    items, depth, start = {}, 0, 0
    for i, char in enumerate(text + ","):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == "," and depth == 0:
            key, _, value = text[start:i].strip().partition("=")
            items[key] = value
            start = i + 1
    return items


def _named(name: str, items: Dict[str, str]) -> str:
    return f"{name} ({', '.join(f'{key}={value}' for key, value in items.items())})" if items else name


def current_label(label: str) -> str:
    """``label`` naming its model's fingerprint as it is computed now (current_fingerprint)."""
    how, mark, model = label.partition(_MODEL_MARK)
    return f"{how}{mark}{current_fingerprint(model)}" if mark else label
