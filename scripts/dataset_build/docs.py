"""Generated documentation: datasets/README.md and datasets/sources/*.md.

The prose lives in templates/ (string.Template files, `$name` placeholders); this module only computes
the tables and counts that fill them. Template.substitute raises KeyError on a missing value, so a
placeholder cannot be left unfilled silently.
"""

import os
import shutil
from collections import Counter
from string import Template

from . import run_facts
from .schema import REGEN_CMD, SCHEMA_VERSION
from .vidur_collectives import VIDUR_TOPO

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
RUN_SOURCES = ("dle", "lambda", "llm")
# datasets/sources/<name>.md, each from templates/sources/<name>.md
SOURCE_DOCS = ("dle", "lambda", "llm", "vidur", "nccl-tests", "neusight", "kernels", "memory")
KERNEL_SOURCES = ("xla", "deepgemm", "tilelang")


def load_template(rel):
    """The template at templates/<rel> (read as UTF-8, newlines kept as stored)."""
    with open(os.path.join(TEMPLATE_DIR, rel), encoding="utf-8", newline="") as f:
        return Template(f.read())


def render(rel, values):
    return load_template(rel).substitute(values)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


def counter_table(counter, header):
    rows = sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))
    return md_table(header, [(k if k != "" else "(empty)", v) for k, v in rows])


def cross_table(rows, key_a, key_b, title_a):
    cols = sorted(set(r[key_b] for r in rows))
    c = Counter((r[key_a], r[key_b]) for r in rows)
    keys = sorted(set(r[key_a] for r in rows), key=lambda k: (-sum(c[(k, b)] for b in cols), k))
    body = []
    for k in keys:
        body.append([k if k != "" else "(empty)"] + [c[(k, b)] or "" for b in cols]
                    + [sum(c[(k, b)] for b in cols)])
    return md_table([title_a] + cols + ["total"], body)


def readme_values(runs, colls, ops, stats):
    """Placeholder values of templates/README.md."""
    fc = Counter()
    for r in runs:
        for t in r["quality_flag"].split(";"):
            if t:
                fc[(r["source"], t)] += 1
    flag_rows = sorted(set(t for _, t in fc), key=lambda t: (-sum(fc[(s, t)] for s in RUN_SOURCES), t))
    with_step = Counter(r["source"] for r in runs if r["step_time_s"])
    um = Counter((r["source"], r["model_as_published"]) for r in runs if not r["model"])
    ug = Counter((r["source"], r["gpu_as_published"]) for r in runs if not r["gpu"])
    cc = Counter((r["source"], r["collective"], r["ranks"], r["nodes"]) for r in colls)
    oc = Counter((r["source"], r["op_class"]) for r in ops)
    return {
        "schema_version": SCHEMA_VERSION,
        "regen_cmd": REGEN_CMD,
        "n_runs": len(runs),
        "n_colls": len(colls),
        "n_ops": len(ops),
        "n_memory": len(stats["memory_rows"]),
        "memory_by_origin": cross_table(stats["memory_rows"], "origin", "memory_kind", "origin"),
        "n_power": len(stats.get("power_rows", [])),
        "power_by_origin": cross_table(stats.get("power_rows", []), "origin", "scope_kind", "origin"),
        "power_by_gpu": cross_table(stats.get("power_rows", []), "gpu", "precision", "gpu"),
        "dedup_text": stats["dedup_text"],
        "flag_counts": md_table(["flag"] + list(RUN_SOURCES),
                                [[t] + [fc[(s, t)] or "" for s in RUN_SOURCES] for t in flag_rows]),
        "runs_by_precision": cross_table(runs, "precision", "source", "precision"),
        "runs_by_gpu": cross_table(runs, "gpu", "source", "gpu"),
        "runs_by_model": cross_table(runs, "model", "source", "model"),
        "runs_with_step": ", ".join("%s %d of %d" % (s, with_step[s], stats["runs_by_source"][s])
                                    for s in RUN_SOURCES),
        "unmapped_models": md_table(["source", "model as published", "rows"],
                                    [(s, m, n) for (s, m), n in
                                     sorted(um.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))]),
        "unmapped_gpus": md_table(["source", "gpu as published", "rows"],
                                  [(s, g, n) for (s, g), n in sorted(ug.items())]),
        "vidur_topologies": md_table(["topology", "gpu", "fabric_intra", "description"],
                                     [(t, g or "(empty)", f, d) for t, (g, f, d) in sorted(VIDUR_TOPO.items())]),
        "colls_by_gpu": cross_table(colls, "gpu", "source", "gpu"),
        "colls_by_layout": md_table(["source", "collective", "ranks", "nodes", "rows"],
                                    [(a, b, c, d, n) for (a, b, c, d), n in
                                     sorted(cc.items(), key=lambda kv: (kv[0][0], kv[0][1], int(kv[0][2]),
                                                                        int(kv[0][3])))]),
        "ops_by_gpu": cross_table(ops, "gpu", "source", "gpu"),
        "ops_by_class": md_table(["source", "op_class", "rows"], [(a, b, n) for (a, b), n in sorted(oc.items())]),
        "raw_total": stats["raw_total"],
        "raw_files": "\n".join("* `raw/%s/%s` (%d bytes)" % (s, rel, size) for s, rel, size in stats["raw_copied"]),
    }


def write_readme(out, runs, colls, ops, stats):
    text = render("README.md", readme_values(runs, colls, ops, stats))
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)


def source_doc_values(stats, runs, colls, ops):
    """Placeholder values of templates/sources/<name>.md, by name."""
    rc = stats["runs_by_source"]

    def cnt(rows, src, key):
        return counter_table(Counter(r[key] for r in rows if r["source"] == src), [key, "rows"])

    def n(rows, src):
        return sum(1 for r in rows if r["source"] == src)

    values = {}
    for s in RUN_SOURCES:
        values[s] = dict(nin=stats[s + "_in"], nout=rc[s], prec=cnt(runs, s, "precision"),
                         gpu=cnt(runs, s, "gpu"), model=cnt(runs, s, "model"))
    values["vidur"] = dict(ncoll_in=stats["vidur_coll_in"], ncoll=n(colls, "vidur"),
                           unmatched=stats["vidur_unmatched"], nfiles=stats["vidur_files"],
                           nlines=stats["vidur_lines"], nops=n(ops, "vidur"), coll_dups=stats["coll_dups"],
                           coll_gpu=cnt(colls, "vidur", "gpu"), ops_gpu=cnt(ops, "vidur", "gpu"))
    values["nccl-tests"] = dict(nin=stats["nccl_in"], nout=n(colls, "nccl-tests"),
                                gpu=cnt(colls, "nccl-tests", "gpu"))
    values["neusight"] = dict(nin=stats["neusight_in"], nout=n(ops, "neusight"),
                              gpu=cnt(ops, "neusight", "gpu"), ops=cnt(ops, "neusight", "op_name"))
    values["lambda"].update(
        squad_seq=run_facts.SQUAD_SEQ,
        n_squad=sum(1 for r in runs if r["source"] == "lambda" and "SQuAD" in r["task"] and r["seq_len"] != ""),
        p2p=", ".join("%s %d" % (k or "empty (multi-GPU)", v) for k, v in sorted(Counter(
            r["nccl_p2p"] for r in runs if r["source"] == "lambda" and int(r["num_gpus"]) > 1).items())))
    values["dle"].update(computed_seq=run_facts.PHASE2_COMPUTED,
                         n_computed=sum(1 for r in runs if r["source"] == "dle" and r["computed_seq_len"] != ""))
    kops = [r for r in ops if r["source"] in KERNEL_SOURCES]
    kc = Counter((r["source"], r["gpu"], r["dtype_compute"], r["status"]) for r in kops)
    values["kernels"] = dict(
        nout=len(kops), nok=sum(1 for r in kops if r["status"] == "ok"),
        nskip=sum(1 for r in kops if r["status"] != "ok"),
        xla_in=stats["kernels_xla_in"], xla_out=n(ops, "xla"),
        dg_in=stats["kernels_deepgemm_in"], dg_out=n(ops, "deepgemm"),
        tl_in=stats["kernels_tilelang_in"], tl_out=n(ops, "tilelang"), mamf_in=stats["kernels_mamf_in"],
        table=md_table(["source", "gpu", "dtype_compute", "status", "rows"],
                       [k + (v,) for k, v in sorted(kc.items())]))
    mem = stats["memory_rows"]
    mapped = [r for r in mem if r["model"] and r["gpu"]]
    values["memory"] = dict(
        nin=stats["memory_in"], nout=len(mem),
        nok=sum(1 for r in mem if r["outcome"] == "ok"), noom=sum(1 for r in mem if r["outcome"] == "oom"),
        nmapped=len(mapped),
        by_kind=cross_table(mem, "memory_kind", "origin", "memory_kind"),
        model=counter_table(Counter(r["model"] for r in mem), ["model", "rows"]),
        gpu=counter_table(Counter(r["gpu"] for r in mem), ["gpu", "rows"]),
        unmapped_models=md_table(["model as published", "rows"], sorted(
            Counter(r["model_as_published"] for r in mem if not r["model"]).items(), key=lambda kv: (-kv[1], kv[0]))),
        unmapped_gpus=md_table(["gpu as published", "rows"], sorted(
            Counter(r["gpu_as_published"] for r in mem if not r["gpu"]).items(), key=lambda kv: (-kv[1], kv[0]))))
    return values


def write_source_docs(out, stats, runs, colls, ops):
    d = os.path.join(out, "sources")
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    values = source_doc_values(stats, runs, colls, ops)
    for name in SOURCE_DOCS:
        text = render("sources/%s.md" % name, values[name])
        with open(os.path.join(d, name + ".md"), "w", encoding="utf-8") as f:
            f.write(text)
