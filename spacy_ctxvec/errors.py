"""One catalogue of error messages, each with a code (spaCy's errors.py style).

Code ranges: E0xx context vectors and pipeline glue, E1xx static vectors,
E2xx polysemy and corpora, E3xx evaluation, E4xx plots and projects, E5xx engines,
E6xx senses and the polysemy probe, E7xx output safety and bounded readers.
W0xx warnings share one sequence.
"""

import re
import sys
import warnings
from types import FrameType
from typing import Optional

from .catalogue.command_errors import CommandErrors
from .catalogue.lexicon_errors import LexiconErrors
from .catalogue.pipeline_errors import PipelineErrors

PREFIX = "CTX-"  # "[CTX-E001]", never mistaken for spaCy's own "[E001]"
INTERRUPTED = 130  # the exit status of a command stopped by Ctrl-C (SIGINT), as the shell gives it


# "[CTX-E101] ..." -> "E101"
_CODE_AT_START = re.compile(rf"\[{re.escape(PREFIX)}([EW]\d{{3}})\]")


class _ErrorsWithCodes(type):
    def __getattribute__(cls, code: str) -> str:
        msg = super().__getattribute__(code)
        if code.startswith("__"):
            return msg
        return f"[{PREFIX}{code}] {msg}"


# The packages a warning raised in a component passes through before the user's own line
# (confection and catalogue: the config registry a factory runs under; typer and click: spaCy's command line)
LIBRARY_MODULES = frozenset(
    "spacy_ctxvec spacy spacy_transformers thinc torch transformers confection catalogue typer click".split()
)


def warn_at_user_line(message: str) -> None:
    """``warnings.warn`` pointing at the first caller outside spacy-ctxvec and the libraries
    it runs in (the user's ``nlp(text)`` or ``for doc in nlp.pipe(...)``), else at the caller."""
    frame: Optional[FrameType] = sys._getframe(1)
    level = 2
    while frame is not None and (
        frame.f_globals.get("__name__", "").split(".")[0] in LIBRARY_MODULES
        or "load_model_from_init_py" in frame.f_globals  # a pipeline package's __init__.py (spaCy's template)
    ):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, stacklevel=level if frame is not None else 2)


class CtxvecError(ValueError):
    """Raised for bad input or configuration; the message begins with its code ("[CTX-E101] ...")."""

    @property
    def code(self) -> Optional[str]:
        """The message's code ("E101"), None for a message without one."""
        found = _CODE_AT_START.match(str(self))
        return found.group(1) if found else None


class OutputWrittenMeanwhile(CtxvecError):
    """E226 at the final rename: another command wrote the output while this one ran."""


# numpy's OSError for a short write (no errno): "88320 requested and 26560 written"
_SHORT_WRITE = re.compile(r"(\d+) requested and (\d+) written")


class OutputNotWritten(CtxvecError):
    """E703 from a write that failed (a full disk, a place that is not writable): nothing
    was changed at the output."""

    @classmethod
    def from_os_error(cls, what: str, path: object, err: OSError) -> "OutputNotWritten":
        """E703 for ``err``, raised where writing ``what`` at ``path`` failed."""
        short = _SHORT_WRITE.fullmatch(str(err)) if err.errno is None else None
        if short is not None:
            reason = f"the disk is full or a quota was reached ({short[2]} of {short[1]} array items written)"
        else:
            reason = (err.strerror or str(err) or type(err).__name__) + (f" ('{err.filename}')" if err.filename else "")
        return cls(Errors.E703.format(what=what, path=path, reason=reason))


class Errors(PipelineErrors, LexiconErrors, CommandErrors, metaclass=_ErrorsWithCodes):
    """Every error message by code (the texts live in spacy_ctxvec.catalogue, by range)."""


class Warnings(metaclass=_ErrorsWithCodes):
    """Messages that are logged, not raised (spaCy's Warnings style)."""

    W001 = (
        "Static vector table: {n_duplicates} (the first: '{word}'); the first row of each is used "
        "(to use another row of a word, delete its other rows from the file, in an .npy table each row together "
        "with its vocab line; deleting the later rows silences this)."
    )
    W002 = (
        "This pipeline has no ctxvec_static component: no static cosines. Add one after the "
        'transformer (nlp.add_pipe("ctxvec_static"), or [components.ctxvec_static] in the config, '
        "as the default config has) to see them."
    )
    W003 = (
        "{n_missing} targets had no contextual vector (a zero vector: cosine 0 in the scores): a target of "
        "characters only (spaces, invisible ones) or read with a neighbour as one unknown piece (CTX-W070). "
        "Check those rows' words and target indices."
    )
    W004 = "Skipped invalid line {path}:{line}: {reason}"
    W005 = "Skipped {lines} in total.{hint}"
    W006 = (
        "The lexicon counts {n_tokens} tokens, fewer than the {minimum} of the smallest corpus the polysemy probe was "
        "measured on: its log-frequency term makes every repeated word look frequent, so polysemy_score runs high "
        "(the probe does not decide which words split under the split rule of [components.{name}.induction], but on "
        "so small a corpus senses and corpus_polysemy are rough too: function words such as 'the' or 'of' often split "
        'there). Build from a larger corpus, or set score = "self_similarity" in [components.{name}] to score '
        "polysemy by self-similarity."
    )
    W010 = (
        "Component '{name}': the sense settings {settings} are given as flat keys of "
        "[components.{name}], as pipelines saved before the [components.{name}.induction] "
        "block did; they are used (over the block's values), but the flat keys are deprecated: move them "
        "into [components.{name}.induction] in the pipeline's config.cfg and set the flat keys to null "
        "(spaCy saves a pipeline's config as it was given, so saving it again keeps them)."
    )
    W020 = (
        "Corpus directory '{path}': {files} not read, because only .txt, .jsonl and .spacy files are (in any "
        "letter case): {names}. Decompress (.gz) or rename them to be read, or move them out of the corpus directory."
    )
    W021 = (
        "Corpus '{path}': {files} left out (--on-error skip) as binary, not text (a NUL character in the first "
        "bytes): {names}. Remove them from the corpus, or pass --encoding if they are text in another encoding "
        "(e.g. UTF-16)."
    )
    W030 = (
        "The lexicon counts {n_tokens} tokens, fewer than the {minimum} of the smallest corpus the polysemy probe was "
        "measured on: its log-frequency term makes every repeated word look frequent, so polysemy_score runs high "
        "and, as the probe decides the splits (split_by_evidence = false, split_by_probe = true), more words split "
        "into senses. Build from a larger corpus, or set split_by_evidence = true (this corpus's evidence decides) or "
        'split_by_probe = false (the spread test decides) in [components.{name}.induction]; score = "self_similarity" '
        "in [components.{name}] scores polysemy by self-similarity."
    )
    W031 = (
        "No word of the {n_types} in the lexicon has a polysemy score with --min-count {min_count}: "
        "the most frequent occurs {max_count} times.{fix}{no_letter}"
    )
    W032 = "No senses for {words} in '{path}' (key mode '{key}'){why}.{no_letter} Shown: the other words."
    W033 = (
        "The corpus's evidence decides which words of '{name}' split (split_by_evidence = true), "
        "and its thresholds were measured on vectors of all-MiniLM-L6-v2 from '{measured}'; this "
        "lexicon's are from '{vectors}'{model}. On other vectors the scale of corpus_polysemy shifts, so more "
        "or fewer words split than the thresholds intend. Set split_by_evidence = false in "
        "[components.{name}.induction] to let the spread test calibrate its thresholds on this "
        "corpus, or keep the evidence rule knowing its scale is not calibrated for these vectors."
    )
    W037 = (
        "'{name}' {how} from the vectors of '{transformer}' as it is now, "
        "and its listeners ({listeners}) fine-tune it when trained (it is not in [training] frozen_components): "
        "after training the contextual vectors differ from those the lexicon counted, and the "
        "first evaluation after the weights change stops with [CTX-E043] (ctxvec_context names the model's "
        "weights; with a warm-up learning-rate schedule, often the second). To "
        "keep the pretrained vectors, freeze it "
        '([training] frozen_components and annotating_components = ["{transformer}"]) or set the '
        "listeners' grad_factor = 0.0 and [training.optimizer] L2 = 0.0 (weight decay changes the weights "
        "without gradients); or build the lexicon on the trained pipeline with "
        "`spacy-ctxvec build-lexicon`."
    )
    W038 = (
        "--min-count {min_count} is below the pipeline's own min_count ({component_min_count}): words seen "
        "fewer than {component_min_count} times are ranked here, but their tokens get polysemy_score None."
    )
    W039 = "Nothing was drawn on the page: {why}."
    W040 = (
        "The model's vocabulary has no wordpiece for {tokens}: it reads each as {unk}, so their "
        "contextual vectors come from the context alone (any word it cannot read gets the same one "
        "there) and say nothing about the word itself: a row marked 'as {unk}' (if any) compares two contexts, "
        "not two words, and texts that differ only in such words look the same to the model. Use a "
        "model whose vocabulary covers them (a byte-level BPE model such as roberta-base reads every "
        "character), or compare words it knows."
    )
    W041 = (
        "No word seen >= {min_count} times has a corpus_polysemy in '{path}': {n_candidates} of its "
        "{n_types_with_senses} words with senses have one{most_frequent}. A word has a corpus_polysemy only where "
        "its sample holds at least 2 x min_support (and 3) usable occurrences, so rare words have none. {fix}"
    )
    W042 = (
        "The held-out Spearman of {scores} is undefined (the held-out line says why): the probe is "
        "fitted and saved, but nothing measures it on words it was not fitted on. For a held-out "
        "estimate, give sense counts for more of the lexicon's words, with different counts among "
        "them, or build the lexicon from a larger corpus in which the words occur in varied contexts."
    )
    W043 = (
        "{name}: the Spearman is over {n_covered} of its {n_pairs} pairs, those whose two words both have a "
        "static vector{few}. Compare it only with Spearmans over the same pairs, or use a pipeline whose "
        "static vectors cover more of the words."
    )
    W044 = (
        "Corpus file '{path}' looks hard-wrapped: {share:.0%} of its first {n_lines} non-blank lines end "
        "mid-sentence and they are at most about {width} characters long{others}. A .txt corpus is one "
        "document per line, so each word's context stops at its line's end: contextual vectors (and "
        "train-static's word2vec windows) see half sentences. Join each paragraph (paragraphs are "
        "separated by blank lines) onto one line, or give .jsonl documents. To join them (Windows line "
        "endings too):\n"
        "    tr -d '\\r' < {quoted_path} | awk 'BEGIN{{RS=\"\"}} {{gsub(/\\n/, \" \"); print}}' > JOINED.txt"
    )
    W045 = (
        "In '{path}', {n_unlike} of {n_targets} targets are a token that does not begin with "
        "the target word's first {letters} letters, e.g. {examples}. Irregular forms ('went' for 'go') "
        "explain a few; this many mean the scores are of other words than the file names. {fix}"
    )
    W046 = (
        "{component}: {n_lost} of a Doc's {n_words} tokens holding letters or digits got no contextual "
        "vector, e.g. {examples}: the transformer read no wordpiece of them, so they have no context_vec "
        "and a lexicon does not count them. The model reads at most its maximum length in wordpieces per "
        "window of spaCy tokens, and the wordpieces past it are cut off: a token of many wordpieces (this "
        "Doc's longest is {longest} characters: a run of text without spaces, such as Chinese or Japanese "
        "text to an English tokenizer, base64 or a long URL) or many tokens of several wordpieces each "
        "(codes, IDs) fill a window. Tokenize such text with a pipeline for its language, leave such runs "
        "out of the texts, or make the window smaller ([components.transformer.model.get_spans] window "
        "and stride of spacy-transformers.strided_spans.v1; doc_spans.v1 and sent_spans.v1 read a whole Doc "
        "or sentence as one window: use strided_spans.v1 instead). Hugging Face's message 'Token indices sequence "
        "length is longer than the specified maximum sequence length', where it comes before this one (training, "
        "a slow tokenizer or output_attentions), is about the same window: it is cut to the maximum length, not "
        "indexed past it. (Warned once per component.)"
    )
    W047 = (
        "--resume: there is no checkpoint in '{path}' (no build of this OUTPUT stopped after a "
        "checkpoint), so the build starts from the first document. If you meant to continue a "
        "build, check OUTPUT and --checkpoint-dir: the checkpoint is OUTPUT.checkpoint unless "
        "--checkpoint-dir said otherwise."
    )
    W048 = (
        "'{path}': {n} character(s) of its labels are not in the plotting font ({font}) and {drawn}: "
        "{glyphs}. Use a font that has them, e.g. for Chinese or Japanese words: "
        "matplotlib.rcParams['font.family'] = ['Noto Sans CJK JP'] and, for the example snippets (drawn in "
        "the monospace font), matplotlib.rcParams['font.monospace'] = ['Noto Sans CJK JP'] in Python (or "
        "font.family and font.monospace in a matplotlibrc file; the font must be installed)."
    )
    W049 = (
        "The model reads {n} of the lexicon's types seen at least {min_count} times as its unknown "
        "piece {unk} alone, e.g. {examples}: their contextual vectors come from their contexts only, so "
        "their polysemy_score, corpus_polysemy and senses say nothing about the types themselves. A model "
        "whose vocabulary covers them (a byte-level BPE model such as roberta-base reads every character) "
        "reads them; or leave them out of your analysis."
    )
    W050 = (
        "{name}: the Spearman is over {n_covered} pairs, under {minimum}: one pair more or less can move it "
        "a lot. Score more pairs (the full SCWS ratings.txt has 2,003) before comparing it with others."
    )
    W051 = (
        "Checkpoint shard '{path}' holds {problem}: build-lexicon leaves it in place instead of removing "
        "an old checkpoint. Move what you need out of it, then remove the directory."
    )
    W052 = (
        "Ctrl-C (or SIGTERM) came while {doing}; that was finished first, so nothing is left half done, "
        "and the command completed: nothing needs rerunning."
    )
    W053 = (
        "The first line of '{path}' ({got!r}) was read as a header and skipped: it does not name the "
        "columns (e.g. 'lemma<TAB>total'). If it is a row, give its sense count as a whole number."
    )
    W054 = (
        "polysemy_score here comes from a lexicon of {n_tokens} tokens, fewer than the {minimum} of the "
        "smallest corpus the polysemy probe was measured on: its log-frequency term makes every repeated "
        "word look frequent, so the scores run high (tens of 'senses' for a word seen a few times) and "
        "are not numbers of dictionary senses. Read them as an order at most; build from a larger corpus "
        "for numbers, or score by self-similarity: `spacy-ctxvec rank PIPELINE --score self_similarity`, or "
        'score = "self_similarity" in [components.ctxvec_polysemy] of the pipeline\'s config.cfg (plot polysemy).'
    )
    W055 = (
        "{name}: the Spearman and AUC are over {n_covered} words with a sense count ({n_monosemous} "
        "monosemous), under {minimum}: a word more or less can move them a lot. Build the lexicon from a "
        "larger corpus, or give a sense-count file covering more of its words, before comparing them."
    )
    W056 = (
        "The model reads '{word}' as its unknown piece {unk} alone: the contextual vector of each occurrence "
        "comes from its context only (any word the model cannot read gets the same), so the picture shows the "
        "contexts, not the word. Use a model whose vocabulary covers it (a byte-level BPE model such as "
        "roberta-base reads every character)."
    )
    W057 = (
        "{n} {what} left out of the vectors file: word2vec text cannot hold a key holding whitespace "
        '(or an empty one), e.g. {examples}. Such keys come from tokens holding whitespace (.jsonl "words" '
        "with spaces, spans merged into one token in a .spacy corpus); give them without (e.g. 'New_York') "
        "to keep them."
    )
    W058 = (
        "polysemy_score comes from a probe fitted on English WordNet sense counts, but the pipeline's "
        "language is '{lang}': its scores read English polysemy into {lang} words and say little about "
        'them. Set score = "self_similarity" in [components.{name}] (a measure of this corpus), or fit '
        "a probe on sense counts of that language with `spacy-ctxvec fit-polysemy`. The senses do not "
        "depend on it unless split_by_probe decides the splits."
    )
    W059 = (
        "The tokenizer of '{transformer}' counts the space before a word into the word's first "
        "wordpiece (in '{text}', a wordpiece covers {covered!r}, the space included), and spacy-transformers' "
        "alignment gives a token the wordpieces of its characters and of the one after it, its trailing "
        "space: every token's contextual vector then takes in the next word's first wordpiece too, and "
        "tokens of spaces get vectors. Use a tokenizer whose offsets leave the space out (a byte-level BPE "
        'tokenizer: "trim_offsets": true in the "post_processor" of its tokenizer.json, which a '
        "tokenizer_config setting does not reach), or read these vectors knowing it."
    )
    W060 = (
        "The corpus's evidence decides which words of '{name}' split (split_by_evidence = true), and its "
        "thresholds were measured with context_weight = {measured}; these settings give {weight}. Another "
        "weight moves corpus_polysemy off the thresholds' scale: on the whole-Gutenberg lexicon, weights 0, "
        "0.5, 1, 1.5 and 2 kept 60%, 86%, 92%, 30% and 24% of its (md5-even) monosemous types at one sense. "
        "Set "
        "context_weight = {measured} in [components.{name}.induction], or split_by_evidence = false (then the "
        "polysemy probe, where one fits the lexicon, or the spread test decides which words split; neither "
        "reads the weight)."
    )
    W061 = (
        "The corpus's evidence decides the senses of '{name}' (split_by_evidence = true), and it does not "
        "read {given}: those settings act only with split_by_evidence = false (the polysemy probe or the "
        "spread test decides). Leave them out of [components.{name}.induction], or set split_by_evidence = "
        "false to use them."
    )
    W062 = (
        "The senses saved with '{name}' were induced with other settings than its [components.{name}.induction] "
        "block gives ({differences}; a pipeline saved before a setting existed takes today's default for it); the "
        "saved senses are used as they are. To keep them, and their rule, set the block to the values left of each "
        "arrow (and a flat key of [components.{name}] that W010 names to null: it overrides the block) and save the "
        'pipeline; to induce them with the block\'s settings, call nlp.get_pipe("{name}").build_senses() and save '
        "the pipeline (nlp.to_disk), or build the lexicon again with `spacy-ctxvec build-lexicon`."
    )
    W063 = (
        "Removed {paths}: what a command left beside {what} '{path}' when it was killed while saving it "
        "(its process is gone)."
    )
    W064 = (
        "One occurrence of '{word}': the picture has no other occurrence to set it beside (its cosine "
        "matrices are one cell, its projection one point). Give texts in which the word occurs at least "
        "twice (and -n 2 or more)."
    )
    W065 = (
        "The pipeline {pipe_names} has {n} ctxvec_context components ({names}): they write the same "
        "doc._.ctxvec_context, so in nlp(text) the later replaces the earlier's vectors. Keep one, or run "
        "them one at a time on a Doc the transformer made (nlp.get_pipe(name)(doc)) to compare them."
    )
    W066 = (
        "The transformer '{transformer}' reads left to right (a decoder, such as GPT-2): a token's "
        "contextual vector takes in only the words before it, so a text's first words get the same "
        "vector whatever follows them, and self-similarity, corpus_polysemy and senses see one side "
        "of each context. For vectors that see both sides, use an encoder (BERT, RoBERTa, MiniLM...)."
    )
    W067 = (
        "The transformer '{transformer}' reads at most {max_length} wordpieces at once ({usable} "
        "after its special tokens), but its span getter's windows hold {window} spaCy tokens, each "
        "one wordpiece or more: the wordpieces past {usable} are cut off, so the tokens after them "
        "in every full window get no contextual vector ([CTX-W046]). Set a window well under {usable}, e.g. "
        "window = {suggested_window} and stride = {suggested_stride} in "
        "[components.transformer.model.get_spans]."
    )
    W068 = (
        "The transformer '{transformer}' is an encoder-decoder (T5, BART): spacy-transformers runs the "
        "whole model, so these contextual vectors are its decoder's states, not an encoder's ([CTX-E054] "
        "refuses such a model when a pipeline is made). Rebuild the pipeline on an encoder model."
    )
    W069 = (
        "{a}.similarity({b}) compares vectors of sizes {widths}: 0.0. With ctxvec_context's vector hooks, "
        "both need contextual vectors of one width: a Doc without them (read from a DocBin, or made by "
        "nlp.make_doc) gets them with spacy_ctxvec.add_vector_hooks(doc) after the pipeline ran on it; "
        "tokens split after the pipeline ran have none."
    )
    W070 = (
        "'{component}': the model read {examples} and the character beside each as one unknown "
        "piece {unk} (a word written without a space next to a character the tokenizer does not know, such as an "
        "emoji in 'bank\U0001f602' or a symbol in 'Tel:\u260e0123', is one run of characters to a WordPiece "
        "tokenizer): that piece does not hold the word, so such a word gets no "
        "contextual vector (a zero vector, has_context_vec False, no sense) and a lexicon does not count it. "
        "Put a space between them, or use a model that reads every character (a byte-level BPE model such as "
        "roberta-base)."
    )
    W071 = (
        "'{name}' looks words up by their lemma (key 'lemma'), but tokens of a Doc have no lemma: they get no "
        "polysemy_score or senses (count 0, as an unseen word). Add a lemmatizer before '{name}' (the one the "
        "lexicon was built with), "
        "or give Docs with lemmas."
    )
    W072 = (
        "{n} of the {n_types} word types counted are runs of a script written without spaces, e.g. {examples}: "
        "each is a clause, not a word, so {effect}.{hint}"
    )
    W073 = (
        "'{name}' is in more than one pipeline ({pipelines}: copied with add_pipe(source=...), the same object "
        "in each), and this Doc's vocab does not tell which one made it, so its vectors name no model "
        "(doc._.ctxvec_context_source) and a lexicon built with another model or other weights is not refused "
        "([CTX-E043]). Give each pipeline its own vocab (spacy.blank(...) or spacy.load(...) without vocab=...), "
        "or use ctxvec_transformer, which marks each Doc with its model."
    )
    W074 = (
        "The pipeline {pipe_names} has {n} ctxvec_polysemy components ({names}): they write the same "
        "doc._.ctxvec_polysemy and doc._.ctxvec_sense, so in nlp(text) the later replaces the earlier's scores "
        "and senses. Keep one, or run them one at a time (nlp.get_pipe(name)(doc)) to compare their lexicons."
    )
    W075 = (
        "The first {n_docs} texts of '{corpus}' hold one word type: the anisotropy baseline (the mean cosine "
        "between occurrences of different words) is undefined, so it is drawn as 0 and the adjusted curve is "
        "self-similarity itself. Give a corpus of many words."
    )
    W076 = (
        "No held-out estimate: {why}. The probe is fitted on every word with a sense count (--all-words), "
        "so nothing measures it on words it was not fitted on. For one, give sense counts for more of the "
        "lexicon's words, with different counts among them, or build the lexicon from a larger corpus."
    )
    W077 = (
        "{tokens} had no contextual vector (or a zero one) and {were} not counted, e.g. a word glued to a "
        "character the model cannot read ([CTX-W070]) or cut off by a window ([CTX-W046]). Where they matter, "
        "put a space between the word and the character, or split long documents."
    )
    W078 = (
        "ctxvec_transformer '{name}' has max_batch_items = {value} and a model that is not "
        "spacy-ctxvec.BucketedTransformerModel.v1: spacy-transformers' model pads one forward call to the longest "
        "of all the texts it is given, here whole buffers, which costs time and memory on mixed lengths. Set "
        "max_batch_items = {upstream} (spacy-transformers' default) beside that model, or use the bucketed one."
    )
    W079 = (
        "Layers {first} and {second} of {layers} in component '{name}' are the same hidden state ({index} of "
        "0..{last}): mean_layers weighs it twice, concat_layers repeats it. Name each layer once (a lexicon built "
        "with these layers records them: build it again after the change)."
    )
    W080 = (
        "The Ray cluster at {address} has {have} {resource} now, at most {largest} on one node, and each worker "
        "needs {per_worker} on one node: no worker can start until such nodes join (an autoscaler may add "
        "them), and the build waits. If none will "
        "join, stop it (Ctrl-C) and ask for less per worker (--gpus-per-worker 0: CPU workers), or join a "
        "cluster that has them."
    )
    W081 = (
        "The pipeline {pipe_names} has {n} ctxvec_static components ({names}): they write the same "
        "doc._.ctxvec_static and doc._.ctxvec_static_keys, so in nlp(text) the later replaces the earlier's "
        "vectors. Keep one, or run them one at a time (nlp.get_pipe(name)(doc)) to compare their tables."
    )
    W082 = (
        "spaCy has no stop-word list for the language '{lang}' of {where}, so {effect}. Set [nlp] lang to the "
        'text\'s language where spaCy has one (lang = "de" for German; "xx" has none), or give the words '
        "yourself: nlp.Defaults.stop_words is the list (for a command, set it in a Python file given with "
        "--code, e.g. spacy.lang.xx.MultiLanguage.Defaults.stop_words = {{...}})."
    )
    W083 = (
        "The checkpoint an interrupted build left in '{path}' ({shards}) is removed: this build counts from the "
        "first document, as asked without --resume (with --resume it would have gone on from that checkpoint)."
    )
    W084 = (
        "Corpus text decoded as {encoding} looks like text in another encoding: {files}. Its words would be "
        "counted garbled. {advice}"
    )
    W085 = (
        "Corpus directory '{path}': {files} not read, because each is a link that leads to no file (its target was "
        "moved or deleted, or the links loop): {names}. Point them at their files again, or remove them."
    )
    W086 = (
        "{path}: its last row ('{word}', {n_values} values) has no line end, so the file may have been cut short "
        "(a download or copy that stopped): then rows are missing and that row's last value may be cut. Compare "
        "the file's size with its source's; where the file is whole (written by hand), end it with a line break."
    )
    W087 = (
        "{path}: {n_words} an all-zero vector (first: '{word}'). A zero vector has no direction, so there is no "
        "cosine with it: `compare` shows n/a for such a word and `evaluate word-sim` leaves its pairs uncovered. "
        "Give those words their vectors, or remove their rows to make them unknown words."
    )
    W088 = (
        "'{name}' runs in two threads at once, and the transformer '{transformer}' before it has the model "
        "'{model}', whose forward calls are not run one at a time: each switches the shared model to eval mode and "
        "back, so calls that overlap can run with dropout on and give other vectors than one call alone, silently. "
        "Use the model 'spacy-ctxvec.BucketedTransformerModel.v1' (the shipped configs, or "
        'nlp.add_pipe("ctxvec_transformer", name="transformer")), which runs them one at a time; or give each '
        "thread its own nlp, or hold a lock around nlp(...)."
    )
    W089 = (
        "'{name}' looks tokens up by {lookups} only, and its table has no subwords: every token gets the zero "
        'vector (key "none"). Add "exact", "lower" or "norm" to [components.{name}] lookups, or give it a source '
        "with subwords (a fastText .bin file, or the transformer's input embeddings)."
    )
    W090 = (
        "{n_words} an all-zero centroid (first: '{word}'): the contextual vectors of its occurrences cancel "
        "(their sum is zero), so it is written as a zero vector, with "
        "no direction (--unit cannot give it length 1; reading the file back warns W087). Check the pipeline's "
        "pooling, or leave such words out when you use the file."
    )
    W091 = (
        "The tokenizer of '{transformer}' is a slow (Python) one, which gives no character offsets: "
        "spacy-transformers then aligns its wordpieces to spaCy's tokens by their strings, which gives some "
        "tokens a neighbour's wordpieces (byte-level BPE's 'Ġ' word starts, as in RoBERTa and GPT-2; accented "
        "words; '[UNK]'): their contextual vectors mix two words. Use the fast tokenizer: use_fast = true in "
        "[components.{transformer}.model.tokenizer_config] (the default), and assemble or train the pipeline "
        "again (a saved pipeline keeps its tokenizer: editing its config.cfg does not change it)."
    )
    W092 = (
        "In '{path}', {n} of {total} words end in a part-of-speech tag, e.g. '{example}': the pipeline reads "
        "the tag as part of the word ('love-n' is not 'love'), which lowers the correlation. Strip the tags "
        "first:\n    perl -pe 's/(?:-|_)(?:noun|verb|adj|adv|n|v|a|r|s|j)(?=[\\s,;]|$)//gi' {quoted_path} > pairs.txt"
    )
    W093 = (
        "The table of '{name}' holds sense vectors (keys such as '{example}', export-static --senses's rows): no "
        "token's text is such a key, so every token gets the zero vector (key \"none\"). Export the words' "
        "vectors instead (export-static without --senses) and give that file."
    )
