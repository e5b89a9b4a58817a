"""What each ctxvec component costs beside the transformer, timed on the Docs it made.

    python benchmarks/speed/component_costs.py [--sentences 1200] [--passes 5]

The default pipeline (configs/default.cfg, assembled in memory) on the first unique WiC
train sentences (``pipeline_floor.py``'s short sentences). Every pass runs the transformer
pipe over fresh Docs (timed too), then each ctxvec component's ``pipe`` in pipeline order,
each after a full garbage collection. Prints the median and fastest seconds per component.
Run it from two checkouts (``PYTHONPATH=CHECKOUT``) to compare versions.
"""

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import spacy  # noqa: E402
from pipeline_floor import wic_sentences  # noqa: E402
from thinc.api import Config  # noqa: E402

import spacy_ctxvec  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=1200)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    texts = wic_sentences(args.sentences)  # before the model: exits with one message without the data
    config = Config().from_disk(Path(spacy_ctxvec.__file__).parent / "configs" / "default.cfg")
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    list(nlp.pipe(texts))  # warm-up: the vocabulary, the model's first calls
    transformer = nlp.get_pipe("transformer")
    times: Dict[str, List[float]] = {name: [] for name in nlp.pipe_names}
    for _ in range(args.passes):
        docs = [nlp.make_doc(text) for text in texts]
        for name in nlp.pipe_names:
            pipe = transformer if name == "transformer" else nlp.get_pipe(name)
            gc.collect()
            start = time.perf_counter()
            docs = list(pipe.pipe(iter(docs), batch_size=nlp.batch_size))
            times[name].append(time.perf_counter() - start)
    print(f"{spacy_ctxvec.__file__}: {len(texts)} sentences, {args.passes} passes, seconds (median / fastest)")
    for name, values in times.items():
        print(f"  {name:18s} {statistics.median(values):.4f} / {min(values):.4f}")


if __name__ == "__main__":
    main()
