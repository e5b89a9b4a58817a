"""`spacy-ctxvec senses PIPELINE_OR_SENSES WORD...`: each induced sense of the words,
with its label (distinctive context words), share of the word's sample and example
snippets (word in [brackets]), and the word's corpus_polysemy. With --html OUT.html
--text "...": the text drawn with its senses by displaCy (analysis.sense_view); the words
with one sense only with --all-words."""

import functools
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import typer

from ..analysis.comparison import check_utf8, check_word
from ..analysis.sense_view import CLI_OPTIONS, SensePage, senses_html, why_nothing_drawn
from ..building.corpus import has_visible
from ..errors import CtxvecError, Errors, Warnings
from ..lexicon.sense_descriptions import describe_context, describe_split_rule
from ..lexicon.sense_inventory import SenseInventory
from ..lexicon.statistics import Lexicon
from ..ops.sense_evidence import MIN_SUPPORT
from ..ops.sense_evidence_tables import ONE_USE_TABLE
from ..ops.senses import is_word
from ..ops.text import count_of, printable, text_table, tsv_text
from ..output_files import HTML_PAGE
from ..outputs import check_output, write_text
from ..paths import composed
from ..saved_pipeline import existing_path, load_senses_and_lexicon, pipeline_lang
from ..terminal import shown_line
from ._app import (
    AS_JSON,
    OUTPUT_FORMAT,
    OVERWRITE_FILE,
    app,
    exit_on_coded_error,
    file_output,
    given_path,
    output_format,
    print_output,
    warn_on_stderr,
)

# Why a word shows no corpus_polysemy (ops.sense_evidence): too few sampled occurrences
# (occurrences that share a passage or a snippet count once).
NO_EVIDENCE = (
    "no corpus_polysemy (too few sampled occurrences: at least 2 x min_support (and 3) are needed, "
    "occurrences that share a passage or a snippet counting once)"
)
# Inventories saved before corpus_polysemy was kept have none for any word.
NOT_STORED = (
    "no corpus_polysemy (these senses were saved before it was kept: build the lexicon again with "
    "`spacy-ctxvec build-lexicon` to have it)"
)

# Above every threshold of ONE_USE_TABLE: a word scoring more was above its own n's (for
# inventories saved before each word's threshold was stored).
HIGHEST_SPLIT_THRESHOLD = max(row[-1] for row in ONE_USE_TABLE)


def one_sense_note(
    inventory: SenseInventory, n_senses: int, corpus_polysemy: Optional[float], threshold: Optional[float] = None
) -> Optional[str]:
    """Why a word above the evidence rule's split threshold (its own, ``threshold``, where
    the inventory stored it) keeps one sense (None otherwise)."""
    above = HIGHEST_SPLIT_THRESHOLD if threshold is None else threshold
    if n_senses != 1 or corpus_polysemy is None or corpus_polysemy <= above:
        return None
    if inventory.settings.get("split_rule") != "evidence":
        return None
    min_support = inventory.settings.get("min_support", MIN_SUPPORT)
    return (
        "above the split threshold, yet one sense: the two groups its evidence found in its sampled occurrences "
        f"are not both of at least min_support ({min_support}) occurrences, a line the corpus repeats counting "
        "once (a few odd occurrences raise corpus_polysemy without making a sense); more varied lines of the "
        "word give it more to split"
    )


def given_words(words: List[str]) -> List[str]:
    """The WORDs as typed, without surrounding whitespace and in NFC as the corpus was read
    (' Bank ' pasted: 'Bank'); an empty one is E414. Several words in one argument are kept,
    for the note that says to give them apart."""
    for word in words:
        check_utf8(word, "The word to show")
    return [check_word(word, "senses") if len(word.split()) < 2 else composed(word.strip()) for word in words]


def unique_words(inventory: SenseInventory, words: List[str]) -> List[str]:
    """``words`` with each inventory key once, in the first spelling given ("emma Emma": "emma")."""
    first: Dict[str, str] = {}
    for word in words:
        first.setdefault(inventory.key_of(word), word)
    return list(first.values())


def unknown_words(inventory: SenseInventory, words: List[str]) -> List[str]:
    """The ``words`` (each key once) that have no senses in ``inventory``."""
    return [word for word in unique_words(inventory, words) if inventory.key_of(word) not in inventory]


def seen_as(word: str, inventory: SenseInventory, lexicon: Optional[Lexicon], lang: Optional[str] = None) -> str:
    """'word', with how often the corpus held it and so why it has no senses, where a
    lexicon says ("seen 3 times, under min_count 5", "not in the corpus"; how a blank
    pipeline of language ``lang`` splits it, English where None); a WORD of several words
    says so (senses are of single tokens)."""
    parts = word.split()
    if len(parts) > 1:
        return f"{word!r} (is {len(parts)} words: senses are of one word each, so give them apart: {' '.join(parts)})"
    if lexicon is None:
        return repr(word)
    count = 0 if lexicon is None else lexicon.count_of(inventory.key_of(word))
    min_count = inventory.settings.get("min_count")
    if not count:  # a glued word had no vector; '#bank' was counted as its parts
        return f"{word!r} (not in the corpus, or never with a contextual vector{_split_note(word, lang or 'en')})"
    seen = "seen once" if count == 1 else f"seen {count} times"
    if isinstance(min_count, int) and count < min_count:
        return f"{word!r} ({seen}, under min_count {min_count})"
    if inventory.settings.get("words_only") and not is_word(word):
        return f"{word!r} ({seen}, no letter)"
    return f"{word!r} ({seen}, without sampled occurrences)"


@functools.lru_cache(maxsize=4)
def _blank_tokenizer(lang: str) -> Any:
    import spacy

    return spacy.blank(lang).tokenizer


def _split_note(word: str, lang: str) -> str:
    """The note for a WORD that is not one token of a blank pipeline of language ``lang``
    ('#bank': '#' + 'bank', each counted apart); "" otherwise, and where that language's
    tokenizer needs a package that is not installed (Korean's mecab-ko, Vietnamese's pyvi)."""
    try:
        tokens = [token.text for token in _blank_tokenizer(lang)(word)]
    except ImportError:
        return ""
    parts = " + ".join(repr(token) for token in tokens)
    return "" if len(tokens) < 2 else f"; spaCy splits it into {parts}, each counted apart"


def unknown_words_note(
    inventory: SenseInventory, unknown: List[str], source: Path, template: str, lexicon: Optional[Lexicon] = None
) -> str:
    """``template`` (E607 or W032) filled in for the ``unknown`` words (with their counts
    where ``lexicon`` is given)."""
    without_letter = [word for word in unknown if not is_word(word)]
    no_letter = (
        f" {', '.join(repr(w) for w in without_letter)} {'holds' if len(without_letter) == 1 else 'hold'} no "
        "letter: punctuation, numbers and symbols get "
        "no senses (words_only = true in [components.ctxvec_polysemy.induction])."
        if without_letter and inventory.settings.get("words_only")
        else ""
    )
    lang = None if lexicon is None else pipeline_lang(source)  # a lexicon comes from a saved pipeline
    return template.format(
        no_letter=no_letter,
        words=", ".join(seen_as(w, inventory, lexicon, lang) for w in unknown),
        why=(
            ""
            if lexicon is not None
            else f": not in the corpus, seen fewer than min_count={inventory.settings.get('min_count', '?')} times, "
            "or without sampled occurrences"
        ),
        path=source,
        key=inventory.settings.get("key", "lower"),
        min_count=inventory.settings.get("min_count", "?"),
        n_types=len(inventory),
    )


def describe_senses(
    inventory: SenseInventory, words: List[str], source: Path, lexicon: Optional[Lexicon] = None
) -> List[Dict[str, Any]]:
    """One entry per word that has senses: its key, number of senses, occurrences in the
    corpus (``lexicon``'s count; None without one), and each sense's share and examples
    (the others are left out: see unknown_words; a key given twice is listed once, in its
    first spelling); E607 when no word has senses."""
    unknown = unknown_words(inventory, words)
    words = [word for word in unique_words(inventory, words) if word not in unknown]
    if not words:
        raise CtxvecError(unknown_words_note(inventory, unknown, source, Errors.E607, lexicon))
    return [_entry(inventory, word, inventory.key_of(word), lexicon) for word in words]


def _entry(inventory: SenseInventory, word: str, key: str, lexicon: Optional[Lexicon]) -> Dict[str, Any]:
    n_senses, corpus_polysemy = inventory.n_senses(key), inventory.corpus_polysemy_of(key)
    judged, threshold = inventory.evidence_of(key)
    return {
        "word": word,
        "key": key,
        "n_senses": n_senses,
        "count": None if lexicon is None else (lexicon.count_of(key) or None),
        "corpus_polysemy": corpus_polysemy,
        "no_corpus_polysemy": None
        if corpus_polysemy is not None
        else (NOT_STORED if inventory.corpus_polysemy is None else NO_EVIDENCE),
        "judged": judged,
        "split_threshold": threshold,
        "note": one_sense_note(inventory, n_senses, corpus_polysemy, threshold),
        "senses": [
            {"sense": s.index, "label": s.label, "share": round(s.share, 6), "examples": s.examples}
            for s in inventory.senses_of(key)
        ],
    }


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def render(entries: List[Dict[str, Any]], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(entries, indent=2, ensure_ascii=False)
    if fmt == "tsv":
        cells: List[Tuple[Any, ...]] = [
            ("word", "sense", "share", "n_senses", "count", "corpus_polysemy", "examples", "label", "judged")
        ]
        for entry in entries:
            cells += [
                (
                    entry["word"],
                    s["sense"],
                    f"{s['share']:.4f}",
                    entry["n_senses"],
                    entry.get("count"),
                    "" if entry["corpus_polysemy"] is None else f"{round(entry['corpus_polysemy'], 4) + 0.0:.4f}",
                    " | ".join(_one_line(e) for e in s["examples"]),
                    s["label"],
                    entry.get("judged"),
                )
                for s in entry["senses"]
            ]
        return tsv_text(cells)
    parts = []
    for entry in entries:
        plural = "s" if entry["n_senses"] != 1 else ""
        body = "\n" + _aligned(_first_of_each_sense(entry), ("sense", "label", "share", "examples"), "rlrl") + "\n"
        evidence = entry["corpus_polysemy"]
        why_none = f", {entry.get('no_corpus_polysemy') or NO_EVIDENCE}"
        shown = (
            f", corpus_polysemy {round(evidence, 2) + 0.0:.2f}{_against(entry)}" if evidence is not None else why_none
        )
        seen = "" if entry.get("count") is None else f", seen {entry['count']} times"
        note = f"\n{entry['note']}" if entry.get("note") else ""
        word, key = printable(entry["word"]), printable(entry["key"])
        parts.append(f"{word} ({key}): {entry['n_senses']} sense{plural}{shown}{seen}{note}\n{body}")
    return "\n".join(parts)


def induction_footer(settings: Dict[str, Any], fmt: str) -> str:
    """The table's last line: how the senses were induced (their split rule, what was
    clustered, the most senses), from the inventory's recorded ``settings``."""
    if fmt != "table":
        return ""
    rule, clustered = describe_split_rule(settings), describe_context(settings)
    most = f"at most {settings['max_senses']} senses a word" if settings.get("max_senses") else ""
    return "\nInduced: " + "; ".join(part for part in (rule, clustered, most) if part) + "."


def _against(entry: Dict[str, Any]) -> str:
    """ " (splits above 1.07; 17 distinct occurrences judged)", from what the inventory stored."""
    parts = [] if entry.get("split_threshold") is None else [f"splits above {entry['split_threshold']:.2f}"]
    if entry.get("judged") is not None:
        parts.append(f"{entry['judged']} distinct occurrence{'s' if entry['judged'] != 1 else ''} judged")
    return f" ({'; '.join(parts)})" if parts else ""


def _aligned(rows: List[tuple], header: tuple, aligns: str) -> str:
    """``rows`` under ``header`` and a dashed divider, each column as wide as its longest
    cell in terminal cells (labels and examples of any length, CJK or emoji among them,
    stay in line: ops.text.text_table), without trailing spaces."""
    table = text_table([[str(cell) for cell in row] for row in rows], header, aligns)
    return "\n".join(line.rstrip() for line in table[1:-1].split("\n"))  # without its blank first and last lines


def _first_of_each_sense(entry: Dict[str, Any]) -> List[tuple]:
    """Table rows: the sense number, label and share on its first example's row only."""
    rows = []
    for s in entry["senses"]:
        for j, example in enumerate(s["examples"] or [""]):
            first = j == 0
            rows.append(
                (s["sense"] if first else "", s["label"] if first else "", f"{s['share']:.1%}" if first else "")
                + (_one_line(example),)
            )
    return rows


def drawn_note(page: SensePage, path: Path, all_words: bool, skip_stop_words: bool = False) -> str:
    """What --html wrote: the text's tokens, those with a sense, and which were drawn."""
    which = "every token with a sense" if all_words else "those of words with several senses (--all-words: all)"
    return (
        f"Wrote the text's {count_of(page.n_tokens, 'token')}, {page.n_with_sense} of them with a sense, to {path}; "
        f"drawn: {page.n_drawn}, {which}"
        + (f", {count_of(page.n_stop_words_left_out, 'stop word')} left out" if skip_stop_words else "")
    )


def nothing_drawn_note(page: SensePage) -> str:
    """W039: why --html drew no token (``page.n_drawn`` is 0)."""
    return Warnings.W039.format(why=why_nothing_drawn(page, *CLI_OPTIONS))


def check_options(
    words: Optional[List[str]],
    html: Optional[Path],
    text: Optional[str],
    all_words: bool,
    skip_stop_words: bool,
    fmt: str = "table",
) -> None:
    """E611 without WORDs or --html/--text, E613 for --html or --text alone, E614 for an
    empty --text, E615 for --all-words or --skip-stop-words without --html, E430 for JSON or
    TSV without WORDs (nothing to list)."""
    if html is None and text is None:
        if not words:
            raise CtxvecError(Errors.E611.format(given="no WORD, no --html and no --text"))
        for option, chosen in (("--all-words", all_words), ("--skip-stop-words", skip_stop_words)):
            if chosen:
                raise CtxvecError(Errors.E615.format(option=option))
    elif html is None or text is None:
        given, missing = ("--text", "--html OUTPUT.html") if html is None else ("--html", "--text 'TEXT'")
        raise CtxvecError(Errors.E613.format(given=given, missing=missing))
    else:
        if not words and fmt != "table":
            raise CtxvecError(Errors.E430.format(fmt=fmt))
        if html.suffix.lower() not in (".html", ".htm"):
            raise CtxvecError(Errors.E429.format(path=html))
        check_utf8(text, "The --text")
        if not has_visible(text):
            blank = "" if not text else " (whitespace only)" if not text.strip() else " (no character that shows)"
            raise CtxvecError(Errors.E614.format(blank=blank))


SOURCE = typer.Argument(
    ...,
    parser=given_path,
    help="Pipeline directory or installed package whose ctxvec_polysemy has senses, or a senses directory",
)
HTML = typer.Option(
    None,
    "--html",
    parser=file_output("senses.html"),
    help="Write --text drawn with its senses (displaCy, labels and scores) to this HTML file",
)
SKIP_STOP_WORDS = typer.Option(
    False, "--skip-stop-words", help="With --html, leave out the stop words of the pipeline's language (token.is_stop)"
)


@app.command("senses", short_help="Words' senses (label, share, examples), or a text's.")
@exit_on_coded_error
def senses_cli(
    source: Path = SOURCE,
    words: Optional[List[str]] = typer.Argument(
        None, help="Words to show (looked up with the senses' key mode, e.g. lowercased)"
    ),
    fmt: Optional[str] = OUTPUT_FORMAT,
    as_json: bool = AS_JSON,
    html: Optional[Path] = HTML,
    text: Optional[str] = typer.Option(None, "--text", help="The text to draw with --html (SOURCE: a pipeline)"),
    all_words: bool = typer.Option(
        False, "--all-words", help="With --html, also draw words with one sense (default: only the words split)"
    ),
    skip_stop_words: bool = SKIP_STOP_WORDS,
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Show the induced senses of words (label, share of the sample, example snippets), or
    with --html a text drawn with its tokens' senses."""
    fmt = output_format(fmt, as_json)
    check_options(words, html, text, all_words, skip_stop_words, fmt)
    words = given_words(words or [])
    existing_path(source)
    if html is not None:
        check_output(html, what="HTML file", inputs={"SOURCE": source}, overwrite=overwrite, replaceable=HTML_PAGE)
    if words:  # looked up first: a word without senses (E607) leaves no page written
        inventory, lexicon = load_senses_and_lexicon(source)  # a senses directory holds no lexicon: no counts
        described = render(describe_senses(inventory, words, source, lexicon), fmt)
    if html is not None and text is not None:
        page = senses_html(source, text, min_senses=1 if all_words else 2, skip_stop_words=skip_stop_words)
        write_text(html, page.html, what="HTML file", overwrite=overwrite)
        # on stderr where JSON or TSV of WORDs follows on stdout: that output stays parseable
        typer.echo(shown_line(drawn_note(page, html, all_words, skip_stop_words)), err=bool(words) and fmt != "table")
        if page.n_drawn == 0:  # the page is written all the same: the text, with nothing underlined
            warn_on_stderr(nothing_drawn_note(page))
        if not words:
            return
    print_output(described + induction_footer(inventory.settings, fmt), json_text=fmt == "json")
    unknown = unknown_words(inventory, words)
    if unknown:  # a note beside the words shown: on stderr, so that JSON and TSV output stays parseable
        warn_on_stderr(unknown_words_note(inventory, unknown, source, Warnings.W032, lexicon))
