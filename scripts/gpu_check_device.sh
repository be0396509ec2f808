#!/usr/bin/env bash
# Run benchmarks/gpu_check.py on a lent GPU machine that cannot reach a package index.
#
#   bash scripts/gpu_check_device.sh prepare   # here: download the wheels the GPU image lacks into .whl/
#   bash scripts/gpu_check_device.sh run       # there (carry .whl): install them, run the check
#
# The GPU image has torch (CUDA), numpy, pyyaml, ninja and nvcc; swapool additionally needs
# jsonschema, and flashinfer's Python package with apache-tvm-ffi. Results land in $OUT
# (the device tool's output folder) or benchmarks/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  prepare)
    grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
    for spec in flashinfer-python==0.6.13 apache-tvm-ffi==0.1.15.post2 jsonschema jsonschema-specifications \
                referencing rpds-py; do
      python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform any -d .whl "$spec"
    done
    du -sh .whl
    ;;
  run)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    out="${OUT:-benchmarks/results}/gpu_check.json"
    python3 benchmarks/gpu_check.py --out "$out" 2>&1 | tee "${OUT:-/tmp}/gpu_check.log"
    # the CUDA-only test, which CI skips; flashinfer's JIT modules are cached by now
    python3 -m pytest -q -p no:cacheprovider tests/swa/test_gpu.py 2>&1 | tee -a "${OUT:-/tmp}/gpu_check.log"
    ;;
  *)
    echo "usage: $0 prepare|run" >&2
    exit 2
    ;;
esac
