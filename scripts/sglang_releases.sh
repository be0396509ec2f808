#!/usr/bin/env bash
# Older sglang releases over the CPU environment of scripts/sglang_cpu_env.sh, for
# tests/suites/test_sglang_releases.py: each wheel unpacked (--no-deps, 8-26 MB) into
# DIR/RELEASE/site, with the transformers it imports with in DIR/RELEASE/pins, and what those
# older transformers need beside the environment's newer packages in DIR/common. A test run
# puts them first on PYTHONPATH:
#
#   bash scripts/sglang_releases.sh [DIR]      # default .sglang-releases; run with .venv-sglang active
#   SWAPOOL_SGLANG_RELEASES=DIR python -m pytest tests/suites/test_sglang_releases.py
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.sglang-releases}
export PIP_DISABLE_PIP_VERSION_CHECK=1
mkdir -p "$dir"
python -m pip install -q --no-deps --target "$dir/common" httpx==0.29.0 httpcore==1.0.9 tokenizers==0.22.2 \
    huggingface_hub==1.33.0
# release, and the transformers it imports with on top of the environment (NOTES.md)
for pair in 0.5.12:5.6.0 0.5.13:5.8.1 0.5.19:5.12.1; do
    release=${pair%%:*}
    [ -d "$dir/$release/site/sglang" ] && continue
    python -m pip download -q --no-deps "sglang==$release" -d "$dir/$release/wheel"
    python -m zipfile -e "$dir/$release"/wheel/sglang-*.whl "$dir/$release/site"
    python -m pip install -q --no-deps --target "$dir/$release/pins" "transformers==${pair##*:}"
    rm -r "$dir/$release/wheel"
done
