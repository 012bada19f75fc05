#!/bin/bash
# Synthetic: the arguments of llama3-8b-megatron.args as a launch script of variables and bash arrays
# and one command using them, written for ptp's tests (flag names from Megatron-LM 67f3515c).
set -euo pipefail
export TP=2
export CP=2
GBS=128
MODEL_ARGS=(
    --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336
    --num-attention-heads 32 --group-query-attention --num-query-groups 8
    --swiglu --normalization RMSNorm            # Llama: gated MLP, RMSNorm
    --position-embedding-type rope --max-position-embeddings 8192 --vocab-size 128256
    --untie-embeddings-and-output-weights --disable-bias-linear
    --attention-dropout 0.0 --hidden-dropout 0.0
)
TRAINING_ARGS="--seq-length 8192 --micro-batch-size ${MBS:-1} --global-batch-size $GBS --train-iters 1000"
PARALLEL_ARGS=(--tensor-model-parallel-size "$TP" --context-parallel-size ${CP} --sequence-parallel)
PARALLEL_ARGS+=(--use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather)
OTHER_ARGS='--bf16 --cross-entropy-loss-fusion --lr 3.0e-4 --min-lr 3.0e-5 --lr-decay-style cosine --weight-decay 0.1 --clip-grad 1.0'
DATA_ARGS="--data-path /data/synthetic_text_document --tokenizer-type NullTokenizer"
LOG_ARGS="--log-interval 10 --no-masked-softmax-fusion --distributed-timeout-minutes 60"
torchrun --nproc_per_node 8 pretrain_gpt.py "${MODEL_ARGS[@]}" $TRAINING_ARGS "${PARALLEL_ARGS[@]}" \
    $OTHER_ARGS $DATA_ARGS $LOG_ARGS
