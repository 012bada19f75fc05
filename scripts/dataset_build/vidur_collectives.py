"""microsoft/vidur network profiles (`vidur`): shared/data/vidur_collectives_tidy.csv -> collectives.csv rows.

Each tidy row is matched to the line of the verbatim network file (shared/data/vidur/profiling/network/
<topology>/<collective>.csv) holding the same statistics, for line-level provenance. Topologies map to
GPU ids and intra-node fabrics (VIDUR_TOPO, also printed in datasets/README.md).
"""

import os
from collections import Counter, OrderedDict

from .common import files_identical, is_power_of_two, join_notes, ms_to_s, read_csv, read_csv_with_lines

SHARED_FILE = "vidur_collectives_tidy.csv"


VIDUR_TOPO = {
    "a100_dgx": ("a100-sxm4-80gb", "nvlink3",
                 "vidur topology a100_dgx: DGX A100 node, 8x A100 80GB on NVSwitch (per vidur profiling README)"),
    "h100_dgx": ("h100-sxm5-80gb", "nvlink4",
                 "vidur topology h100_dgx: DGX H100 node, 8x H100 on NVSwitch; 80GB per vidur device config"),
    "a100_pairwise_nvlink": ("a100-pcie-80gb", "nvlink3",
                             "vidur topology a100_pairwise_nvlink: Azure NC96ads_A100_v4, 4x A100 80GB, NVLink "
                             "only inside GPU pairs, pairs joined by PCIe (per vidur profiling README); PCIe form "
                             "factor inferred from the pairwise-bridge topology, not stated by vidur"),
    "h100_pairwise_nvlink": ("", "nvlink4",
                             "vidur topology h100_pairwise_nvlink: 4 H100 per node, NVLink only inside GPU pairs; "
                             "H100 variant not documented (pairwise bridges imply PCIe 80GB or NVL 94GB cards), so gpu is left empty"),
    "a40_pairwise_nvlink": ("a40", "nvlink-bridge",
                            "vidur topology a40_pairwise_nvlink: A40 pairs joined by NVLink bridges"),
}


def vidur_collective_kept(size_bytes):
    """Row selection (same rule as vidur_ops.vidur_tokens_kept): keep power-of-two message sizes
    (about 1 in 15 vidur sizes)."""
    return is_power_of_two(int(size_bytes))


def build(shared, stats=None):
    """collectives.csv rows (power-of-two sizes) from the tidy file; stats: vidur_coll_in (tidy rows),
    vidur_unmatched (rows without a raw-file line), vidur_tidy_dups (exact duplicates skipped)."""
    tidy_path = os.path.join(shared, SHARED_FILE)
    tidy = read_csv(tidy_path)
    # index raw network files for line-level provenance
    raw_index = {}
    for topo in sorted(VIDUR_TOPO):
        for coll in ("all_reduce", "send_recv"):
            p = os.path.join(shared, "vidur", "profiling", "network", topo, coll + ".csv")
            if not os.path.exists(p):
                continue
            for row, line in read_csv_with_lines(p):
                k = (topo, coll, row["num_workers"], row["devices_per_node"], row["size"],
                     row["time_stats.%s.median" % coll], row["time_stats.%s.min" % coll],
                     row["time_stats.%s.max" % coll], row["time_stats.%s.mean" % coll])
                raw_index.setdefault(k, []).append(line)
    out = []
    unmatched = 0
    used = Counter()
    identical_send_recv = files_identical(
        os.path.join(shared, "vidur/profiling/network/a100_pairwise_nvlink/send_recv.csv"),
        os.path.join(shared, "vidur/profiling/network/h100_pairwise_nvlink/send_recv.csv"))
    seen_rows = set()
    tidy_dups = 0
    for x in tidy:
        sig = tuple(x.items())
        if sig in seen_rows:
            tidy_dups += 1
            continue
        seen_rows.add(sig)
        topo, coll = x["topology"], x["collective"]
        if not vidur_collective_kept(x["size_bytes"]):
            continue
        k = (topo, coll, x["num_workers"], x["devices_per_node"], x["size_bytes"],
             x["time_ms_median"], x["time_ms_min"], x["time_ms_max"], x["time_ms_mean"])
        lines = raw_index.get(k, [])
        idx = used[k]
        used[k] += 1
        line = lines[idx] if idx < len(lines) else (lines[-1] if lines else None)
        if line is None:
            unmatched += 1
        ref = "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])
        if line:
            ref += ":%d" % line
        gpu, fab_intra, _ = VIDUR_TOPO[topo]
        ranks = int(x["num_workers"])
        rpn = int(x["devices_per_node"])
        nodes = ranks // rpn
        notes = ["topology %s" % topo]
        fab_inter = ""
        if nodes > 1:
            fab_inter = "unknown"
            notes.append("inter-node fabric not documented")
        if topo.endswith("pairwise_nvlink") and rpn > 2:
            notes.append("spans NVLink pairs (PCIe between pairs)")
        if topo == "h100_pairwise_nvlink" and coll == "send_recv" and identical_send_recv:
            notes.append("suspicious: source file byte-identical to a100_pairwise_nvlink/send_recv.csv")
        if topo == "a40_pairwise_nvlink" and rpn == 2:
            notes.append("suspicious: intra-node pair far below NVLink-bridge bandwidth")
        notes.append("median; min/max/mean ms %s/%s/%s" % (x["time_ms_min"], x["time_ms_max"], x["time_ms_mean"]))
        r = OrderedDict()
        r["source"] = "vidur"
        r["source_ref"] = ref
        r["collective"] = coll
        r["size_bytes"] = x["size_bytes"]
        r["dtype"] = {"float16": "fp16"}.get(x["dtype"], x["dtype"])
        r["ranks"] = ranks
        r["nodes"] = nodes
        r["ranks_per_node"] = rpn
        r["gpu"] = gpu
        r["fabric_intra"] = fab_intra
        r["fabric_inter"] = fab_inter
        r["algorithm"] = ""
        r["time_s"] = ms_to_s(x["time_ms_median"])
        r["algbw_GBps"] = x["algbw_GBps"]
        r["busbw_GBps"] = x["busbw_GBps"]
        r["in_place"] = "1" if coll == "all_reduce" else ""
        r["status"] = "ok"
        r["notes"] = join_notes(notes)
        out.append(r)
    if stats is not None:
        stats["vidur_coll_in"] = len(tidy)
        stats["vidur_unmatched"] = unmatched
        stats["vidur_tidy_dups"] = tidy_dups
    return out
