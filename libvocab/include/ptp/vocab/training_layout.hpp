#pragma once
// How a data-parallel job lays out its training state (sharding) and what its backward redoes
// (activation recomputation): the job spec's `sharding` and `activation_checkpointing` values, the
// dataset rows' columns of the same names, and the predictor's reading of them.
#include "ptp/vocab/enum_names.hpp"

namespace ptp::vocab {

enum class Sharding { none, zero1, zero2, zero3, fsdp, hsdp };
const EnumNames<Sharding>& sharding_names();
const char* sharding_name(Sharding s);
// What each mode splits over the data-parallel group: ZeRO-1 the optimizer state, ZeRO-2 also the
// gradients, ZeRO-3, FSDP and HSDP also the weights themselves.
bool shards_optimizer(Sharding s);
bool shards_grads(Sharding s);
bool shards_weights(Sharding s);

enum class Recompute { none, selective, full };
const EnumNames<Recompute>& recompute_names();
const char* recompute_name(Recompute r);

}  // namespace ptp::vocab
