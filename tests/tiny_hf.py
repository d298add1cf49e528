"""Tiny randomly initialised Hugging Face models of the real architectures, built offline for CPU tests.

The tokenizer is the packaged Qwen2.5-Coder GGUF's (transformers reads a tokenizer from GGUF metadata): the real
Qwen2 BPE vocabulary and chat template, no download. Converting it takes ~30 s, so it is made once into
``~/.cache/m3_agent/test-hf/`` (a temporary folder renamed into place). The models have the real configuration
classes (Qwen3 for M3-Agent-Control, Qwen2.5-Omni thinker for M3-Agent-Memorization) with a few small layers and
random weights: they prove request building, inputs, generation and output handling, not answers.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from m3_memory.packaged_models import CACHE, DEFAULT_MODEL, packaged_gguf

TOKENIZER_DIR = CACHE / "test-hf" / "qwen2.5-coder-tokenizer"


def qwen_tokenizer() -> Any:
    from transformers import AutoTokenizer

    if not (TOKENIZER_DIR / "tokenizer_config.json").is_file():
        gguf = packaged_gguf(DEFAULT_MODEL)
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        TOKENIZER_DIR.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=TOKENIZER_DIR.parent, prefix=".tok-"))
        tok.save_pretrained(tmp)
        try:
            os.rename(tmp, TOKENIZER_DIR)
        except OSError:  # another process made it meanwhile
            shutil.rmtree(tmp, ignore_errors=True)
    return AutoTokenizer.from_pretrained(str(TOKENIZER_DIR))


def tiny_control_model(out: Path, layers: int = 2, hidden: int = 64, seed: int = 0) -> Path:
    """A Qwen3ForCausalLM (M3-Agent-Control's architecture) with the Qwen2.5 tokenizer, saved to ``out``."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    tok = qwen_tokenizer()
    cfg = Qwen3Config(vocab_size=len(tok), hidden_size=hidden, intermediate_size=2 * hidden,
                      num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2, head_dim=hidden // 4,
                      max_position_embeddings=4096, tie_word_embeddings=True,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(cfg)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


# Qwen2.5-Omni's special tokens (names as its tokenizer's extra_special_tokens) and a chat template that renders
# content parts as Qwen2.5-Omni's does (default system prompt, <|vision_bos|><|VIDEO|><|vision_eos|>, ...).
OMNI_TOKENS = {"audio_token": "<|AUDIO|>", "audio_bos_token": "<|audio_bos|>", "audio_eos_token": "<|audio_eos|>",
               "image_token": "<|IMAGE|>", "video_token": "<|VIDEO|>", "vision_bos_token": "<|vision_bos|>",
               "vision_eos_token": "<|vision_eos|>"}
OMNI_SYSTEM = ("You are Qwen, a virtual human developed by the Qwen Team, Alibaba Group, capable of perceiving "
               "auditory and visual inputs, as well as generating text and speech.")
OMNI_TEMPLATE = (
    "{% set audio_count = namespace(value=0) %}{% set image_count = namespace(value=0) %}"
    "{% if messages[0]['role'] != 'system' %}<|im_start|>system\n" + OMNI_SYSTEM + "<|im_end|>\n{% endif %}"
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'text' %}{{ c['text'] }}"
    "{% elif c['type'] == 'image' or 'image' in c %}<|vision_bos|><|IMAGE|><|vision_eos|>"
    "{% elif c['type'] == 'video' or 'video' in c %}<|vision_bos|><|VIDEO|><|vision_eos|>"
    "{% elif c['type'] == 'audio' or 'audio' in c %}<|audio_bos|><|AUDIO|><|audio_eos|>{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def tiny_omni_thinker(out: Path, seed: int = 0) -> Path:
    """A Qwen2.5-Omni thinker (M3-Agent-Memorization's architecture: audio encoder, vision encoder, Qwen2 text
    model with multimodal RoPE) with 1-2 small layers each, and its processor, saved to ``out``."""
    import torch
    from transformers import (
        Qwen2_5OmniThinkerConfig,
        Qwen2_5OmniThinkerForConditionalGeneration,
        WhisperFeatureExtractor,
    )
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    from m3_memory.writing.omni_inputs import NumpyQwenVideoProcessor, omni_processor

    base = qwen_tokenizer()
    base.add_special_tokens({"additional_special_tokens": list(OMNI_TOKENS.values())})
    tmp = out / "tokenizer"
    base.save_pretrained(tmp)
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tmp), extra_special_tokens=OMNI_TOKENS)
    tok.chat_template = OMNI_TEMPLATE
    ids = {k: tok.convert_tokens_to_ids(v) for k, v in OMNI_TOKENS.items()}
    hidden = 64
    cfg = Qwen2_5OmniThinkerConfig(
        audio_config={"num_mel_bins": 128, "encoder_layers": 1, "encoder_attention_heads": 2, "encoder_ffn_dim": 64,
                      "d_model": 32, "output_dim": hidden, "n_window": 100, "max_source_positions": 1500},
        vision_config={"depth": 2, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2,
                       "out_hidden_size": hidden, "fullatt_block_indexes": [1], "window_size": 112},
        text_config={"vocab_size": len(tok), "hidden_size": hidden, "intermediate_size": 2 * hidden,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                     "rope_parameters": {"rope_type": "default", "rope_theta": 1e6, "mrope_section": [2, 3, 3]},
                     "max_position_embeddings": 8192, "eos_token_id": tok.eos_token_id,
                     "pad_token_id": tok.pad_token_id},
        audio_token_index=ids["audio_token"], image_token_index=ids["image_token"],
        video_token_index=ids["video_token"], audio_start_token_id=ids["audio_bos_token"],
        audio_end_token_id=ids["audio_eos_token"], vision_start_token_id=ids["vision_bos_token"],
        user_token_id=tok.convert_tokens_to_ids("user"))
    torch.manual_seed(seed)
    model = Qwen2_5OmniThinkerForConditionalGeneration(cfg)
    model.save_pretrained(out)
    proc = omni_processor(Qwen2VLImageProcessorPil(), NumpyQwenVideoProcessor(),
                          WhisperFeatureExtractor(feature_size=128), tok, OMNI_TEMPLATE)
    proc.save_pretrained(out)
    return out
