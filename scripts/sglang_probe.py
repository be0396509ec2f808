"""Import what the sglang compatibility tests need, on a CPU-only torch (see sglang_cpu_env.sh)."""

# (torchvision's two missing operator schemas are defined by the environment itself, at
# start-up: tests/sglang_cpu/sglang_cpu_site.py, through a .pth file)
import sglang.srt.layers.attention.flashinfer_backend  # noqa: F401
import sglang.srt.layers.attention.trtllm_mha_backend  # noqa: F401
import sglang.srt.mem_cache.base_swa_memory_pool  # noqa: F401
import sglang.srt.mem_cache.swa_memory_pool  # noqa: F401
import sglang.srt.speculative.spec_info  # noqa: F401

print("sglang imports on this CPU machine")
