"""The benchmark scripts without their data, --quick's outputs, the temporary pipeline folder
and the generated report's wording: no model runs here."""

import importlib
import json
import os
import subprocess
import sys

import pytest

from .conftest import REPO_ROOT


@pytest.fixture(scope="module")
def bench():
    """The benchmarks package of this checkout (not installed: the scripts put the repository on sys.path)."""
    added = str(REPO_ROOT) not in sys.path
    if added:
        sys.path.insert(0, str(REPO_ROOT))
    try:
        modules = {
            name: importlib.import_module(f"benchmarks.{name}")
            for name in ("data", "methods", "speed.run_all", "speed.report")
        }
    finally:
        if added:
            sys.path.remove(str(REPO_ROOT))
    return modules


def test_require_data_exits_with_one_message_naming_the_path_and_the_variables(bench, tmp_path):
    data = bench["data"]
    missing = tmp_path / "no_such_folder"
    with pytest.raises(SystemExit) as exit_info:
        data.require_data(missing)
    message = str(exit_info.value.code)
    assert str(missing) in message and "does not exist" in message and "\n" not in message
    assert "../shared/data beside the repository" in message
    assert "CTXVEC_SHARED_DATA" in message and "CTXVEC_GUTENBERG_DIR" in message


def test_gutenberg_dir_needs_books_and_corpus_sentences_reads_them(bench, tmp_path):
    data = bench["data"]
    (tmp_path / "NLTK_gutenberg_README.txt").write_text("not a book\n", encoding="utf8")
    with pytest.raises(SystemExit, match="holds no books"):
        data.gutenberg_dir(tmp_path)
    with pytest.raises(SystemExit, match="holds no books"):
        data.corpus_sentences(tmp_path)
    (tmp_path / "book.txt").write_text("Title line\n\nThe bank of the river was steep and green.\n", encoding="utf8")
    assert data.gutenberg_dir(tmp_path) == tmp_path
    assert data.corpus_sentences(tmp_path) == ["The bank of the river was steep and green."]
    with pytest.raises(SystemExit, match="Asked for 2 sentences"):
        data.sample_sentences(2, corpus_dir=tmp_path)


def test_data_folders_follow_the_environment_variables(tmp_path):
    code = "from benchmarks import data; print(data.SHARED_DATA); print(data.GUTENBERG_DIR)"
    env = {k: v for k, v in os.environ.items() if k not in ("CTXVEC_SHARED_DATA", "CTXVEC_GUTENBERG_DIR")}
    default = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    shared = REPO_ROOT.parent / "shared" / "data"
    assert default.stdout.split() == [str(shared), str(shared / "corpus_gutenberg")], default.stderr
    env["CTXVEC_SHARED_DATA"] = str(tmp_path)
    moved = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert moved.stdout.split() == [str(tmp_path), str(tmp_path / "corpus_gutenberg")], moved.stderr
    env["CTXVEC_GUTENBERG_DIR"] = str(tmp_path / "books")
    books = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert books.stdout.split() == [str(tmp_path), str(tmp_path / "books")], books.stderr


@pytest.mark.parametrize(
    "script",
    [
        ["benchmarks/speed/stream_memory.py", "--paragraphs", "20", "--batch-sizes", "64"],
        ["benchmarks/speed/pipeline_floor.py", "--rounds", "1"],
        ["benchmarks/speed/lexicon_induction_cost.py", "--rounds", "1"],
        ["benchmarks/speed/run_all.py", "--quick"],
    ],
)
def test_scripts_without_the_data_exit_with_the_message_and_no_traceback(script, tmp_path):
    missing = tmp_path / "missing"
    env = {
        **os.environ,
        "CTXVEC_SHARED_DATA": str(missing),
        "CTXVEC_GUTENBERG_DIR": str(missing),
        "HF_HUB_OFFLINE": "1",
    }
    done = subprocess.run(
        [sys.executable, *script], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode != 0
    assert "Benchmark data not found" in done.stderr and str(missing) in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


def test_quick_writes_no_file_unless_asked(bench, tmp_path):
    run_all = bench["speed.run_all"]
    quick = run_all.parse_args(["--quick"])
    assert quick.output is None and quick.tables is None and quick.sentences == 60 and quick.rounds == 1
    asked = run_all.parse_args(["--quick", "--output", str(tmp_path / "R.md")])
    assert asked.output == tmp_path / "R.md" and asked.tables is None
    full = run_all.parse_args([])
    assert full.output == run_all.RESULTS_PATH and full.tables == run_all.TABLES_PATH


def test_temp_pipeline_dir_is_removed_on_error_too(bench):
    methods = bench["methods"]
    with methods.temp_pipeline_dir() as path:
        (path / "config.cfg").write_text("[nlp]\n", encoding="utf8")
    assert not path.exists()
    with pytest.raises(RuntimeError):
        with methods.temp_pipeline_dir() as failed:
            (failed / "model").mkdir()
            raise RuntimeError("a benchmark failed")
    assert not failed.exists()


def _speed_row(method, cpu_vs_bucketed, cpu_vs_sorted):
    return {
        "method": method,
        "cpu_vs_bucketed": cpu_vs_bucketed,
        "vs_bucketed": cpu_vs_bucketed,
        "cpu_vs_sorted": cpu_vs_sorted,
        "vs_sorted": cpu_vs_sorted,
        "cpu_s": 1.0,
        "wall_s": 1.0,
        "tokens_per_s": 1.0,
    }


def test_report_says_where_the_peak_is_and_which_floor_the_target_uses(bench):
    report = bench["speed.report"]
    results = {
        "speed": [
            _speed_row(report.FLOOR_BUCKETED_KEY, 1.0, 1.16),
            _speed_row(report.FLOOR_SORTED_KEY, 0.86, 1.0),
            _speed_row(report.PIPELINE_KEY, 0.85, 0.98),
        ],
        "memory": {
            report.PIPELINE_KEY: {"n_tokens": 10, "peak_rss_mb": 966.3, "peak_after_load_mb": 966.3},
            report.PIPELINE_BEFORE_KEY: {"n_tokens": 10, "peak_rss_mb": 1394.4, "peak_after_load_mb": 966.3},
        },
    }
    rows = {row[0]: row for row in report.memory_rows(results)}
    assert rows[report.PIPELINE_KEY][-1] == "at the model load (the run stays under it)"
    assert rows[report.BEFORE_LABEL][-1] == "during the run (966 after the load)"
    target = report.target_lines(results)[0]
    assert "bucketed floor (the reference row" in target and "CPU 0.85x (met)" in target
    assert "best floor of this run, length-sorted in batches of 32: CPU 0.98x" in target
    results["speed"][1] = _speed_row(report.FLOOR_SORTED_KEY, 1.1, 1.0)
    assert "bucketed floor was faster" in report.target_lines(results)[0]
    assert report.summary_lines(results)[0].startswith("| method |")


def test_a_failed_memory_probe_leaves_the_memory_target_not_measured(bench):
    """The memory target's line vanished when a probe failed (only an "error:" row was left)."""
    report = bench["speed.report"]
    results = {
        "speed": [_speed_row(report.FLOOR_BUCKETED_KEY, 1.0, 1.0), _speed_row(report.PIPELINE_KEY, 0.85, 0.98)],
        "memory": {report.PIPELINE_KEY: {"error": "MemoryError"}, report.PIPELINE_BEFORE_KEY: {"n_tokens": 10}},
    }
    assert "upstream batching: not measured (a memory probe failed)" in "\n".join(report.target_lines(results))
    results["memory"] = {}  # --no-subprocess: none ran, none failed
    assert "upstream batching: not measured (no memory probes ran)" in "\n".join(report.target_lines(results))


def test_quick_report_lines_leave_the_raw_json_out(bench):
    report = bench["speed.report"]
    text = (REPO_ROOT / "benchmarks" / "speed" / "RESULTS.md").read_text(encoding="utf8")
    results = json.loads(text.split("```json", 1)[1].split("```", 1)[0])
    command = "python benchmarks/speed/run_all.py --quick"
    lines = report.report_lines(results, ["- machine"], command, raw_json=False)
    assert "```json" not in "\n".join(lines) and "## Speed" in lines
    assert "```json" in "\n".join(report.report_lines(results, ["- machine"], command))
