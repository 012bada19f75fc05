#pragma once
// Decoder-only model_types of Hugging Face config.json (private to libpredict's HF import).
#include <string>
#include <vector>

#include "hf_fields.hpp"
#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::hf {

// Fills transformer-family params for a known decoder-only model_type; false for any other type.
bool import_decoder(const json& j, const std::string& path, const std::string& type, YAML::Node& p);
// An unknown model_type carrying the standard decoder fields (hidden_size, num_hidden_layers,
// num_attention_heads, intermediate_size, vocab_size): a Llama-style decoder, with a warning that
// names every assumption. False when a standard field is missing.
bool import_generic_decoder(const json& j, const std::string& path, const std::string& type, YAML::Node& p,
                            std::vector<std::string>& warnings);
std::string decoder_types();  // "llama | mistral | ..." for messages

}  // namespace ptp::predict::hf
