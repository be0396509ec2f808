#!/usr/bin/env bash
# A CPU-only environment where sglang 0.5.23 imports and serves, to run the compatibility
# tests against the real engine: tests/suites/test_sglang.py (the resolvers, the plugin as
# load_plugins() runs it), tests/suites/test_sglang_server.py (real `sglang.launch_server` starts
# of a tiny local model) and tests/suites/test_sglang_releases.py (every place on the older
# releases of scripts/sglang_releases.sh). .ci/run runs it on every submission:
#
#   bash scripts/sglang_cpu_env.sh [VENV_DIR]      # default .venv-sglang; ~2.5 GB, a few minutes
#
# sglang's metadata pins a CUDA torch and flashinfer, so it is installed --no-deps with
# the small packages its import chain and its HTTP server need. Two things have no CPU
# build, and the environment itself works around them at every interpreter start (a .pth
# file naming tests/sglang_cpu): PyPI's torchvision links a CUDA torch, so its two missing
# operator schemas are defined just before it is imported (sglang_cpu_site.py); and
# sgl_kernel is a STAND-IN package whose every function raises if called.
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
# what `python -m sglang.launch_server` imports besides (pinned: the server test reads its log)
python -m pip install -q --no-deps uvicorn==0.55.0 fastapi==0.165.0 uvloop==0.23.0 setproctitle==1.3.8 \
    python-multipart==0.0.34 prometheus_client==0.26.0 xgrammar==0.2.9 soundfile==0.14.0 cffi==2.1.1 \
    pycparser==3.12 opentelemetry-api==1.45.2
site=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '%s\nimport sglang_cpu_site\n' "$PWD/tests/sglang_cpu" > "$site/swapool_sglang_cpu.pth"
python scripts/sglang_probe.py
# sglang's enum imports here, so this checks the tables' drift from it: strictly
swapool validate --strict policies/
# The older releases operators run, unpacked over this environment (~30 s, ~200 MB)
bash scripts/sglang_releases.sh .sglang-releases
# Here the real-engine tests must run: a failing sglang import is a failure, not a skip.
SWAPOOL_REQUIRE_SGLANG=1 SWAPOOL_SGLANG_RELEASES=.sglang-releases python -m pytest -q tests/suites/test_sglang.py \
    tests/suites/test_sglang_plugin.py tests/suites/test_sglang_server.py tests/suites/test_sglang_releases.py
