"""The ctxvec_polysemy component: corpus polysemy scores and per-occurrence context shift.

It holds a Lexicon (see spacy_ctxvec.lexicon.statistics) built from the SAME contextual
vectors that ``ctxvec_context`` produces, so the layer is chosen on ctxvec_context
([components.ctxvec_context.layers]; ``build-lexicon --layer N`` sets it when building).
Per token it sets one record in doc._.ctxvec_polysemy, read by:

- token._.polysemy_score: the token's type's score, None if the type is unseen or has
  fewer than ``min_count`` occurrences in the lexicon. With a polysemy probe (fitted on
  dictionary sense counts, see spacy_ctxvec.lexicon.polysemy_probe; saved in ``probe/``)
  it is the probe's estimate of the type's number of senses, else (or with
  ``score = "self_similarity"``) (1 - SelfSim) / (1 - B); ``score_source`` says which;
- token._.polysemy_count: the type's number of occurrences in the lexicon (0 if unseen, None
  where the Doc was not annotated);
- token._.context_shift: 1 - cos(this occurrence, the type's unit centroid), None where
  the score is None or the token has no contextual vector.

With a SenseInventory (``senses``: induced from the lexicon's occurrence sample, see
spacy_ctxvec.lexicon.sense_induction; saved in ``senses/`` beside ``lexicon/``) it also sets
doc._.ctxvec_sense (SENSE_DTYPE records) and doc._.ctxvec_sense_vec, read by:

- token._.sense: this occurrence's sense within its type (nearest centroid of its own
  contextual vector, joined to the mean vector of the tokens around it when the senses
  were induced with contexts, in the sense space), None where the type has no senses (unseen,
  below ``min_count``, not sampled) or the token has no contextual vector;
- token._.n_senses: the type's number of induced senses (0 if none, None where the Doc
  was not annotated);
- token._.sense_vec / span._.sense_vec / doc._.sense_vec: the sense's static vector
  (mean raw contextual vector of its sampled members), None where sense is None;
- token._.sense_score: confidence in [0, 1] that the token belongs to its sense rather
  than the runner-up (0.5: as clear as the type's median sampled occurrence), None where
  sense is None; token._.sense_label: the sense's context words ("river, water, side");
  token._.corpus_polysemy: the type's evidence of distinct uses in this corpus (see
  sense_annotation and ops.sense_evidence). Annotations: sense_annotation.
"""

import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union, cast

import numpy as np
import srsly
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Config

from ..attributes import (
    POLYSEMY_ARRAY,
    POLYSEMY_FACTORY,
    SENSE_ARRAY,
    SENSE_LABELS,
    SENSE_VECTORS,
    context_segments,
    install_extensions,
    set_token_arrays,
)
from ..building.corpus import CorpusReader
from ..building.shard import (
    KEY_ATTRS,
    check_key_mode,
    context_width,
    enabled_before,
    partial_lexicon,
    polysemy_components,
)
from ..component_names import context_name, warn_of_several
from ..errors import CtxvecError, Errors, Warnings, warn_at_user_line
from ..lexicon.induction_checks import has_context_rows, induced_otherwise, induction_warnings
from ..lexicon.polysemy_probe import (
    SCORE_CHOICES,
    PolysemyProbe,
    shipped_probes,
)
from ..lexicon.sense_induction import check_directions_fit, induce_inventory
from ..lexicon.sense_inventory import SenseInventory
from ..lexicon.statistics import CONTEXT_VECTORS_META, Lexicon
from ..lexicon.type_inputs import TypeInputs
from ..ops.senses import DEFAULT_SAMPLE_SIZE, SenseInductionSettings
from ..registrations import factory
from .base import POLYSEMY_ASSIGNS, DocAnnotator, NlpRef, check_saved_directory
from .induction_config import fold_legacy_settings, write_induction_config
from .initialize_corpus import InitializeCorpus
from .model_inputs import pipeline_model_fingerprint, type_input_embeddings
from .polysemy_lookup import (
    check_context_before,
    check_pipeline_made_alike,
    checked_min_count,
    key_table,
    label_language,
    lexicon_asked_for,
    look_up,
    pipeline_order,
    polysemy_records,
    score_table,
    warn_of_training,
)
from .polysemy_state import (
    CFG_FILE,
    INPUTS_DIR,
    LEXICON_DIR,
    PARTS,
    PROBE_DIR,
    SENSES_DIR,
    SavedParts,
    lexicon_directory,
    parts_from_bytes,
    read_saved_parts,
)
from .sense_annotation import sense_annotations

DEFAULT_POLYSEMY_CONFIG = """
[ctxvec_polysemy]
key = "lower"
min_count = 5
score = "auto"
senses = true

[ctxvec_polysemy.induction]
@misc = "spacy-ctxvec.sense_induction.v1"
"""
_DEFAULT_INDUCTION = SenseInductionSettings()


@factory(
    "ctxvec_polysemy",
    default_config=Config().from_str(DEFAULT_POLYSEMY_CONFIG)["ctxvec_polysemy"],
    assigns=POLYSEMY_ASSIGNS,
    requires=["doc._.ctxvec_context"],
)
def make_polysemy(
    nlp: Language,
    name: str,
    key: str,
    min_count: int,
    score: str = "auto",
    senses: bool = True,
    induction: SenseInductionSettings = _DEFAULT_INDUCTION,
    # Deprecated (W010): the flat keys of pipelines saved before [induction] existed
    split_threshold: Optional[float] = None,
    split_percentile: Optional[float] = None,
    cut_distance: Optional[float] = None,
    max_senses: Optional[int] = None,
    min_tokens: Optional[int] = None,
    min_share: Optional[float] = None,
    n_directions: Optional[int] = None,
    context_weight: Optional[float] = None,
    split_by_probe: Optional[bool] = None,
) -> "Polysemy":
    """Corpus polysemy scores and induced senses per token; see Polysemy. ``score``:
    "auto" (the polysemy probe where one fits the lexicon, else self-similarity),
    "probe" or "self_similarity". ``senses``: induce senses in ``initialize`` when the
    lexicon is built from a corpus; ``induction``: how (the nested block
    [components.NAME.induction], spacy-ctxvec.sense_induction.v1). The flat keys
    ``split_threshold`` ... ``split_by_probe`` of older configs are folded into
    ``induction`` with warning W010."""
    legacy = {
        "split_threshold": split_threshold,
        "split_percentile": split_percentile,
        "cut_distance": cut_distance,
        "max_senses": max_senses,
        "min_tokens": min_tokens,
        "min_share": min_share,
        "n_directions": n_directions,
        "context_weight": context_weight,
        "split_by_probe": split_by_probe,
    }
    component = Polysemy(
        name=name,
        key=key,
        min_count=min_count,
        score=score,
        senses=senses,
        induction=fold_legacy_settings(induction, legacy, name),
    )
    component._nlp_ref = NlpRef(nlp)  # its pipeline's order, for E218
    return component


class Polysemy(DocAnnotator):
    """Looks tokens up in a Lexicon and sets doc._.ctxvec_polysemy (POLYSEMY_DTYPE records).

    Without a lexicon (or with an empty one) every score and shift is None.
    """

    def __init__(
        self,
        *,
        name: str = "ctxvec_polysemy",
        key: str = "lower",
        min_count: int = 5,
        score: str = "auto",
        senses: bool = True,
        induction: SenseInductionSettings = _DEFAULT_INDUCTION,
    ) -> None:
        if key not in KEY_ATTRS:
            raise CtxvecError(Errors.E216.format(key=key, choices=", ".join(KEY_ATTRS)))
        min_count = checked_min_count(min_count)
        if score not in SCORE_CHOICES:
            raise CtxvecError(Errors.E654.format(score=score, choices=", ".join(SCORE_CHOICES)))
        self.name = name
        self.score_definition = score  # not self.score: spaCy's Scorer calls pipe.score(examples)
        self.key = key
        self.min_count = min_count
        self.induce = bool(senses)
        if not isinstance(induction, SenseInductionSettings):
            raise CtxvecError(
                Errors.E603.format(
                    setting="induction", requirement="a SenseInductionSettings (see ops.senses)", value=induction
                )
            )
        self.induction = induction
        self.lexicon: Optional[Lexicon] = None
        self.senses: Optional[SenseInventory] = None
        self.probe: Optional[PolysemyProbe] = None
        self.type_inputs: Optional[np.ndarray] = None  # (n_types, input width) float16, aligned with lexicon.keys
        self.score_source: Optional[str] = None  # the definition the scores use: "probe" or "self_similarity"
        self.model: Optional[str] = None  # the fingerprint of the pipeline's model, once set_lexicon is given nlp
        self._table: Optional[Dict[str, Any]] = None
        self._sense_table: Optional[Dict[str, np.ndarray]] = None
        install_extensions()

    def set_lexicon(
        self, lexicon: Optional[Lexicon], *, nlp: Optional[Language] = None, type_inputs: Optional[np.ndarray] = None
    ) -> None:
        """Use ``lexicon`` (None: no lexicon). Its key mode must match this component's.
        ``type_inputs``: its types' input embeddings (as saved beside it); else the
        current ones are kept only if the keys are the same. With ``nlp``, the shipped
        polysemy probe of its model is used when it fits the lexicon and the component
        has no probe of its own that does (``_choose_probe``). The senses are
        dropped (they belong to the old lexicon): set them again with ``set_senses`` or
        ``build_senses``."""
        lexicon_key = lexicon.meta.get("key") if lexicon is not None else None
        if lexicon_key is not None and lexicon_key != self.key:
            raise CtxvecError(Errors.E220.format(lexicon_key=lexicon_key, name=self.name, key=self.key))
        same_keys = lexicon is not None and self.lexicon is not None and lexicon.keys == self.lexicon.keys
        if type_inputs is not None or not same_keys:
            self.type_inputs = type_inputs  # the current ones belong to the old lexicon's keys
        self.lexicon = lexicon
        if nlp is not None:
            self._choose_probe(nlp)
        self._refresh_table()
        self.set_senses(None)

    def set_probe(self, probe: Optional[PolysemyProbe]) -> None:
        """Use ``probe`` for polysemy_score (None: no probe). It is kept when the lexicon
        changes, and used (score = "auto") only while it fits the lexicon."""
        probe_key = probe.meta.get("key") if probe is not None else None
        if probe_key is not None and probe_key != self.key:
            raise CtxvecError(Errors.E656.format(probe_key=probe_key, name=self.name, key=self.key))
        self.probe = probe
        self._refresh_table()

    def set_type_inputs(self, nlp: Language) -> None:
        """Compute the lexicon types' input embeddings from nlp's transformer (for a
        probe that reads them); none without a lexicon or a loaded transformer."""
        self.type_inputs = (
            None if self.lexicon is None or not len(self.lexicon) else type_input_embeddings(nlp, self.lexicon.keys)
        )
        self._refresh_table()

    def _choose_probe(self, nlp: Language) -> Optional[PolysemyProbe]:
        """The component's own probe if it fits, else the first shipped probe of nlp's
        model that does; the types' input embeddings are computed only if one reads them."""
        model = self.model = pipeline_model_fingerprint(nlp)
        if self.lexicon is None or not len(self.lexicon) or model is None:
            return None
        candidates = ([self.probe] if self.probe is not None else []) + shipped_probes(model)
        if self.type_inputs is None and any(candidate.input_width for candidate in candidates):
            self.type_inputs = type_input_embeddings(nlp, self.lexicon.keys)
        chosen = next((c for c in candidates if c.problem_with(self.lexicon, model, self.type_inputs) is None), None)
        if chosen is not None:
            self.probe = chosen  # shipped probes carry the lexicon's key (problem_with)
        return chosen

    def _refresh_table(self) -> None:
        lexicon = self.lexicon
        self._table = None
        if lexicon is not None and len(lexicon):
            self._table = score_table(lexicon, self.probe, self.min_count, self.score_definition, self.type_inputs)
        self.score_source = None if self._table is None else self._table["source"]

    def set_senses(self, senses: Optional[SenseInventory]) -> None:
        """Use ``senses`` (None: no senses). Their key mode must match this component's."""
        senses_key = senses.settings.get("key") if senses is not None else None
        if senses_key is not None and senses_key != self.key:
            raise CtxvecError(Errors.E605.format(senses_key=senses_key, name=self.name, key=self.key))
        self.senses = senses
        self._sense_table = None
        if senses is not None and len(senses):
            lexicon = self.lexicon
            made_from = lexicon.meta.get(CONTEXT_VECTORS_META) if lexicon is not None else None
            table = {**key_table(senses.keys, made_from), "n_senses": senses.counts()}
            if lexicon is not None:  # types below min_count get no senses (min_count raised at load)
                kept = np.array([lexicon.count_of(senses.keys[row]) >= self.min_count for row in table["rows"]], bool)
                table["hashes"], table["rows"] = table["hashes"][kept], table["rows"][kept]
            self._sense_table = table if len(table["rows"]) else None

    def build_senses(self, *, warn: bool = True) -> SenseInventory:
        """Induce senses from the lexicon's sample with this component's ``induction``, use
        and return them (E602 without a lexicon sample), and write those settings into its
        pipeline's config, so that a saved pipeline's block agrees with its senses. ``warn``:
        warn what ``induction_warnings`` finds."""
        if self.lexicon is None:
            raise CtxvecError(Errors.E602.format(name=self.name))
        for message in self.induction_warnings() if warn else []:
            warnings.warn(message, stacklevel=2)
        nlp = self.running_pipeline()
        senses = induce_inventory(
            self.lexicon,
            self.induction,
            min_count=self.min_count,
            name=self.name,
            probe=self.probe,
            inputs=self.type_inputs,
            language=label_language(nlp),
            warn=False,
        )
        self.set_senses(senses)
        if nlp is not None:
            write_induction_config(nlp, self.name, self.induction)
        return senses

    def induction_warnings(self) -> List[str]:
        """W033 / W060 / W061 for inducing with these settings from this lexicon
        (``induction_checks.induction_warnings``)."""
        return induction_warnings(self.induction, self.lexicon, self.name, getattr(self, "model", None))

    def set_annotations(self, docs: Sequence[Doc]) -> None:
        if self.lexicon is None or not len(self.lexicon):
            if not hasattr(self, "_left_unbuilt"):  # E273: the config is read once
                self._left_unbuilt = lexicon_asked_for(self.pipeline(), self.name) if self.listed_frozen() else None
            if self._left_unbuilt is not None:
                raise CtxvecError(Errors.E273.format(name=self.name, setting=self._left_unbuilt))
        pipe_names = pipeline_order(self.running_pipeline())  # for E218
        for doc in docs:
            records = polysemy_records(doc, self._table, key=self.key, name=self.name, pipe_names=pipe_names)
            arrays: Dict[str, Any] = {POLYSEMY_ARRAY: records}
            if self._sense_table is not None:
                arrays[SENSE_ARRAY], arrays[SENSE_VECTORS], arrays[SENSE_LABELS] = self._sense_records(doc)
            set_token_arrays(doc, arrays)

    def _sense_records(self, doc: Doc) -> Tuple[np.ndarray, np.ndarray, Tuple[str, ...]]:
        """(SENSE_DTYPE records, (n, width) float32 sense vectors, labels) of one Doc."""
        senses, table = self.senses, self._sense_table
        assert senses is not None and table is not None
        if len(doc) == 0:
            return sense_annotations(senses, np.zeros((0, senses.width)), np.zeros(0, dtype=bool), np.zeros(0, int))
        vectors, mask, found, rows = look_up(
            doc, table, key=self.key, width=senses.width, width_error=Errors.E604, name=self.name
        )
        return sense_annotations(senses, vectors, mask, np.where(found, rows, -1), context_segments(doc))

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Any]]] = None,
        *,
        nlp: Optional[Language] = None,
        lexicon_path: Optional[Union[str, Path]] = None,
        corpus: Optional[CorpusReader] = None,
        batch_size: int = 64,
        sample_size: int = DEFAULT_SAMPLE_SIZE,
        sample_contexts: bool = True,
    ) -> None:
        """Load the lexicon from ``lexicon_path`` (a Lexicon directory) or build it from ``corpus`` (e.g.
        spacy-ctxvec.lexicon_corpus.v1); with neither, keep it as is. ``sample_size`` K (DEFAULT_SAMPLE_SIZE):
        a lexicon built from ``corpus`` keeps up to K occurrences per type (types below ``min_count`` keep
        none), each with its context vector unless ``sample_contexts`` is false, and with ``senses = true`` the
        senses are induced from it (E602 for ``senses = true`` with K = 0, as in build-lexicon). With ``senses
        = true``, a lexicon loaded from ``lexicon_path`` (E237 for a saved pipeline: give its lexicon folder)
        gets senses induced from its sample, where it has one. With ``nlp`` (the pipeline it runs in, also when
        sourced), the shipped polysemy probe of its model is used if it fits the lexicon."""
        if lexicon_path is not None and corpus is not None:
            raise CtxvecError(Errors.E227.format(name=self.name))
        self._nlp_ref = NlpRef(nlp) if nlp is not None else self._nlp_ref
        if nlp is not None:
            check_context_before(nlp, self.name)  # E218 here, not at the first Doc of a saved pipeline
            warn_of_several(nlp, self.name, POLYSEMY_FACTORY, Warnings.W074)
        if lexicon_path is not None:
            self.set_lexicon(Lexicon.from_disk(lexicon_directory(lexicon_path, POLYSEMY_FACTORY)), nlp=nlp)
            if nlp is not None and self.lexicon is not None:  # E043 now: before sense induction and any Doc
                check_pipeline_made_alike(nlp, self.lexicon, self.name)
            if self.induce and self.lexicon is not None and self.lexicon.sample is not None:
                self.build_senses()
        elif corpus is not None and nlp is not None:
            if self.induce and sample_size == 0:
                raise CtxvecError(Errors.E602.format(name=self.name))
            reading = InitializeCorpus(corpus, self.name)
            with enabled_before(nlp, self.name):  # frozen ones are disabled in spacy train's initialize
                check_key_mode(nlp, self.key, name=self.name)
                if self.induce:  # E603 now, not after the whole corpus was read
                    check_directions_fit(self.induction.n_directions, context_width(nlp, self.name))
                lexicon = partial_lexicon(
                    nlp,
                    reading.items(nlp.vocab),
                    key=self.key,
                    batch_size=batch_size,
                    sample_size=sample_size,
                    sample_contexts=sample_contexts,
                    stop_before=self.name,  # the components after it are not initialized yet
                )
            reading.check_read(lexicon.n_occurrences)
            self.set_lexicon(lexicon.prune_sample(self.min_count), nlp=nlp)
            if self.induce and sample_size > 0:
                self.build_senses()
        elif nlp is not None and self.lexicon is not None:  # kept (set, or sourced with the component): E043 now
            check_pipeline_made_alike(nlp, self.lexicon, self.name)
        if nlp is not None and self.lexicon is not None and (lexicon_path is not None or corpus is not None):
            warn_of_training(nlp, self.name, built=corpus is not None)  # W037
        if nlp is not None and self.lexicon is not None and len(self.lexicon):
            self.check_width(context_width(nlp, self.name))

    def check_width(self, pipeline_width: int) -> None:
        if self.lexicon is not None and len(self.lexicon) and self.lexicon.width != pipeline_width:
            raise CtxvecError(Errors.E219.format(lexicon_width=self.lexicon.width, pipeline_width=pipeline_width))
        if self.senses is not None and len(self.senses) and self.senses.width != pipeline_width:
            raise CtxvecError(Errors.E604.format(senses_width=self.senses.width, pipeline_width=pipeline_width))

    # Serialisation through spaCy's serializer dicts: each part saves itself (.npy + JSON
    # on disk, msgpack in bytes), cfg.json records what was saved (polysemy_state).
    def _saved_parts(self, exclude: Iterable[str]) -> Dict[str, Any]:
        """The parts to save, by name (PARTS), but those in ``exclude``. The types' input
        embeddings go with the lexicon for a saved probe that reads them, at its width."""
        inputs = self.type_inputs
        parts: Dict[str, Any] = {LEXICON_DIR: self.lexicon, SENSES_DIR: self.senses, PROBE_DIR: self.probe}
        if (
            inputs is not None
            and self.lexicon is not None
            and self.probe is not None
            and inputs.shape == (len(self.lexicon), self.probe.input_width)
        ):
            parts[INPUTS_DIR] = TypeInputs.for_keys(inputs, self.lexicon.keys)
        if LEXICON_DIR in exclude or PROBE_DIR in exclude:
            parts.pop(INPUTS_DIR, None)
        return {name: part for name, part in parts.items() if part is not None and name not in exclude}

    def _cfg(self, saved: Dict[str, Any]) -> Dict[str, bool]:
        return {f"has_{name}": name in saved for name in PARTS}

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        saved = self._saved_parts(exclude)
        writers: Dict[str, Callable[[Path], None]] = {name: part.to_disk for name, part in saved.items()}
        writers[CFG_FILE] = lambda cfg_path: srsly.write_json(cfg_path, self._cfg(saved))  # last: what was saved
        Path(path).mkdir(parents=True, exist_ok=True)
        util.to_disk(path, writers, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "Polysemy":
        """Load the saved parts; E249 if cfg.json says one was saved and it is gone,
        E660 if they disagree. ``exclude`` "lexicon": load nothing (the senses and
        input embeddings belong to it)."""
        if LEXICON_DIR in exclude:
            return self
        path = check_saved_directory(path, self.name)
        return self._use_parts(read_saved_parts(path, name=self.name, exclude=exclude), exclude)

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        saved = self._saved_parts(exclude)
        getters: Dict[str, Callable[[], Any]] = {name: part.to_bytes for name, part in saved.items()}
        getters["cfg"] = lambda: self._cfg(saved)
        return util.to_bytes(getters, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "Polysemy":
        if LEXICON_DIR in exclude:
            return self
        return self._use_parts(parts_from_bytes(bytes_data, exclude), exclude)

    def _use_parts(self, parts: SavedParts, exclude: Iterable[str]) -> "Polysemy":
        """Use what was read; an excluded part keeps the component's current one (the
        senses too, which set_lexicon would drop), as spaCy's ``exclude`` means."""
        if PROBE_DIR not in exclude:
            self.probe = parts.probe
        lexicon, inputs = parts.lexicon, parts.inputs
        current_senses = self.senses
        self.set_lexicon(lexicon, type_inputs=inputs.vectors if inputs is not None and lexicon is not None else None)
        self.set_senses(current_senses if SENSES_DIR in exclude else parts.senses)
        differences = (
            []
            if self.senses is None
            else induced_otherwise(self.induction, self.senses.settings, has_context_rows(self.lexicon))
        )
        if differences:
            warn_at_user_line(Warnings.W062.format(name=self.name, differences="; ".join(differences)))
        return self


def ensure_polysemy_component(nlp: Language, key: str, min_count: int) -> Polysemy:
    """The pipeline's ctxvec_polysemy component with this key and min_count (added after
    ctxvec_context if absent, else replaced with its other settings kept if they differ)."""
    names = polysemy_components(nlp)
    if not names:
        context = context_name(nlp)
        after = context if context in nlp.pipe_names else None
        config = {"key": key, "min_count": min_count}
        return nlp.add_pipe(POLYSEMY_FACTORY, after=after, config=config)  # type: ignore[return-value]
    component = cast(Polysemy, nlp.get_pipe(names[0]))
    if (component.key, component.min_count) == (key, min_count):
        return component
    kept = {k: v for k, v in nlp.config["components"][names[0]].items() if k != "factory"}
    return nlp.replace_pipe(names[0], POLYSEMY_FACTORY, config={**kept, "key": key, "min_count": min_count})  # type: ignore[return-value]
