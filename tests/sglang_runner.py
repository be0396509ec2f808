"""What sglang's attention constructors read of a model runner besides its pools, as a
stand-in sets it on CPU (a tiny model, one page a token, no server): shared by the probes that
build sglang's real classes (tests/sglang_plugin_probe.py, tests/sglang_release_probe.py)."""

from __future__ import annotations

from typing import Any


def model_fields(mr: Any, dtype: Any) -> Any:
    """`mr` (a MagicMock model runner) with the sizes a constructor divides and allocates by."""
    mr.req_to_token_pool.size = 4
    mr.model_config.is_encoder_decoder = False
    mr.model_config.context_len = 64
    mr.model_config.num_attention_heads = 4
    mr.model_config.get_num_kv_heads.return_value = 1
    mr.model_config.head_dim = mr.model_config.v_head_dim = 8
    mr.model_config.attention_arch = None
    mr.sliding_window_size, mr.device, mr.page_size, mr.dtype = 16, "cpu", 1, dtype
    return mr
