"""microsoft/vidur MLP operator profiles (`vidur`):
shared/data/vidur/profiling/compute/<dev>/<org>/<model>/mlp.csv -> ops rows.

FP16 forward operators (power-of-two token counts kept); per-worker GEMM shapes and derived FLOPs /
bytes from each file's model-dimension columns (formulas in datasets/README.md).
"""

import os
from collections import OrderedDict

from .common import is_power_of_two, ms_to_s, read_csv_with_lines

VIDUR_COMMIT = "7d47513363ec447a741ac5e47241580b47724fbf"
COMPUTE_DIR = os.path.join("vidur", "profiling", "compute")


VIDUR_GPU = {
    "a100": ("a100-sxm4-80gb", "vidur 'a100' compute profile: A100 80GB; form factor not stated "
                               "(vidur uses the same compute data for DGX-SXM and Azure PCIe nodes); read as SXM4"),
    "h100": ("h100-sxm5-80gb", "vidur 'h100' compute profile: H100 80GB; form factor not stated; read as SXM5"),
    "a40": ("a40", ""),
}
VIDUR_OPS = ["emb", "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
             "post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add"]
# norm type is not in mlp.csv; from the models' HF configs (phi-2 uses LayerNorm)
VIDUR_LAYERNORM_MODELS = {"microsoft/phi-2"}


def vidur_op_shape(op, T, H, nh, nkv, I, V, gated, tp, post_attn_norm, model):
    """Return (op_class, m, n, k, flops, bytes) for one vidur MLP-profile op (fp16)."""
    hd = H // nh
    e = 2  # bytes per fp16 element
    if op in ("attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj"):
        if op == "attn_pre_proj":
            m, k, n = T, H, (nh + 2 * nkv) * hd // tp
        elif op == "attn_post_proj":
            m, k, n = T, nh * hd // tp, H
        elif op == "mlp_up_proj":
            m, k, n = T, H, (2 if gated else 1) * I // tp
        else:
            m, k, n = T, I // tp, H
        return "gemm", m, n, k, 2 * m * n * k, e * (m * k + k * n + m * n)
    if op in ("input_layernorm", "post_attention_layernorm"):
        nel = T * H
        if model in VIDUR_LAYERNORM_MODELS:
            return "layernorm", T, H, "", 8 * nel, e * (2 * nel + 2 * H)
        return "layernorm", T, H, "", 4 * nel, e * (2 * nel + H)
    if op == "emb":
        return "embedding", T, H, "", 0, e * 2 * T * H + 8 * T
    if op == "attn_rope":
        nel = T * (nh + nkv) // tp * hd
        return "elementwise", T, (nh + nkv) // tp * hd, "", 3 * nel, e * (2 * nel + T * hd) + 8 * T
    if op == "mlp_act":
        out_el = T * I // tp
        if gated:
            return "elementwise", T, I // tp, "", 2 * out_el, e * 3 * out_el
        return "elementwise", T, I // tp, "", out_el, e * 2 * out_el
    if op == "add":
        nel = T * H
        if post_attn_norm:
            return "elementwise", T, H, "", nel, e * 3 * nel
        return "elementwise", T, H, "", 2 * nel, e * 4 * nel
    raise KeyError(op)


def vidur_tokens_kept(tokens):
    """Row-selection rule (keeps the repository small): vidur profiles ~450 token counts per op
    with near-identical neighbours; we keep the log-spaced ones (powers of two). No measured value is changed; the dropped rows are still in the source repository."""
    return is_power_of_two(tokens)


def build(shared, stats=None):
    """ops rows from every mlp.csv; stats: vidur_files (files read), vidur_lines (measurement rows)."""
    base = os.path.join(shared, COMPUTE_DIR)
    out = []
    nfiles = 0
    nlines = 0
    for dev in sorted(os.listdir(base)):
        for org in sorted(os.listdir(os.path.join(base, dev))):
            for name in sorted(os.listdir(os.path.join(base, dev, org))):
                path = os.path.join(base, dev, org, name, "mlp.csv")
                if not os.path.exists(path):
                    continue
                nfiles += 1
                model = "%s/%s" % (org, name)
                gpu, gnote = VIDUR_GPU[dev]
                rows = read_csv_with_lines(path)
                header = list(rows[0][0].keys()) if rows else []
                ops = [o for o in VIDUR_OPS if "time_stats.%s.median" % o in header]
                post_attn_norm = "time_stats.post_attention_layernorm.median" in header
                for x, line in rows:
                    nlines += 1
                    T = int(x["num_tokens"])
                    if not vidur_tokens_kept(T):
                        continue
                    tp = int(x["num_tensor_parallel_workers"])
                    H, nh, nkv = int(x["n_embd"]), int(x["n_head"]), int(x["n_kv_head"])
                    I, V = int(x["n_expanded_embd"]), int(x["vocab_size"])
                    gated = x["use_gated_mlp"] == "True"
                    ref = "%s/%s/mlp.csv:%d" % (dev, model, line)
                    for op in ops:
                        med = x["time_stats.%s.median" % op]
                        if med == "":
                            continue
                        oc, m, n, k, flops, nbytes = vidur_op_shape(
                            op, T, H, nh, nkv, I, V, gated, tp, post_attn_norm, model)
                        r = OrderedDict()
                        r["source"] = "vidur"
                        r["source_ref"] = ref
                        r["op_class"] = oc
                        r["op_name"] = op
                        r["m"], r["n"], r["k"], r["batch"] = m, n, k, 1
                        r["shape"] = "model=%s;num_tokens=%d;tp=%d" % (model, T, tp)
                        r["dtype_in"] = r["dtype_compute"] = r["dtype_out"] = "fp16"
                        r["flops"] = flops
                        r["bytes"] = nbytes
                        r["gpu"] = gpu
                        r["time_s"] = ms_to_s(med)
                        r["time_s_min"] = ms_to_s(x["time_stats.%s.min" % op])
                        r["time_s_max"] = ms_to_s(x["time_stats.%s.max" % op])
                        r["reps"] = ""
                        r["status"] = "ok"
                        r["reason"] = ""
                        r["kernel_name"] = ""
                        r["notes"] = ""  # GPU-id caveat documented in sources/vidur.md
                        r["_key"] = ref + "|" + op
                        out.append(r)
    if stats is not None:
        stats["vidur_files"] = nfiles
        stats["vidur_lines"] = nlines
    return out
