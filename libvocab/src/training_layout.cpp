#include "ptp/vocab/training_layout.hpp"

namespace ptp::vocab {

const EnumNames<Sharding>& sharding_names() {
  static const EnumNames<Sharding> names = {
      {Sharding::none, "none", "every data-parallel rank holds the whole training state"},
      {Sharding::zero1, "zero1", "optimizer state sharded (Megatron distributed optimizer)"},
      {Sharding::zero2, "zero2", "optimizer state and gradients sharded"},
      {Sharding::zero3, "zero3", "optimizer state, gradients and weights sharded"},
      {Sharding::fsdp, "fsdp", "PyTorch FSDP: everything sharded over the data-parallel group"},
      {Sharding::hsdp, "hsdp", "hybrid FSDP: sharded within a node group, replicated across groups"},
  };
  return names;
}

const char* sharding_name(Sharding s) { return name_of(sharding_names(), s); }

bool shards_optimizer(Sharding s) {
  switch (s) {
    case Sharding::none:
      return false;
    case Sharding::zero1:
    case Sharding::zero2:
    case Sharding::zero3:
    case Sharding::fsdp:
    case Sharding::hsdp:
      return true;
  }
  return false;
}

bool shards_grads(Sharding s) { return s == Sharding::zero2 || shards_weights(s); }

bool shards_weights(Sharding s) {
  switch (s) {
    case Sharding::none:
    case Sharding::zero1:
    case Sharding::zero2:
      return false;
    case Sharding::zero3:
    case Sharding::fsdp:
    case Sharding::hsdp:
      return true;
  }
  return false;
}

const EnumNames<Recompute>& recompute_names() {
  static const EnumNames<Recompute> names = {
      {Recompute::none, "none", "every activation the backward needs is kept"},
      {Recompute::selective, "selective", "what the framework redoes selectively (memory.convention): the ops on attention scores (Megatron), or all but every second matmul and the fused attention (torchtitan)"},
      {Recompute::full, "full", "each block's forward is redone in the backward"},
  };
  return names;
}

const char* recompute_name(Recompute r) { return name_of(recompute_names(), r); }

}  // namespace ptp::vocab
