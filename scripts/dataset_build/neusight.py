"""sitar-lab/NeuSight (`neusight`): shared/data/neusight/data/dataset/test/*.csv -> ops rows.

FP32 per-kernel latencies; GEMM / batched GEMM / elementwise / layernorm / softmax shapes with derived
FLOPs and compulsory bytes (formulas in datasets/README.md).
"""

import os
import re
from collections import OrderedDict

from .catalog import GPU_UNMAPPED_REASON, map_gpu
from .common import join_notes, ms_to_s, read_csv_with_lines

NEUSIGHT_COMMIT = "6945927d9afcca2b9daf021f8395e53edc5b4eef"
TEST_DIR = os.path.join("neusight", "data", "dataset", "test")
TEST_FILES = ("bmm", "linear", "elem", "ln", "softmax")


# elementwise ops in NeuSight elem.csv: number of tensors read+written per element
ELEM_TENSORS = {"add": 3, "mul": 3, "div": 3, "pow": 3,
                "addu": 2, "mulu": 2, "divu": 2, "powu": 2,
                "relu": 2, "tanh": 2, "gelu": 2}
ARRAY_RE = re.compile(r"Array<char\*, (\d+)>")


def build(shared, stats=None):
    """ops rows from the five NeuSight test files; stats["neusight_in"] = input rows."""
    base = os.path.join(shared, TEST_DIR)
    out = []
    nin = 0
    for fname in TEST_FILES:
        path = os.path.join(base, fname + ".csv")
        for x, line in read_csv_with_lines(path):
            nin += 1
            op = x["OPName"]
            ref = "test/%s.csv:%d" % (fname, line)
            dev = x["Device"]
            gpu = map_gpu(dev)
            notes = []
            if not gpu:
                notes.append("device %s; gpu_unmapped (%s)" % (dev, GPU_UNMAPPED_REASON.get(dev, "no catalog id")))
            m = n = k = batch = ""
            flops = nbytes = ""
            if fname in ("bmm", "linear"):
                B, M, N, K = (int(x[c]) for c in ("B", "M", "N", "K"))
                if fname == "bmm":
                    op_class = "batched_gemm"
                    m, n, k, batch = M, N, K, B
                else:
                    op_class = "gemm"
                    m, n, k, batch = B * M, N, K, 1
                flops = 2 * m * n * k * batch
                nbytes = 4 * batch * (m * k + k * n + m * n)
                shape = "B=%d;M=%d;N=%d;K=%d" % (B, M, N, K)
                kernels = [s for s in x["Kernels"].split(";") if s]
                if len(kernels) > 1:
                    notes.append("%d kernels launched" % len(kernels))
            else:
                B, H = int(x["B"]), int(x["H"])
                m, n = B, H
                nel = B * H
                shape = "B=%d;H=%d" % (B, H)
                if fname == "elem":
                    op_class = "elementwise"
                    nt = ELEM_TENSORS[op]
                    a = ARRAY_RE.search(x["Kernel Name"])
                    if a and int(a.group(1)) != nt:
                        raise SystemExit("unexpected tensor count for %s: %s" % (op, x["Kernel Name"]))
                    flops = nel
                    nbytes = 4 * nt * nel
                elif fname == "ln":
                    op_class = "layernorm"
                    flops = 8 * nel
                    nbytes = 4 * (2 * nel + 2 * H)
                else:
                    op_class = "softmax"
                    flops = 5 * nel
                    nbytes = 4 * 2 * nel
            r = OrderedDict()
            r["source"] = "neusight"
            r["source_ref"] = ref
            r["op_class"] = op_class
            r["op_name"] = op
            r["m"], r["n"], r["k"], r["batch"] = m, n, k, batch
            r["shape"] = shape
            r["dtype_in"] = r["dtype_compute"] = r["dtype_out"] = "fp32"
            r["flops"] = flops
            r["bytes"] = nbytes
            r["gpu"] = gpu
            r["time_s"] = ms_to_s(x["Latency"])
            r["time_s_min"] = ""
            r["time_s_max"] = ""
            r["reps"] = ""
            r["status"] = "ok"
            r["reason"] = ""
            # Template arguments dropped: they triple the file size and carry no timing information.
            r["kernel_name"] = x["Kernel Name"].split("<")[0]
            r["notes"] = join_notes(notes)
            r["_key"] = ref + "|" + op
            out.append(r)
    if stats is not None:
        stats["neusight_in"] = nin
    return out
