#!/usr/bin/env bash
# A CPU-only environment where sglang 0.5.23 imports, to run the compatibility tests
# (tests/test_sglang.py: the resolvers, the plugin as load_plugins() runs it) against the
# real engine. .ci/run runs it on every submission:
#
#   bash scripts/sglang_cpu_env.sh [VENV_DIR]      # default .venv-sglang; ~2.5 GB, a few minutes
#
# sglang's metadata pins a CUDA torch and flashinfer, so it is installed --no-deps with
# the small packages its import chain needs. PyPI's torchvision links a CUDA torch; the
# tests define its two missing operator schemas before importing sglang.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.venv-sglang}

python3 -m venv "$venv"
# shellcheck disable=SC1091
. "$venv/bin/activate"
export PIP_DISABLE_PIP_VERSION_CHECK=1
python -m pip install -q torch==2.13.0                      # the CPU build, first
python -m pip install -q -e '.[test]'
python -m pip install -q pydantic 'transformers==5.19.0'    # with their (torch-free) dependencies
python -m pip install -q --no-deps sglang==0.5.23 torchvision==0.28.0 \
    numpy orjson psutil pybase64 requests urllib3 idna certifi triton pillow starlette anyio \
    msgspec pyzmq tqdm IPython traitlets aiohttp multidict yarl propcache aiohappyeyeballs \
    aiosignal frozenlist regex huggingface_hub httpx2 httpcore2 truststore h11 dill \
    apache-tvm-ffi sentencepiece compressed_tensors loguru gguf openai sniffio \
    partial_json_parser einops
python scripts/sglang_probe.py
# Here the real-engine tests must run: a failing sglang import is a failure, not a skip.
SWAPOOL_REQUIRE_SGLANG=1 python -m pytest -q tests/test_sglang.py
