"""Helpers shared by the runs.csv sources (dle, lambda_labs, llm): flag normalisation, the
configuration key behind run_id, step-time / rate derivation, and run_id assignment."""

from collections import Counter, OrderedDict

from .catalog import SAMPLE_UNITS
from .common import fmt, sha1


def normalize_source_flag(text):
    """Free-text DLE/Lambda flags -> tokens (original text kept in notes)."""
    toks = []
    for part in text.split(";"):
        p = part.strip()
        if not p:
            continue
        if p.startswith("AMP slower than"):
            toks.append("amp_slower_than_fp32_as_published")
        elif "implies" in p and "linear scaling" in p:
            toks.append("suspect_superlinear_scaling")
        elif p.startswith("poor scaling"):
            toks.append("poor_scaling_as_published")
        elif p.startswith("suspect: AMP/FP32 throughput ratio"):
            toks.append("suspect_amp_fp32_ratio")
        else:
            toks.append("source_flag_other")
    return toks


def finish_run(r, key_extra):
    r["_key"] = "|".join([r["source"], r["source_ref"], r["model_as_published"],
                          r["task"], r["gpu_as_published"], r["precision_as_published"],
                          r["precision"], str(r["num_gpus"]), str(r["batch_size"]),
                          str(r["grad_accum"]), str(r["global_batch_size"]),
                          str(r["seq_len"]), r["xla"], key_extra])
    return r


def step_and_rates(r, thr, unit, seq_len):
    """Fill samples/tokens per second and step time for DLE/Lambda rows."""
    deriv = []
    sps = tps = step = ""
    batch_unit = r["batch_unit"]
    gbs = r["global_batch_size"]
    if unit in SAMPLE_UNITS and batch_unit in ("images", "sequences", "samples"):
        sps = thr  # as published (base units)
        if seq_len:
            tps = fmt(float(thr) * seq_len)
            deriv.append("tokens_per_second derived = samples_per_second*seq_len")
        if gbs not in ("", None):
            step = fmt(float(gbs) / float(thr), 6)
            deriv.insert(0, "step_time_s = global_batch_size/samples_per_second; "
                            "global_batch_size = batch_size*grad_accum*num_gpus")
    elif unit == "tokens/s":
        tps = thr  # as published
        if seq_len and batch_unit == "sequences" and gbs not in ("", None):
            sps = fmt(float(thr) / seq_len)
            step = fmt(float(gbs) * seq_len / float(thr), 6)
            deriv.append("samples_per_second derived = tokens_per_second/seq_len; "
                         "step_time_s = global_batch_size*seq_len/tokens_per_second")
    r["samples_per_second"] = sps
    r["tokens_per_second"] = tps
    r["step_time_s"] = step
    r["step_time_derivation"] = "; ".join(deriv)


def assign_run_ids(rows):
    counts = Counter(r["_key"] for r in rows)
    seen = set()
    for r in rows:
        key = r["_key"]
        if counts[key] > 1:
            key += "|" + r["samples_per_second"] + "|" + r["tokens_per_second"] + "|" + r["notes"]
        rid = "%s-%s" % (r["source"], sha1(key)[:10])
        if rid in seen:
            raise SystemExit("run_id collision: %s" % key)
        seen.add(rid)
        r["run_id"] = rid
        del r["_key"]


def published_run(source, x, ref, model, prec, gpu, xla=""):
    """A runs.csv row's identity columns: ours next to the record's as published."""
    r = OrderedDict()
    r["source"] = source
    r["source_ref"] = ref
    r["model"] = model
    r["model_as_published"] = x["model"]
    r["task"] = x["task"]
    r["framework"] = x["framework"]
    r["xla"] = xla
    r["precision"] = prec
    r["precision_as_published"] = x["precision_as_published"]
    r["gpu"] = gpu
    r["gpu_as_published"] = x["gpu"]
    return r
