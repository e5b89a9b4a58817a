"""Errors of the polysemy lexicon, corpora, builds and occurrence samples (E2xx)."""

# What is wrong with a bad corpus line: the {problem} of E212, E213 and E240 (E242's
# problems are formed where they are found). A line skipped with on_error="skip" is
# reported with its code and problem alone (W004), so the problem is kept apart here.
LINE_NOT_JSON = "not valid JSON ({error})"
LINE_NOT_A_ROW = 'expected an object with "text" (a string) or "words" (a list of strings), got {got}'
LINE_NOT_DECODED = "not valid {encoding} text ({error})"
# E240's advice: which encoding to pass (under cp1252 already, another one).
ENCODING_ADVICE = 'Pass the file\'s encoding (a Windows file: CLI --encoding cp1252, config encoding = "cp1252")'
ENCODING_ADVICE_CP1252 = (
    "The file is not cp1252 text either: pass its own encoding (CLI --encoding, config encoding; "
    "e.g. utf-16, cp1250, shift_jis; latin-1 reads every byte, so a cp1252 file with a few stray bytes too)"
)
# Said of an undecodable line whose bytes are UTF-8 (read with another encoding), and the advice then.
LINE_IS_UTF8 = "the line is valid UTF-8"
ENCODING_ADVICE_UTF8 = "The file is UTF-8: leave out --encoding (CLI) or encoding (config), UTF-8 is the default"
LINE_TOO_LONG = "a document of {n:,} characters, over the pipeline's nlp.max_length ({max_length:,})"


class LexiconErrors:
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
        "A raw vector component of magnitude {value:,.6g} exceeds {limit:,.6g}, the "
        "largest the lexicon's fixed-point sums hold at raw_scale_bits={bits}. Count another "
        "layer (build-lexicon --layer; a model's last layer usually passes a final layer norm, "
        "which keeps its values small), or, from Python, give Lexicon.from_occurrences a "
        "smaller raw_scale_bits (each step down doubles the limit)."
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
        "Lexicon.to_disk or `spacy-ctxvec build-lexicon`; a lexicon in a pipeline copied from elsewhere: copy "
        "the whole pipeline directory again."
    )
    E208 = (
        "min_count must be at least 2 (self-similarity needs two occurrences), got {min_count}. "
        "Set it to 2 or more where it was given: in a config (or a saved pipeline's config.cfg), min_count in "
        "[components.ctxvec_polysemy], checked as the pipeline loads, before build-lexicon's --min-count "
        "applies; on the command line, --min-count."
    )
    E209 = "merge_all got no lexicons and no width. Pass width= for an empty result."
    E210 = (
        "Corpus '{path}' {problem}. Give a .txt (one document per line), .jsonl "
        '(rows with "text" or "words") or .spacy (DocBin) file, or a directory of them.'
    )
    E211 = (
        "Corpus '{path}' contains no documents (blank lines do not count). Give a corpus with at least one "
        "non-empty document."
    )
    E212 = (  # {problem}: LINE_NOT_JSON
        "{path}, line {line}: {problem}. Fix that line, or pass "
        'on_error="skip" (CLI: --on-error skip) to skip and report bad lines.'
    )
    E213 = (  # {problem}: LINE_NOT_A_ROW
        '{path}, line {line}: {problem}. Fix that line, or pass on_error="skip" (CLI: --on-error skip).'
    )
    E214 = "Reading '{path}' makes Doc objects, which need a vocab. Pass nlp_vocab=nlp.vocab to iter_corpus."
    E215 = "on_error (--on-error) must be 'raise' or 'skip', got '{on_error}'."
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
        "'{name}' uses key '{key}'. Set key = \"{lexicon_key}\" on the component (a saved pipeline: in "
        "[components.{name}] of its config.cfg), or build the lexicon again with --key {key} from the config "
        "or pipeline it was built from (spacy-ctxvec build-lexicon CONFIG CORPUS NEW_OUTPUT --key {key})."
    )
    E221 = (
        "Checkpoint in '{path}' cannot continue this build: {problem}. {how_to_continue}; to count with "
        "what you gave instead, start over: rerun without --resume and with --overwrite "
        "(its {docs} counted documents are deleted), or into a new OUTPUT (and a new "
        "--checkpoint-dir, if you gave one)."
    )
    E222 = (
        "--n-process {n_process} with a GPU is not supported: each process would "
        "load the model on the same GPU. Use --n-process 1 with --gpu-id."
    )
    E223 = "Unknown build engine '{engine}'. Available engines: {choices}."
    E224 = (
        "Nothing to resume in '{path}': the build that wrote it finished (there is no checkpoint "
        "in '{checkpoints}'). Use '{path}' as it is, or rebuild it: rerun without --resume and "
        "with --overwrite."
    )
    E225 = (
        "No lexicon found at '{path}': {why}. Give a lexicon directory (lexicon.json, keys.json, "
        "*.npy) or a pipeline with a 'ctxvec_polysemy' component; build one with `spacy-ctxvec build-lexicon`."
    )
    E226 = (
        "{what} '{path}' holds an earlier output of build-lexicon or fit-polysemy. Choose a new "
        "directory, or pass --overwrite to replace it (the old one is kept until the new one is complete)."
    )
    E227 = "Component '{name}': give either lexicon_path or corpus in [initialize.components.{name}], not both."
    E228 = "{setting} must be {requirement}, got {value}."
    E229 = (
        "Key mode 'lemma': tokens of a document have no lemma (e.g. '{token}'): neither the Doc given nor "
        "a component of the pipeline {pipe_names} set one. Give Docs with lemmas (a .spacy DocBin), add "
        "or initialize a lemmatizer, or use key 'lower'."
    )
    E230 = "Unknown output format '{fmt}'. Choose one of: {choices}."
    E231 = (
        "Lexicon keys must be unique, but '{key}' appears {n} times. Rebuild the "
        "lexicon with spacy-ctxvec build-lexicon, or merge the duplicate rows first."
    )

    # Bad corpus input, owned directories and damaged saved state (E240-E259
    E232 = (
        "Cannot join a Ray cluster at {address}: {reason}.{auth} Start one with `ray start --head` "
        "(and pass the address it prints, e.g. --address 10.0.0.1:6379, from another machine), check that "
        "the host and port are right and reachable from here, or {local} to start a local Ray for this build."
    )
    E233 = (
        "'{path}' is a config file, but this command reads what `spacy-ctxvec build-lexicon` "
        "saves: a pipeline directory (or installed pipeline package) whose ctxvec_polysemy "
        "component has a lexicon, or a lexicon directory. A config file holds none: build one "
        "from it with `spacy-ctxvec build-lexicon {path} CORPUS OUTPUT` and give OUTPUT instead."
    )
    E234 = (
        "Corpus file '{path}' is binary, not text: it has {evidence}, which text in {encoding} "
        "does not (git and grep call such files binary). Remove it from the corpus or rename "
        "it out of .txt/.jsonl; if it is text in another encoding (e.g. UTF-16), pass --encoding; "
        "if it is text with a stray NUL, remove them (the command below) and give clean.txt; "
        'or pass on_error="skip" (CLI: --on-error skip) to leave such files out with a warning.{utf16}\n'
        "    tr -d '\\000' < {quoted_path} > clean.txt"
    )
    E235 = "Unknown tokenisation '{tokens}' for train-static (--tokens): choose one of {choices}."
    E236 = (
        "Corpus '{path}' has {n_docs} documents but no word: --tokens simple keeps only runs "
        "of letters and digits, and its lines hold none (punctuation or symbols only). Give "
        "a corpus of text, or pass --tokens spacy to keep spaCy's tokens, punctuation included."
    )
    E237 = (
        "lexicon_path '{path}' is a saved pipeline, not a lexicon directory. Give its "
        "lexicon folder, '{lexicon}', as lexicon_path, or load the whole pipeline with "
        "spacy.load('{path}')."
    )
    E240 = (  # {problem}: LINE_NOT_DECODED; {advice}: ENCODING_ADVICE[_CP1252 / _UTF8]
        "{path}, line {line}: {problem}. {advice}, fix "
        'that line, or pass on_error="skip" (CLI: --on-error skip) to skip and '
        "report undecodable lines."
    )
    E241 = (
        "Unknown text encoding '{encoding}' (or a codec that does not read text files, such as hex or idna). "
        "Give a Python codec name such as utf8, latin-1, cp1252 or utf-16."
    )
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
    E250 = (  # {how_to_continue}: "Continue that build with --resume", or why it cannot be
        "Checkpoint directory '{path}' holds {docs} documents an earlier run counted. "
        "{how_to_continue}; or pass --overwrite to start over (the "
        "checkpoint is deleted)."
    )
    E251 = (
        "Cannot write the checkpoint '{path}': a directory of that name holds files build-lexicon "
        "did not write there (see the warning above). Move them out and remove the directory, "
        "then continue with --resume."
    )

    # Occurrence samples of the lexicon (E260-E269
    E260 = (
        "The lexicon's occurrence sample: {problem}. Give one key, one priority (uint64), one snippet "
        "and one finite vector row per occurrence, and k >= 1."
    )
    E261 = (
        "Cannot merge occurrence samples with different {what}: {a!r} vs {b!r}. Merge "
        "only samples built with the same --sample-size from the same pipeline and "
        "spacy-ctxvec version (samples saved before context vectors, passage priorities or "
        "distinct snippets were kept have none: rebuild those parts)."
    )
    E262 = (
        "Occurrence sample at '{path}' cannot be read: {problem}. Save it again "
        "(rebuild the lexicon with `spacy-ctxvec build-lexicon --sample-size K`)."
    )
    E263 = (
        "Cannot merge a lexicon with an occurrence sample (k={a}) and one {b}. Build "
        "every part with the same --sample-size (0 for none)."
    )
    E264 = (
        "--skip-stop-words needs the language of the pipeline that built the lexicon, and "
        "'{path}' is not a saved pipeline naming one (a bare lexicon or senses directory "
        "holds no language). Give the pipeline directory or package build-lexicon wrote, "
        "or leave out --skip-stop-words."
    )
    E265 = (
        "build-lexicon ran out of memory ({detail}). Most of it goes to the transformer's batches and "
        "to counting each shard: lower --batch-size (documents per batch, e.g. 8), run one process "
        "(--n-process 1: each worker holds its own model), keep a smaller occurrence sample "
        "(--sample-size 16, or --no-sample-contexts), or use a machine with more memory "
        "(docs/polysemy-and-senses.md, 'Memory'); on a GPU, lower --batch-size or free the GPU's memory "
        "(nvidia-smi shows the processes holding it). {kept}"
    )
    E266 = (
        "build-lexicon ran out of memory after reading the corpus ({detail}), while scoring, inducing "
        "senses or saving OUTPUT. The {n} documents counted are kept in '{path}': free memory (close "
        "other programs) and run the same command again with --resume, which reads the counts from there."
    )
    E267 = (
        "build-lexicon ran out of memory loading the pipeline '{path}' ({detail}), before counting. "
        "The model needs its weights in memory: free memory (close other programs) or use a machine "
        "with more. {kept}"
    )
    E268 = (
        "Another build-lexicon or fit-polysemy is writing {what} '{path}' now. Two at once would remove "
        "each other's checkpoints and replace each other's output: wait for it to finish, or give this "
        "command another OUTPUT (and --checkpoint-dir)."
    )
    E269 = (
        "'{name}': the corpus reader in [initialize.components.{name}.corpus] {problem}. A corpus "
        "reader is a registered function that returns a function of the Vocab yielding texts (str) "
        "or Docs (or a Doc's doc.to_bytes()), as spacy-ctxvec.lexicon_corpus.v1 does."
    )
    E270 = (
        "A document of {n:,} characters (it starts {start!r}) is longer than the pipeline's nlp.max_length "
        "({max_length:,}), which spaCy does not read. Split it: a .txt corpus holds one document per line, so "
        "break long lines at paragraphs or sentences. (From Python, nlp.max_length = N lets a longer one through "
        "a pipeline you call.)"
    )
    E271 = (
        "Corpus file '{path}' decompresses to more than {limit:,} MiB, over {ratio} times its {size:,} bytes: it "
        "is not read, as spaCy would hold all of it in memory at once (a corpus that large, or a decompression "
        "bomb). Split the corpus into several .spacy files, e.g. DocBin(docs=part).to_disk(...) per part."
    )
    E272 = (  # {problem}: LINE_TOO_LONG
        "{path}, line {line}: {problem}, which spaCy does not read. Split that line at paragraphs or sentences "
        '(a .txt corpus holds one document per line), or pass on_error="skip" (CLI: --on-error skip) to skip '
        "and report such lines."
    )
    E273 = (
        "Component '{name}' has an empty lexicon, though [initialize.components.{name}] asks for one ({setting}): "
        "it is listed in [training] frozen_components, and spaCy does not initialize frozen components, so the "
        "lexicon was never built. Source it from a pipeline that has a lexicon ([components.{name}] source = "
        "\"PIPELINE\"), or remove '{name}' from frozen_components (annotating_components keeps it running) and "
        "train again; for a pipeline saved from such a training, build the lexicon with spacy-ctxvec build-lexicon."
    )
    E274 = (
        "Cannot merge lexicons whose raw sums have different scales (raw_scale_bits {a} and {b}): they were built "
        "by different versions of spacy-ctxvec (earlier ones summed in steps of 2**-20). Build the older one again "
        "with this version (spacy-ctxvec build-lexicon --overwrite), then merge."
    )
    E275 = (
        "Key mode 'lemma': the components that set lemmas ({setters}) all come after '{name}' in the pipeline "
        "{pipe_names}, so '{name}' would read every token before its lemma is set and find no word ([CTX-W071]), "
        "though a lexicon built with them counts lemmas. Move one before '{name}' (the order of [nlp] pipeline in "
        "the config, or nlp.add_pipe(..., before='{name}')), or use key 'lower'."
    )
    E276 = (
        "Corpus '{path}' has no document left: {lines} with text, all skipped as invalid (the first, "
        "{first}: {reason}). Fix those lines (where they are not UTF-8: read the corpus in its encoding, --encoding)."
    )
    E277 = (
        "{path}: not valid {encoding} text as a whole ({error}): no line of it can be read, so neither "
        "fixing a line nor skipping bad lines helps. {advice}"
    )
