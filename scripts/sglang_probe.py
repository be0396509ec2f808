"""Import what the sglang compatibility tests need, on a CPU-only torch (see sglang_cpu_env.sh)."""

import torch

# PyPI's torchvision is linked against a CUDA torch; on the CPU build its two operator
# schemas are missing at import. Defining them is enough for sglang's imports.
_lib = torch.library.Library("torchvision", "DEF")
_lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
_lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")

import sglang.srt.layers.attention.flashinfer_backend  # noqa: E402,F401
import sglang.srt.layers.attention.trtllm_mha_backend  # noqa: E402,F401
import sglang.srt.mem_cache.base_swa_memory_pool  # noqa: E402,F401
import sglang.srt.mem_cache.swa_memory_pool  # noqa: E402,F401
import sglang.srt.speculative.spec_info  # noqa: E402,F401

print("sglang imports on this CPU machine")
