"""Generic decision tables, as a pipeline of stages: source (YAML with positions) -> schema
-> model/build -> partition + analysis -> diagram -> decider; check is the one entrance
from bytes to a checked table. Knows nothing of KV pools; imports no torch."""
