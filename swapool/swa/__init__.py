"""The SWA decision: which KV pool an attention backend translates through, built on the
generic table engine (`swapool.table`). kv/, attention/ and integrations/ need torch."""

from . import codes  # noqa: F401  registers the SWA decision's finding codes with the engine
