"""Write a tiny random-weight hybrid-SWA Llama (and a word-level tokenizer) to a folder,
with no download: the model sglang builds its two-pool SWA cache (`SWAKVPool`) for.

    python tests/sglang_cpu/tiny_model.py DIR

sglang's generic opt-in (`is_hybrid_swa` with a `hybrid_layer_pattern`, 1 = sliding
window, 0 = full) makes layer 0 a SWA layer and layer 1 a full one.
"""

from __future__ import annotations

import sys
from pathlib import Path

WORDS = ["the", "a", "pool", "window", "draft", "target", "token", "kv", "cache", "swa", "full", "page"]


def write_tokenizer(folder: Path) -> int:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<unk>", "<s>", "</s>", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", bos_token="<s>",
                                        eos_token="</s>")
    tokenizer.save_pretrained(folder)
    return len(vocab)


def write_model(folder: Path, vocab_size: int) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=512,
                         bos_token_id=1, eos_token_id=2, torch_dtype="float32")
    config.is_hybrid_swa = True
    config.hybrid_layer_pattern = [1, 0]
    config.sliding_window = 32
    LlamaForCausalLM(config).save_pretrained(folder)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder = Path(argv[0])
    folder.mkdir(parents=True, exist_ok=True)
    write_model(folder, write_tokenizer(folder))
    print(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
