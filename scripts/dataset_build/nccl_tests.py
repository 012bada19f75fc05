"""Published nccl-tests all_reduce sweeps (`nccl-tests`): shared/data/nccl_allreduce.csv -> collectives.csv rows.

One row per measured line and placement (out-of-place, in-place); fabrics derived from the published
interconnect text; `_line` (the file line) is kept for the pipeline and dropped before writing.
"""

import os
from collections import OrderedDict

from .catalog import GPU_UNMAPPED_REASON, map_gpu
from .common import join_notes, read_csv_with_lines, us_to_s

SHARED_FILE = "nccl_allreduce.csv"


def nccl_fabrics(x):
    ic = x["interconnect"]
    gpu = x["gpu"]
    if "bridge" in ic.lower():
        intra = "nvlink-bridge"
    elif gpu.startswith("A100"):
        intra = "nvlink3"
    else:
        intra = "nvlink4"
    inter = ""
    if int(x["num_nodes"]) > 1:
        if "RoCEv2 100Gbps x16" in ic:
            inter = "roce-100x16"
        elif "RoCEv2 200Gbps x16" in ic:
            inter = "roce-200x16"
        elif "A3 Mega" in ic:
            inter = "gcp-a3mega"
        else:
            inter = "unknown"
    return intra, inter


def build(shared, stats=None):
    """collectives.csv rows from <shared>/nccl_allreduce.csv; stats["nccl_in"] = measured lines."""
    src = read_csv_with_lines(os.path.join(shared, SHARED_FILE))
    out = []
    for x, line in src:
        if x["source_commit"]:
            ref = "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])
        else:
            ref = "%s:%s" % (x["source_repo"], x["source_path"])
        gpu = map_gpu(x["gpu"])
        intra, inter = nccl_fabrics(x)
        dtype = {"float32": "fp32"}.get(x["dtype"], "")
        base_notes = ["nccl_allreduce.csv line %d" % line, "system: %s" % x["system"],
                      "interconnect: %s" % x["interconnect"], "tool: %s" % x["tool"],
                      "NCCL %s" % x["nccl"]]
        if not gpu:
            base_notes.append("gpu as published %s (%s)" % (x["gpu"], GPU_UNMAPPED_REASON.get(x["gpu"], "unmapped")))
        if not dtype:
            base_notes.append("dtype: %s" % x["dtype"])
        if inter == "gcp-a3mega":
            base_notes.append("A3 Mega inferred from the repository name; inter-node fabric unverified")
        algorithm = ""
        if "NVLS at >=2MiB" in x["interconnect"] and int(x["size_bytes"]) >= 2 * 1024 * 1024:
            algorithm = "nvls"
            base_notes.append("algorithm nvls per the source's statement (NVLS at >= 2 MiB)")
        base_notes.append(x["notes"])
        for in_place, tcol, acol, bcol in ((0, "time_us_out_of_place", "algbw_GBps_out_of_place",
                                            "busbw_GBps_out_of_place"),
                                           (1, "time_us_in_place", "algbw_GBps_in_place",
                                            "busbw_GBps_in_place")):
            if not x[tcol]:
                continue
            r = OrderedDict()
            r["source"] = "nccl-tests"
            r["source_ref"] = ref
            r["collective"] = x["collective"]
            r["size_bytes"] = x["size_bytes"]
            r["dtype"] = dtype
            r["ranks"] = x["num_gpus"]
            r["nodes"] = x["num_nodes"]
            r["ranks_per_node"] = x["gpus_per_node"]
            r["gpu"] = gpu
            r["fabric_intra"] = intra
            r["fabric_inter"] = inter
            r["algorithm"] = algorithm
            r["time_s"] = us_to_s(x[tcol])
            r["algbw_GBps"] = x[acol]
            r["busbw_GBps"] = x[bcol]
            r["in_place"] = str(in_place)
            r["status"] = "ok"
            r["notes"] = join_notes(base_notes)
            r["_line"] = line
            out.append(r)
    if stats is not None:
        stats["nccl_in"] = len(src)
    return out
