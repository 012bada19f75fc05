#!/bin/bash
# Synthetic: the arguments of llama3-8b-megatron.args as a shell command line with `\` continuations,
# written for ptp's tests (flag names from Megatron-LM 67f3515c's megatron/training/arguments.py).
export CUDA_DEVICE_MAX_CONNECTIONS=1
CUDA_DEVICE_MAX_CONNECTIONS=1 NCCL_IB_SL=1 torchrun --nproc_per_node 8 --nnodes 2 \
    --node_rank $NODE_RANK --master_addr $MASTER_ADDR --master_port 6000 \
    pretrain_gpt.py \
    --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 \
    --num-attention-heads 32 --group-query-attention --num-query-groups 8 \
    --swiglu --normalization RMSNorm --position-embedding-type rope \
    --max-position-embeddings 8192 --vocab-size 128256 \
    --untie-embeddings-and-output-weights --disable-bias-linear \
    --attention-dropout 0.0 --hidden-dropout 0.0 \
    --seq-length 8192 --micro-batch-size 1 --global-batch-size 128 --train-iters 1000 \
    --tensor-model-parallel-size 2 --context-parallel-size 2 --sequence-parallel \
    --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather \
    --bf16 --cross-entropy-loss-fusion \
    --lr 3.0e-4 --min-lr 3.0e-5 --lr-decay-style cosine --weight-decay 0.1 --clip-grad 1.0 \
    --data-path /data/synthetic_text_document --tokenizer-type NullTokenizer \
    --log-interval 10 --no-masked-softmax-fusion --distributed-timeout-minutes=60 \
    2>&1 | tee train.log
