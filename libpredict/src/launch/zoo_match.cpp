// A launch file that defines its model by sizes often runs a model the zoo has (Llama 3 8B from a
// Megatron argument list). Predicting the zoo's entry instead of an anonymous "megatron-args:" model
// lets the learned levels see a model they were trained on, where the sizes agree in full.
#include <cmath>

#include "ptp/predict/launch_import.hpp"
#include "ptp/predict/model_zoo.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

// A parameter's value with the default the transformer family gives one left out.
std::optional<std::string> value_of(const YamlReader& p, const std::string& key) {
  if (p.has(key)) {
    const auto c = p.child(key);
    if (!c.is_scalar()) return std::nullopt;
    return c.as_string();
  }
  auto number = [&](const char* k) { return p.has(k) ? p.get_number(k, 0, 1e12, 0) : 0.0; };
  auto text = [](double v) { return std::to_string(static_cast<long long>(std::llround(v))); };
  if (key == "kv_heads") return text(number("heads"));
  if (key == "head_dim" && number("heads") > 0) return text(number("hidden") / number("heads"));
  if (key == "qkv_bias") return std::string("false");
  return std::nullopt;
}

// The vocabulary Megatron pads (to a multiple of 128 x TP) is the zoo's when it is within 1 %.
bool same_vocab(const std::string& padded, const std::string& zoo) {
  try {
    const double a = std::stod(padded), b = std::stod(zoo);
    return b > 0 && a >= b && (a - b) / b < 0.01;
  } catch (const std::exception&) {
    return false;
  }
}

bool same_model(const ModelDesc& launch, const ModelDesc& zoo) {
  if (zoo.family != "transformer" || launch.family != zoo.family) return false;
  const YamlReader& a = launch.params;
  const YamlReader& b = zoo.params;
  auto agree = [&](const std::string& key) {
    const auto x = value_of(a, key), y = value_of(b, key);
    if (!x || !y) return false;
    return key == "vocab" ? same_vocab(*x, *y) : *x == *y;
  };
  for (const auto& key : a.keys())
    if (!agree(key)) return false;
  // A zoo model with more to it (sliding windows, MTP, a Mamba mixer) is another model.
  for (const auto& key : b.keys())
    if (!a.has(key) && !agree(key)) return false;
  return true;
}

}  // namespace

const ModelDesc* zoo_model_matching(const ModelDesc& launch_model, const Catalogs& catalogs) {
  if (launch_model.family != "transformer") return nullptr;
  for (const auto& id : zoo_ids(catalogs.models_dir())) {
    try {
      const ModelDesc& zoo = catalogs.model(id);
      if (same_model(launch_model, zoo)) return &zoo;
    } catch (const InputError&) {
      // A zoo file that does not load matches nothing; predicting it by name reports it.
    }
  }
  return nullptr;
}

}  // namespace ptp::predict
