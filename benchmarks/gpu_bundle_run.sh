#!/usr/bin/env bash
# On the GPU machine, from the repository root: unpack what benchmarks/gpu_bundle.sh made,
# check the stack sees the GPU, run gpu_check.py then gpu_profile.py (fp32); results in
# $OUT (seven files: within what the device tool brings back). SKIP_CHECK=1 skips gpu_check.py.
set -o pipefail
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
BUNDLE=.gpu_bundle
OUT=${OUT:-/tmp/ctxvec_gpu_out}
mkdir -p /tmp/ctxvec_gpu_site "$OUT"
tar -xJf "$BUNDLE/site.tar.xz" -C /tmp/ctxvec_gpu_site || exit 3
tar -xJf "$BUNDLE/model.tar.xz" -C /tmp || exit 3
export PYTHONPATH=/tmp/ctxvec_gpu_site CTXVEC_GUTENBERG_DIR=$PWD/$BUNDLE/corpus
python3 - <<'PY' || exit 4
import shutil
from safetensors.numpy import load_file, save_file

source, target = "/tmp/model_fp16", "/tmp/ctxvec_gpu_model"
shutil.copytree(source, target, dirs_exist_ok=True)
weights = load_file(source + "/model.safetensors")
full = {k: v.astype("float32") if v.dtype.kind == "f" else v for k, v in weights.items()}
save_file(full, target + "/model.safetensors", metadata={"format": "pt"})
PY
nvidia-smi -L
python3 -c "
import cupy, spacy, thinc, torch, transformers
from thinc.api import torch2xp, xp2torch
print('versions', spacy.__version__, thinc.__version__, transformers.__version__, torch.__version__, cupy.__version__)
spacy.require_gpu()
print('dlpack', type(torch2xp(torch.ones(3, device='cuda'))).__name__, xp2torch(cupy.ones(3)).device)
" || exit 5
rc=0
if [ -z "${SKIP_CHECK:-}" ]; then
  cp benchmarks/speed/GPU.md "$OUT/GPU.md"
  timeout "${CHECK_TIMEOUT:-330}" python3 benchmarks/gpu_check.py --cpu-sentences 2000 --output "$OUT/GPU.md" 2>&1 | tee "$OUT/gpu_check.log"
  rc=$?
fi
timeout "${PROFILE_TIMEOUT:-120}" python3 benchmarks/gpu_profile.py --precision fp32 --output-dir "$OUT/profile" 2>&1 | tail -12 > "$OUT/profile.log"
cat "$OUT/profile.log"
# build-lexicon --gpu-id 0 against the CPU build; needs scikit-learn and scipy from the machine
if python3 -c "import sklearn, scipy" 2>/dev/null; then
  timeout "${LEXICON_TIMEOUT:-180}" python3 benchmarks/gpu_lexicon.py "$BUNDLE/corpus/sampled-5000.txt" \
    --output-dir /tmp/ctxvec_gpu_lexicon 2>&1 | tail -20 | tee "$OUT/lexicon.log"
else
  echo "build-lexicon check skipped: no scikit-learn or scipy on this machine" | tee "$OUT/lexicon.log"
fi
exit $rc
