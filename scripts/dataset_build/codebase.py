"""The publishing codebase of each run (runs.csv `codebase`): one codebase and its version family.

A codebase's speed is a property of its code (kernels, fusions, overlap, input pipeline), not of the
workload, so ptp-train holds it out whole (leave-one-codebase-out) and gives each one an offset of
its own. DeepLearningExamples is one codebase per framework: its PyTorch, TensorFlow 1/2, MXNet and
Paddle scripts share no code. The table is keyed by (source, framework as published); a row whose
pair is missing fails the build, so a new source cannot slip in without a codebase.
"""

CODEBASES = {
    ("dle", "PyTorch"): "dle-pytorch",
    ("dle", "PyTorch+DGL"): "dle-pytorch",
    ("dle", "TensorFlow1"): "dle-tensorflow1",
    ("dle", "TensorFlow2"): "dle-tensorflow2",
    ("dle", "MXNet"): "dle-mxnet",
    ("dle", "PaddlePaddle"): "dle-paddle",
    ("lambda", "PyTorch (NVIDIA DeepLearningExamples fork)"): "lambda",
    ("llm", "Megatron-Bridge (NeMo, Megatron-Core, Transformer Engine)"): "megatron-bridge",
    ("llm", "Megatron-Core"): "megatron-lm",
    ("llm", "Megatron-LM"): "megatron-lm",
    ("llm", "NeMo (Megatron-Core, Transformer Engine)"): "nemo",
    ("llm", "NeMo AutoModel (PyTorch FSDP2, Transformer Engine)"): "nemo-automodel",
    ("llm", "llm-foundry (Composer, PyTorch FSDP)"): "llm-foundry",
    ("llm", "llm.c (CUDA/C, cuDNN)"): "llm.c",
    ("llm", "torchtitan (PyTorch FSDP2/DTensor)"): "torchtitan",
}


def assign_codebases(runs):
    """Sets r["codebase"] on every run; raises on a (source, framework) pair the table lacks."""
    missing = sorted({(r["source"], r["framework"]) for r in runs if (r["source"], r["framework"]) not in CODEBASES})
    if missing:
        raise SystemExit("build_datasets: no codebase for (source, framework) %s: add it to "
                         "scripts/dataset_build/codebase.py" % missing)
    for r in runs:
        r["codebase"] = CODEBASES[(r["source"], r["framework"])]
