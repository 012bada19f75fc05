"""Catalog mappings: published model / GPU / precision names -> ptp catalog ids.

Shared by every source module. A published name missing from these maps yields an empty id
(and a `*_unmapped` flag or note), never an error.
"""

import re

ZOO_IDS = set("""resnet50 resnet101 resnext101-32x4d se-resnext101-32x4d
efficientnet-b0 efficientnet-b4 efficientnet-widese-b0
efficientnet-widese-b4 efficientnet-v2-s vit-b16 vit-l16 ssd300 maskrcnn-r50-fpn unet
bert-base bert-large electra-base electra-base-pretraining bart-large t5-base
transformer-big transformer-xl-base transformer-xl-large gnmt ncf dlrm tacotron2 jasper-10x5dr
waveglow gpt2 gpt2-medium gpt2-large gpt2-xl gpt3-xl gpt3-2.7b opt-1.3b llama2-7b
llama3-8b llama3-70b""".split())
LLM_EXTRA_IDS = set("""llama2-13b llama2-70b llama3.1-405b mpt-125m mpt-350m mpt-760m
mpt-1b mpt-3b mpt-7b mpt-13b mpt-30b mpt-70b gpt3-175b gpt3-5b gpt3-20b gpt3-125m
nemotron4-340b nemotron-8b nemotron-22b qwen2.5-7b qwen2.5-32b qwen3-8b""".split())

# DLE / Lambda published model names -> zoo id (anything not listed: unmapped)
MODEL_MAP = {
    "ResNet-50 v1.5": "resnet50",
    "ResNeXt-101 32x4d": "resnext101-32x4d",
    "SE-ResNeXt-101 32x4d": "se-resnext101-32x4d",
    "efficientnet-b0": "efficientnet-b0",
    "EfficientNet-B0": "efficientnet-b0",
    "efficientnet-b4": "efficientnet-b4",
    "EfficientNet-B4": "efficientnet-b4",
    "efficientnet-widese-b0": "efficientnet-widese-b0",
    "efficientnet-widese-b4": "efficientnet-widese-b4",
    "EfficientNet v2-S": "efficientnet-v2-s",
    "SSD300 v1.1 (ResNet-50 backbone)": "ssd300",
    "SSD300 v1.1 (ResNet-50)": "ssd300",
    "Mask R-CNN (ResNet-50 FPN)": "maskrcnn-r50-fpn",
    "U-Net Medical": "unet",
    "BERT-large": "bert-large",
    "BERT-base": "bert-base",
    "BioBERT (BERT-base)": "bert-base",
    "BART-large": "bart-large",
    "Transformer-XL Base": "transformer-xl-base",
    "Transformer-XL Large": "transformer-xl-large",
    "GNMT v2": "gnmt",
    "NCF": "ncf",
    "DLRM (small)": "dlrm",
    "DLRM (large)": "dlrm",
    "Tacotron2": "tacotron2",
    "Jasper 10x5 DR": "jasper-10x5dr",
    "WaveGlow": "waveglow",
}
# LLM file: model_canonical -> our id (identity for ids in the allowed lists)
LLM_MODEL_RENAME = {
    "gpt-2-124m": "gpt2",
    "gpt-2-350m": "gpt2-medium",
    "gpt-2-774m": "gpt2-large",
    "gpt-2-1558m": "gpt2-xl",
}
MEGATRON_FAMILY_RE = re.compile(r"^megatron-gpt-[0-9.]+[bt]-(2021|2024)family$")

GPU_MAP = {
    # DLE
    "A100-SXM4-80GB": "a100-sxm4-80gb",
    "A100-SXM4-40GB": "a100-sxm4-40gb",
    "V100-SXM2-16GB": "v100-sxm2-16gb",
    "V100-SXM2-32GB": "v100-sxm2-32gb",
    "V100-SXM3-32GB": "v100-sxm3-32gb",
    "V100-SXM3-32GB-H (450W)": "v100-sxm3-32gb-h",
    # Lambda
    "Quadro RTX 8000": "quadro-rtx-8000",
    "Quadro RTX 6000": "quadro-rtx-6000",
    "Quadro RTX 5000": "quadro-rtx-5000",
    "RTX 2080 Ti": "rtx-2080-ti",
    "V100 SXM2 16GB": "v100-sxm2-16gb",
    "V100 32GB": "v100-sxm2-32gb",  # see lambda_labs.LAMBDA_V100_32_NOTE
    "RTX A6000": "rtx-a6000",
    "RTX A5500": "rtx-a5500",
    "RTX A5000": "rtx-a5000",
    "RTX A4500": "rtx-a4500",
    "RTX A4000": "rtx-a4000",
    "A100 SXM4 80GB": "a100-sxm4-80gb",
    "A100 SXM4 40GB": "a100-sxm4-40gb",
    "A100 SXM4 40GB (AWS p4d)": "a100-sxm4-40gb",
    "A100 PCIe 40GB": "a100-pcie-40gb",
    "A100 PCIe 80GB": "a100-pcie-80gb",
    "RTX 3090": "rtx-3090",
    "RTX 3080": "rtx-3080",
    "RTX 3070": "rtx-3070",
    "RTX 4090": "rtx-4090",
    "RTX 6000 Ada": "rtx-6000-ada",
    "A40": "a40",
    "A10": "a10",
    "GTX 1080 Ti": "gtx-1080-ti",
    "Titan RTX": "titan-rtx",
    "RTX 3080 Max-Q (laptop)": "rtx-3080-maxq",
    "RTX 2070 Max-Q (laptop)": "rtx-2070-maxq",
    "RTX 2080 Max-Q (laptop)": "rtx-2080-maxq",
    "RTX 2080 Super Max-Q (laptop)": "rtx-2080-super-maxq",
    # LLM file
    "H100-SXM-80GB": "h100-sxm5-80gb",
    "H100 (SXM, 80GB assumed)": "h100-sxm5-80gb",
    "H100-SXM-96GB-HBM2e (500W power limit)": "h100-sxm5-96gb",
    "H200-141GB": "h200-sxm-141gb",
    "A100-SXM-40GB": "a100-sxm4-40gb",
    "A100-SXM-80GB": "a100-sxm4-80gb",
    "B200": "b200-sxm-180gb",
    "B200 (power limited)": "b200-sxm-180gb",
    "B300": "b300-sxm",
    "GB200": "gb200",
    "GB300": "gb300",
    # nccl_allreduce.csv
    "H100-SXM5-80GB": "h100-sxm5-80gb",
    "H200-SXM-141GB": "h200-sxm-141gb",
    # NeuSight devices
    "NVIDIA A100 80GB PCIe": "a100-pcie-80gb",
    "NVIDIA A100-PCIE-40GB": "a100-pcie-40gb",
    "NVIDIA H100 80GB HBM3": "h100-sxm5-80gb",
    "Tesla V100-PCIE-32GB": "v100-pcie-32gb",
    "NVIDIA L4": "l4",
    "Tesla T4": "t4",
    "Tesla P4": "p4",
    "Tesla P100-PCIE-16GB": "p100-pcie-16gb",
    "H100-PCIe-80GB": "h100-pcie-80gb",
}
# published GPU names deliberately left without a catalog id
GPU_UNMAPPED_REASON = {
    "A100 (memory not stated)": "A100 memory size not stated in source",
    "NVIDIA Blackwell SM100 (not named; ~184 GiB implied by memory %)": "Blackwell SKU not named in source",
    "NVIDIA Blackwell SM100 (not named)": "Blackwell SKU not named in source",
}
# sm_80 or newer (Ampere, Ada, Hopper, Blackwell): NGC containers run "FP32" as TF32
SM80_PLUS = set("""a100-sxm4-80gb a100-sxm4-40gb a100-pcie-40gb a100-pcie-80gb a10 a40
rtx-a6000 rtx-a5500 rtx-a5000 rtx-a4500 rtx-a4000 rtx-6000-ada rtx-4090 rtx-3090
rtx-3080 rtx-3070 rtx-3080-maxq h100-sxm5-80gb h100-sxm5-96gb h200-sxm-141gb
b200-sxm-180gb b300-sxm gb200 gb300""".split())

PRECISION_MAP = {
    "FP32": "fp32", "TF32": "tf32", "AMP_FP16": "amp_fp16", "AMP_BF16": "amp_bf16",
    "FP16_MASTER_WEIGHTS": "fp16", "BF16": "bf16", "FP8": "fp8", "FP4": "fp4",
    "FP16": "fp16",
}

# throughput units that count whole samples (images, sequences, samples ...)
SAMPLE_UNITS = {"img/s", "sequences/s", "samples/s", "volumes/s", "molecules/s",
                "items/s", "users/s"}
BATCH_UNIT_MAP = {
    "images": "images", "sequences": "sequences", "sentences": "sequences",
    "samples": "samples", "volumes": "samples", "molecules": "samples",
    "users": "samples", "": "",
}


def map_gpu(published):
    """Catalog GPU id for a published GPU name; empty string when there is none."""
    return GPU_MAP.get(published, "")


def model_id_allowed(model):
    """True when `model` is a zoo id, an LLM-table id or a Megatron family id."""
    return model in ZOO_IDS or model in LLM_EXTRA_IDS or bool(MEGATRON_FAMILY_RE.match(model))
