"""ptp.torch.describe: a job's model from what the training script has in hand, a Hugging Face
config or the module itself, as a config.json that the job's ``model:`` names (ptp reads HF configs:
docs/job-spec.md, model). A module without a config is read from its structure: the token
embedding, the repeated blocks, their attention heads and MLP widths, experts."""

import json
import os

from .api import write_text_atomically

# Attribute names modules use for their head counts (torch, HF, litgpt, torchtitan, nanoGPT).
_HEAD_ATTRIBUTES = ("num_heads", "n_heads", "n_head", "num_attention_heads")
_KV_HEAD_ATTRIBUTES = ("num_key_value_heads", "n_kv_heads", "num_kv_heads", "n_kv_head", "kv_heads")
_TOP_K_ATTRIBUTES = ("num_experts_per_tok", "top_k", "topk", "k")


def describe(source, job=None, path="ptp_model.config.json"):
    """The job (a copy of ``job``, or a new dict) with ``model`` naming a config.json written at
    ``path`` that describes ``source``: a HF config (``to_dict()``) or its dict, a HF model
    (``.config``), or a torch.nn.Module read from its structure. Raises ValueError when the module
    has no transformer structure to read."""
    config = _config_of(source)
    write_text_atomically(path, json.dumps(config, indent=2, sort_keys=True) + "\n")
    described = dict(job or {})
    described["model"] = os.path.abspath(path)
    return described


def _config_of(source):
    if isinstance(source, dict):
        return dict(source)
    config = getattr(source, "config", None)
    if config is not None and hasattr(config, "to_dict"):
        return config.to_dict()
    if hasattr(source, "to_dict") and hasattr(source, "model_type"):
        return source.to_dict()
    if hasattr(source, "named_modules"):
        return config_from_module(source)
    raise TypeError("describe takes a HF config, its dict, a HF model or a torch.nn.Module, not " +
                    type(source).__name__)


def config_from_module(module):
    """A HF-style config dict of a decoder-only transformer module, from its structure."""
    import torch

    nn = torch.nn
    embeddings = [m for m in module.modules() if isinstance(m, nn.Embedding)]
    if not embeddings:
        raise ValueError("describe: the module has no nn.Embedding (token table) to read the vocabulary from")
    tokens = max(embeddings, key=lambda e: e.num_embeddings)
    hidden = tokens.embedding_dim
    blocks = _repeated_blocks(module, nn)
    if not blocks:
        raise ValueError("describe: the module has no nn.ModuleList of repeated blocks (the layers)")
    block = blocks[0]
    heads = _attribute(block, _HEAD_ATTRIBUTES, nn)
    if heads is None:
        raise ValueError("describe: no attention head count found in the first block (an attribute named one of " +
                         ", ".join(_HEAD_ATTRIBUTES) + ", or nn.MultiheadAttention)")
    kv_heads = _attribute(block, _KV_HEAD_ATTRIBUTES, nn) or heads
    experts = _experts(block, nn)
    mlp_owner = experts[0] if experts else block
    intermediate, gated = _mlp_width(mlp_owner, hidden, nn)
    rms = any("rms" in type(m).__name__.lower() for m in block.modules())
    head = [m for m in module.modules() if isinstance(m, nn.Linear) and m.out_features == tokens.num_embeddings]
    tied = bool(head) and head[-1].weight is tokens.weight
    positions = [e for e in embeddings if e is not tokens and e.embedding_dim == hidden]
    config = {
        "model_type": "llama" if gated else "gpt_neox",
        "hidden_size": hidden,
        "num_hidden_layers": len(blocks),
        "num_attention_heads": int(heads),
        "num_key_value_heads": int(kv_heads),
        "intermediate_size": intermediate,
        "vocab_size": tokens.num_embeddings,
        "tie_word_embeddings": tied,
        "hidden_act": "silu" if gated else "gelu",
        "rms_norm_eps" if rms else "layer_norm_eps": 1e-5,
    }
    if positions:
        config["max_position_embeddings"] = positions[0].num_embeddings
    if experts:
        config["num_local_experts"] = len(experts)
        config["num_experts_per_tok"] = int(_attribute(block, _TOP_K_ATTRIBUTES, nn) or 1)
    return config


def _repeated_blocks(module, nn):
    """The longest nn.ModuleList of at least two modules of one class (the layers)."""
    best = []
    for child in module.modules():
        if isinstance(child, nn.ModuleList) and len(child) >= 2 and len({type(c) for c in child}) == 1:
            if _experts_list(child, nn):
                continue
            if len(child) > len(best):
                best = list(child)
    return best


def _experts_list(candidate, nn):
    """Experts are a ModuleList of MLPs: modules holding Linears but no further ModuleList of blocks
    and no attention."""
    first = candidate[0]
    has_attention = any(isinstance(m, nn.MultiheadAttention) or _own_attribute(m, _HEAD_ATTRIBUTES) is not None
                        for m in first.modules())
    return not has_attention and any(isinstance(m, nn.Linear) for m in first.modules())


def _experts(block, nn):
    for child in block.modules():
        if child is not block and isinstance(child, nn.ModuleList) and len(child) >= 2 and _experts_list(child, nn):
            return list(child)
    return []


def _own_attribute(m, names):
    for name in names:
        value = getattr(m, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _attribute(block, names, nn):
    for m in block.modules():
        if names is _HEAD_ATTRIBUTES and isinstance(m, nn.MultiheadAttention):
            return m.num_heads
        value = _own_attribute(m, names)
        if value is not None:
            return value
    return None


def _mlp_width(owner, hidden, nn):
    """(intermediate size, gated): the width the down projection (a Linear to ``hidden`` from
    another width) reads, and whether two Linears from ``hidden`` feed it (SwiGLU/GeGLU)."""
    linears = [m for m in owner.modules() if isinstance(m, nn.Linear)]
    downs = [m for m in linears if m.out_features == hidden and m.in_features != hidden]
    if not downs:
        raise ValueError("describe: no MLP down projection (a Linear from the MLP width to {}) in the block".format(hidden))
    width = max(d.in_features for d in downs)
    ups = [m for m in linears if m.in_features == hidden and m.out_features in (width, 2 * width)]
    gated = len(ups) >= 2 or any(m.out_features == 2 * width for m in ups)
    return width, gated
