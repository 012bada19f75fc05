"""ptp.torch.describe: a job's model from a HF-style config dict or a module's structure, judged by
the parameter count ptp then predicts memory for against the module's own."""

import json

import ptp
import ptp.torch
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn


class RMSNorm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))


class Attention(nn.Module):
    def __init__(self, hidden, heads, kv_heads):
        super().__init__()
        self.num_heads, self.num_key_value_heads = heads, kv_heads
        head_dim = hidden // heads
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)


class SwiGLU(nn.Module):
    def __init__(self, hidden, width):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, width, bias=False)
        self.up_proj = nn.Linear(hidden, width, bias=False)
        self.down_proj = nn.Linear(width, hidden, bias=False)


class Block(nn.Module):
    def __init__(self, hidden, heads, kv_heads, width, experts=0):
        super().__init__()
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = Attention(hidden, heads, kv_heads)
        self.post_attention_layernorm = RMSNorm(hidden)
        if experts:
            self.top_k = 2
            self.router = nn.Linear(hidden, experts, bias=False)
            self.experts = nn.ModuleList(SwiGLU(hidden, width) for _ in range(experts))
        else:
            self.mlp = SwiGLU(hidden, width)


class Decoder(nn.Module):
    """A Llama-shaped decoder (made up for the test: no checkpoint is read)."""

    def __init__(self, vocab=1000, hidden=256, layers=4, heads=8, kv_heads=2, width=688, experts=0):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(Block(hidden, heads, kv_heads, width, experts) for _ in range(layers))
        self.norm = RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)


def parameters_ptp_counts(job):
    """The parameters ptp holds weights for: FP32 weights are 4 bytes each (one GPU, no sharding)."""
    p = ptp.predict(dict(job, precision="fp32", batch_size=1, seq_len=128,
                         cluster={"gpu": "a100-sxm4-80gb", "num_gpus": 1}))
    return p.memory.weights_bytes / 4


def test_a_module_is_read_from_its_structure(workdir):
    module = Decoder()
    job = ptp.torch.describe(module, {"run": {"steps": 10}}, path="decoder.json")
    config = json.loads(open("decoder.json").read())
    assert config["model_type"] == "llama"
    assert (config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"],
            config["num_key_value_heads"], config["intermediate_size"], config["vocab_size"]) == (256, 4, 8, 2, 688, 1000)
    assert config["tie_word_embeddings"] is False
    assert job["run"] == {"steps": 10} and job["model"].endswith("decoder.json")
    own = sum(p.numel() for p in module.parameters())
    assert parameters_ptp_counts(job) == pytest.approx(own, rel=0.01)


def test_experts_are_counted(workdir):
    module = Decoder(experts=4, width=344)
    config = json.loads(open(ptp.torch.describe(module, path="moe.json")["model"]).read())
    assert config["num_local_experts"] == 4 and config["num_experts_per_tok"] == 2
    assert config["intermediate_size"] == 344 and config["num_hidden_layers"] == 4


def test_a_config_dict_is_written_as_given(workdir):
    config = {"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
              "intermediate_size": 1376, "vocab_size": 32000}
    job = ptp.torch.describe(config, path="given.json")
    assert json.loads(open(job["model"]).read()) == config
    assert parameters_ptp_counts(job) > 0


def test_a_module_without_layers_is_refused():
    with pytest.raises(ValueError, match="repeated blocks"):
        ptp.torch.describe(nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10)))
    with pytest.raises(TypeError):
        ptp.torch.describe(42)
