"""The SWA decision: which KV pool an attention backend translates through, built on the
generic table engine (`swapool.table`). kv/, attention/ and integrations/ need torch."""
