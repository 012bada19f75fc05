#pragma once
// Rewrites of a family-built workload for how the job trains it: LoRA on a frozen base, GEMMs kept
// out of FP8/FP4, and sequences that are shorter than (or packed into) seq_len. resolve_job applies
// them after the family builds the graph, so every family, sharding and layout sees the same ops.
#include <string>

#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/workload.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// LoRA: every weight of the model becomes frozen (no weight gradient, no optimizer state, no
// gradient traffic; input gradients still flow), and each targeted projection gets its adapter pair
// A (in x r) and B (r x out) plus the scaled add into the projection's output. Errors (rank above a
// projection's size, no projection to target) name `model` and point at the job's finetune.* field.
void apply_finetune(Workload& w, const JobSpec& job, const std::string& model);

// Unpadded or packed sequences: per-token work follows the real tokens, attention the real
// sequence (or document) lengths; stashed activations keep the padded shapes the framework
// allocates. A no-op for the defaults.
void apply_sequence_layout(Workload& w, const SequenceLayoutSpec& s, int seq_len);

// Marks the GEMMs a recipe keeps in 16 bits under an FP8/FP4 policy (Op::high_precision): the first
// and last blocks of the main stack and the modules low_precision names. A no-op for the defaults.
void apply_low_precision(Workload& w, const LowPrecisionSpec& s);
// Blocks of the main stack (ops named layer<i>.*), and whether the workload has an MTP module.
int main_stack_blocks(const Workload& w);
bool has_mtp_module(const Workload& w);
// Whether an op belongs to a module low_precision.bf16_modules can name (lm_head, attention, mtp, ...).
bool in_module(const Op& op, const std::string& module);

// Real tokens a sequence of seq_len slots carries (seq_len unless unpadded).
double real_tokens_per_sequence(const JobSpec& j);

}  // namespace ptp::predict
