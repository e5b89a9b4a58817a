"""Errors of evaluation, plots, projects, engines, senses, the probe, outputs and readers (E3xx-E7xx)."""

# E606's way to senses: count a corpus, or (a lexicon that keeps its occurrence sample) induce them from it.
BUILD_SENSES_FIX = (
    "Build them with `spacy-ctxvec build-lexicon PIPELINE CORPUS OUTPUT` (without --no-senses or --sample-size 0)."
)
SENSES_FROM_SAMPLE_FIX = (
    "Its lexicon keeps an occurrence sample, so no corpus is needed: induce them with `nlp = spacy.load('{path}'); "
    "nlp.get_pipe('{name}').build_senses(); nlp.to_disk(NEW_FOLDER)`."
)


class CommandErrors:
    # Evaluation (E3xx)
    E301 = "{problem}: '{path}'. {hint}"
    E302 = "{path}, line {line}: expected {expected}, got: {got!r}. Fix or remove that line."
    E303 = (
        "{path}, line {line}: target index {index} is outside {sentence} "
        "({n_tokens} {tokens}; indices are 0-based). Fix the index."
    )
    E304 = (
        "{gold} has {n_gold} labels but {data} has {n_data} examples; the two files "
        "must be line-aligned (one T/F label per example)."
    )
    E305 = "{path} has no usable rows (blank lines are skipped). Give {expected}."
    E306 = (
        "Fitting a WiC decision needs both labels in the train split, but it has "
        "{n_true} T and {n_false} F examples. Use the full official train split (with "
        "--max-examples, a larger N: the first N examples may all share one label)."
    )
    E307 = "The pipeline {pipe_names} has no '{component}' component, which this command needs for {attribute}. {hint}"
    E308 = "Split '{split}' is unknown. Choose one of: {choices}."
    E309 = (
        "Choosing a WiC decision by cross-validation grouped by target word needs at "
        "least 2 different target words in the train split, but it has {n_groups}. "
        "Use the full official train split (with --max-examples, a larger N)."
    )
    E310 = (
        "Choosing a WiC decision by {n_folds}-fold cross-validation grouped by target word needs both "
        "labels in the training part of every fold, but holding out the fold of {words} leaves only "
        "{label} examples of the {n_train} in the train split. Use the full official train split "
        "(with --max-examples, a larger N)."
    )
    E320 = (
        "{name}: Spearman's rho is undefined: only {n_covered} of {n_pairs} pair(s) have vectors "
        "for both words, and it needs at least {minimum}. Give a file with more pairs, or a "
        "pipeline whose vectors cover more of its words."
    )
    E321 = (
        "{name}: Spearman's rho of polysemy_score with sense counts is undefined: only "
        "{n_covered} scored word(s) have a sense count, and it needs at least {minimum}. Give a "
        "sense-count file that covers more of the lexicon's words, or build the lexicon from a "
        "larger corpus (or use a smaller --min-count)."
    )
    E322 = (
        "The pipeline at '{path}' has a '{name}' component but it has no lexicon yet. Build "
        "one with `spacy-ctxvec build-lexicon {path} CORPUS OUTPUT` and give OUTPUT instead."
    )
    E323 = (
        "{name}: Spearman's rho is undefined: all {n_covered} pairs with vectors have the same "
        "human score ({value:g}), so there is no ranking to compare the cosines with. Check that "
        "the file's score column is the one meant, and give pairs whose scores differ."
    )
    E324 = (
        "{name}: Spearman's rho is undefined: the vectors give all {n_covered} covered pairs the "
        "same cosine ({value:.6g}), so they rank no pair above another. Check that the file holds more than "
        "one distinct pair, and that the pipeline's vectors are not all zero or all the same (e.g. an "
        "uninitialised or constant table)."
    )
    E325 = (
        "The word-pair file '{second}' is the same file as '{first}', given earlier: each file "
        "is evaluated once and reported under its path. Give each file once."
    )
    E326 = (
        "{name}: Spearman's rho of polysemy_score with sense counts is undefined: all "
        "{n_covered} scored words with a sense count have the same number of senses ({value:g}), "
        "so there is no ranking to compare the scores with. Check that the file's second column "
        "is each lemma's total sense count (e.g. sense_counts.tsv), and give one that covers "
        "words with different counts (or build the lexicon from a larger corpus)."
    )
    E327 = (
        "{name}: Spearman's rho of polysemy_score with sense counts is undefined: polysemy_score "
        "({score}) is the same ({value:.6g}) for all {n_covered} scored words with a sense count, "
        "so it ranks no word above another. Build the lexicon with `spacy-ctxvec build-lexicon` "
        "from a larger corpus in which the words occur in varied contexts (for score 'probe', "
        "also refit the probe with `spacy-ctxvec fit-polysemy`)."
    )
    E328 = (
        "{path}, line {line}: this is not a word-pair file: it looks like {looks_like}; got: "
        "{got!r}. `evaluate word-sim` expects {expected}. Give a word-similarity file (e.g. "
        "SimLex-999's EN-SIMLEX-999.txt); sense counts are for `evaluate polysemy` and "
        "`fit-polysemy`, which read a lemma and its total sense count per line (e.g. sense_counts.tsv)."
    )
    E329 = (
        "{path}, line {line}: this is not a table of sense counts per lemma: it looks like {looks_like}; "
        "got: {got!r}. `evaluate polysemy`, `fit-polysemy` and `plot polysemy --sense-counts` need "
        "each lemma's total sense count over all parts of speech: {expected}. Give the table of "
        "totals (e.g. sense_counts.tsv: lemma, total, then the count per part of speech)."
    )
    E330 = (
        "The pipeline's '{name}' component has {what}, which {purpose} needs. Build one with "
        "`spacy-ctxvec build-lexicon {pipeline} CORPUS OUTPUT` and give OUTPUT instead."
    )
    # Plots, comparisons and projects (E4xx)
    E401 = "Cannot save a figure as '{path}': the file name must end in .png, .svg or .pdf."
    E402 = (
        "The word '{word}' does not occur in {source} with a contextual vector ({texts_read} read; matching "
        "{matching}{unread}). Check the spelling{case_hint}, or give texts that contain it.{script_hint}"
    )
    E403 = "Give exactly one input: --sentences FILE (one sentence per line) or --corpus FILE (.txt, .jsonl or .spacy)."
    E404 = "Sentences file {problem}: {path}. Give a UTF-8 text file with one sentence per line{advice}."
    E405 = 'The pictures need matplotlib, which is not installed. Install it with: pip install "spacy-ctxvec[plot]"'
    E407 = (
        "Per-layer curves need every hidden state, but the transformer model of '{name}' "
        "returned one layer only, though it was asked for all of them. Use a model that "
        "returns its hidden states (a Hugging Face encoder such as BERT's)."
    )
    E408 = (
        "No word type occurs at least {min_count} times in {n_docs} texts of "
        "{corpus}, so self-similarity is undefined. Give a larger corpus or a "
        "smaller --min-count."
    )
    E410 = (
        "No word has a polysemy score (at least {min_count} occurrences) in "
        "'{path}'. Lower --min-count or build the lexicon from a larger corpus.{no_letter}"
    )
    E411 = "Cannot plot an empty set of {what}. Give at least {minimum}."
    E412 = (
        "--clusters must be 0 (the pipeline's induced senses where it has them, else k chosen by silhouette) "
        "or between 1 and the number of occurrences ({n}); got {k}."
    )
    E413 = (
        "Text {name} is {what}, so it has no word to compare. Give two texts that share at least "
        'one word, e.g. `spacy-ctxvec compare "I have a apple" "I have a pen" --word a`.'
    )
    E414 = "The word {role} is {what}: {purpose} one word. Give it, e.g. {example}."
    E415 = "'{word}' is {n} {units} ({tokens}), and {purpose} a single token. Give one word, e.g. '{example}'."
    E416 = (
        "--sentences '{path}' is a directory; --sentences reads one text file with one sentence per "
        "line. Give such a file, or --corpus {path} to read every .txt (one text per line), .jsonl "
        "and .spacy file in the directory."
    )
    E417 = (
        "{options}: for --corpus files only; the --sentences file '{path}' is read as UTF-8, one sentence "
        "per line. To decode it with --encoding or skip bad lines with --on-error skip, give it as "
        "--corpus {corpus_path}{rename} (a .txt file is read one text per line)."
    )
    E418 = (
        "{what} is not UTF-8 text: it holds {byte} (a terminal set to another encoding, such as Latin-1, "
        "or a script that wrote the text in one, passes such bytes). Pass it as UTF-8: set the terminal "
        'or script to UTF-8, or convert it, e.g. "$(printf %s "$TEXT" | iconv -f cp1252 -t utf-8)".'
    )
    E419 = (
        "--code {path}: {problem}. Pass a Python file that imports cleanly on its own (python {path}): "
        "it runs before the command, so that the functions it registers (@spacy.registry.misc, ...) "
        "are found by pipelines and configs."
    )
    E420 = (
        "OUTPUT '{path}' is named like a word2vec binary file ({suffix}), but {command} writes word2vec text "
        "without --binary: gensim's load_word2vec_format(..., binary=True) and other tools would fail on it. "
        "Add --binary, or name it .txt (or .txt.gz)."
    )
    E421 = (
        "--min-count {min_count} does not apply with --senses: the senses were induced for the words seen at "
        "least the senses' own min_count ({senses_min_count}) times, and every one of them is written. Leave "
        "--min-count out; to keep fewer words, build the lexicon with `build-lexicon --min-count N`, N above "
        "{senses_min_count}."
    )
    E422 = (
        "The output could not be written to standard output ({error}): it was closed (the command was "
        "started with >&-), or the disk or device it is redirected to is full or failing. Redirect it to a file "
        "on a disk with space (or to /dev/null to discard it), or leave it on the terminal."
    )
    E423 = (
        "{what} '{path}' exists and is not {kind} (it starts with {start!r}), so --overwrite does not replace "
        "it: it may be a corpus or another file of yours. Choose another path, or move that file away first."
    )
    E424 = (
        "No occurrences of '{word}' to draw: the texts given to collect_occurrences hold none with a contextual "
        "vector. Give texts that contain the word (as the pipeline's tokenizer splits it)."
    )
    E425 = (
        "OUTPUT '{path}' is named like a word2vec text file ({suffix}), but {command} --binary writes word2vec "
        "binary: gensim's load_word2vec_format('{path}') (binary=False, its default) and other tools would fail "
        "on it. Name it .bin (or .bin.gz), or drop --binary."
    )
    E426 = (
        "--json and --format {fmt} ask for two outputs. Give one: --json (the same as --format json) or --format {fmt}."
    )
    E427 = (
        "--code was given more than once ({files}): a command imports one file. Import the others from it "
        "(import my_other_functions), or give the one the command needs."
    )
    E428 = (
        "'{path}' is a URI, and the command line reads local files and folders. Copy it here first; a corpus in "
        "object storage is read by the Python API's Ray engine: build_lexicon_ray(nlp, '{path}') "
        "(docs/scaling.md)."
    )
    E429 = (
        "Cannot write the senses page to '{path}': the file name must end in .html or .htm, the ending by "
        "which a browser and a file manager open it as a web page."
    )
    E430 = (
        "--format {fmt} (or --json) lists the WORDs' senses on standard output, and no WORD is given: with "
        "--html and --text alone the command writes the page only. Give WORDs, or leave out --format / --json."
    )

    # Build engines (E5xx)
    E501 = (
        "Corpus file '{path}' cannot be read: {error}. Check that it exists, that the "
        "Ray workers can read it (on a cluster: a path every node sees, or a URI such "
        "as s3://...) and that it is UTF-8 text, JSON lines or a DocBin."
    )
    E502 = (
        "The 'ray' engine needs Ray Data, which cannot be imported ({error}). Install "
        'it with spacy-ctxvec\'s extra: pip install "spacy-ctxvec[ray]" (from a clone: pip install -e ".[ray]")'
    )
    E503 = (
        "A local Ray on this machine has {have} CPUs, but {workers} with "
        "{per_worker} CPU each need {need}. Each worker loads its own copy of the pipeline, "
        "so workers beyond the CPUs only share them and add memory. Use {advice}, or "
        "join a cluster with more CPUs (--address)."
    )
    E504 = (
        "{where} has {have}, but {demand}. Use {advice}, or a bigger cluster (--address of a cluster with more nodes)."
    )
    E505 = "The ray engine does not support {option}: {reason}."
    E506 = (
        "{option} is a setting of the ray engine, and this build uses the {engine} engine. "
        "Add --engine ray to use it, or leave it out."
    )
    E507 = (
        "Ray is already initialised in this process (its cluster: {running}), so address '{address}' is not "
        "joined: the build would run on the Ray already initialised. Call ray.shutdown() first to join "
        "'{address}', or leave address unset to build on the Ray already initialised."
    )
    E508 = (
        "build_lexicon_ray needs a loaded pipeline (a spacy Language), got {given}. Load it first: "
        "spacy_ctxvec.pipelines.load_pipeline(PATH) for a directory, package or .cfg, or spacy.load(NAME)."
    )
    E509 = (
        "Ray's workers could not start on a node of the cluster ({reason}). {advice}, then run the command "
        "again. The build stopped; nothing was saved."
    )
    E520 = (
        "Ray node(s) {nodes} left the cluster during the build, and the {n_left} node(s) "
        "left have {have} {resource}: {workers} with {per_worker} {resource} "
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

    # Senses (E6xx): sense induction, the sense inventory, sense commands
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
        "or sample_size > 0 in [initialize.components.{name}], or pass --no-senses (build-lexicon) or set "
        "senses = false in [components.{name}]."
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
    E606 = (  # {fix}: BUILD_SENSES_FIX, or SENSES_FROM_SAMPLE_FIX where the lexicon keeps a sample
        "No senses found at '{path}': it is neither a senses directory nor a pipeline "
        "whose ctxvec_polysemy component saved senses. {fix}"
    )
    E607 = (
        "No senses for {words} in '{path}' (key mode '{key}'){why}.{no_letter} {n_types} words have senses. "
        "A word gets senses from a build-lexicon corpus that holds it at least --min-count times (and "
        "--sample-min-count, where set), on varied lines: build from a larger corpus, or with lower "
        "counts."
    )
    E608 = "Unknown sense setting(s) {names}. The settings are: {choices}."
    # Senses decided by the corpus (E610-E629
    E610 = (
        "Sense evidence setting {setting} must be {requirement}, got {value!r}. What each setting "
        "does and its default: the docstrings of spacy_ctxvec.ops.sense_evidence (corpus_evidence, "
        "split_evidence in ops.split_significance)."
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
    E613 = (
        "`spacy-ctxvec senses` got {given} without {missing}: --html OUTPUT.html and "
        "--text 'TEXT' go together (the text drawn with its senses, written to the HTML "
        "file). Add {missing}, or leave out {given} to list the WORDs' senses alone."
    )
    E614 = (
        "The --text to draw is empty{blank}: nothing was written. Give the text whose "
        "senses to draw, e.g. --text 'We sat on the bank of the river.'"
    )
    E615 = (
        "{option} only applies with --html OUTPUT.html --text 'TEXT' (it chooses the "
        "tokens drawn); the WORDs' senses are listed in full "
        "without it. Leave out {option}, or add --html and --text."
    )
    E616 = (
        "'{path}' does not exist. Give a pipeline directory or installed pipeline "
        "package built with `spacy-ctxvec build-lexicon`, or a senses directory."
    )
    E617 = (
        "{function} takes one spaCy Doc run through a pipeline with senses, got {kind}. "
        "Run the text through the pipeline first (doc = nlp(text)); for several Docs, "
        "call it on each one."
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
        'The score "probe" (score = "probe" in the config, or --score probe) cannot compute '
        "polysemy_score: {problem}. Fit a probe for this pipeline's lexicon with `spacy-ctxvec fit-polysemy "
        'PIPELINE SENSE_COUNTS OUTPUT`, or use the score "auto" (the probe where one fits, else '
        'self-similarity) or "self_similarity".'
    )
    E652 = (
        "Polysemy probe at '{path}' cannot be read: {problem}. Fit it again with "
        "`spacy-ctxvec fit-polysemy`, or copy the saved directory again."
    )
    E653 = (
        "Only {n_words} word types {fitted_on} have at least {min_count} occurrences "
        "and a sense count; a probe needs at least {minimum}. Build the lexicon from a "
        "larger corpus{lower}, or check that the sense-count file's words "
        "match the lexicon's keys (lower case by default)."
    )
    E654 = "Unknown polysemy score '{score}'. Choose one of: {choices}."
    E655 = (
        "All {n_words} word types {fitted_on} with at least {min_count} occurrences and "
        "a sense count have the same number of senses ({value}), so a probe has nothing to "
        "fit. Check that the sense-count file's second column is each lemma's total sense "
        "count (e.g. sense_counts.tsv), and give one that covers words with different counts."
    )
    E656 = (
        "The polysemy probe was fitted on words keyed by '{probe_key}', but component '{name}' keys them "
        "by '{key}', so it cannot be set. Fit a probe for this pipeline with `spacy-ctxvec fit-polysemy "
        "PIPELINE SENSE_COUNTS OUTPUT` (it keys words as the pipeline's component does)."
    )

    # Saved polysemy state (E660-E689): parts of a saved ctxvec_polysemy that disagree
    E660 = (
        "The saved ctxvec_polysemy state at '{path}' does not match itself: {problem}. "
        "Save the pipeline again from a working copy, or rebuild it with "
        "`spacy-ctxvec build-lexicon` (and `spacy-ctxvec fit-polysemy` for a probe)."
    )

    # Outputs (E700-E739: one rule for every command that writes (spacy_ctxvec/outputs.py)
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
        "yours (an edit is work too). Keep what you need elsewhere and remove the directory, or choose a new one."
    )
    E705 = (
        "The path is empty (''), e.g. an unset shell variable. Give a path: a file or folder name "
        "such as ./vectors.txt or ./lexicon for an output, '.' for the current directory as an input."
    )
    E706 = (
        "'{path}' ends with '{slash}', which names a directory, but a file is written here. "
        "Name a file inside that directory, e.g. '{example}'."
    )
    E707 = (
        "'-' names standard input or output, which spacy-ctxvec commands do not read or write: give a "
        "file path (write './-' for a file named '-')."
    )
    E708 = (
        "'{path}' starts with '{tilde}', which only an unquoted shell word expands to {whose} home directory: "
        "quoted, it names a folder '{tilde}' here. Write the home directory out ({how}) or leave the path "
        "unquoted; write './{path}' for a folder named '{tilde}'."
    )

    # Silent results and bounded readers (E740-E759
    E740 = (
        "Corpus '{path}' has no document with a visible character: its {n_invisible} non-blank "
        "lines or documents hold only whitespace, zero-width, format or control characters "
        "(e.g. U+200B). Give a corpus with words in it."
    )
    E741 = (
        "Corpus '{path}': {n_docs} documents were read, but none of their tokens got a "
        "contextual vector, so the lexicon would be empty. The transformer finds no "
        "wordpiece in tokens made only of characters it drops (zero-width, control or "
        "combining characters, whitespace words). Give a corpus with words the model reads (or, where a "
        "pooling of your own is configured, check that it gives tokens non-zero vectors)."
    )
    E742 = "{path}, line {line}: {what} is {value}, outside {bounds}. Fix or remove that line."
    E743 = "Nothing to export: {problem}, so no vectors file was written. {fix}"
