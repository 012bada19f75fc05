// The space a search walks: the default axes for a job, or SPACE.yaml's lists replacing them. Values
// are kept as canonical --set text so a row's flags reproduce it exactly through the ordinary path.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "ptp/predict/detail/parallelism.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"
#include "search_fields.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

// Longer lists are typing accidents or attacks; a real axis has a handful of values.
constexpr std::size_t kMaxAxisValues = 1024;
// Interleaving deeper than this buys less than 1/8 of a stage's bubble and multiplies the pipeline's
// point-to-point sends; Megatron's published layouts stay at or below it.
constexpr int kMaxDefaultVirtualPipeline = 8;

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::vector<std::string> texts(const std::vector<int>& v) {
  std::vector<std::string> out;
  for (int x : v) out.push_back(std::to_string(x));
  return out;
}

// The job's global batch in samples, from what the job states (resolved: DP from its layout).
double samples_per_step(const ResolvedJob& r) { return r.samples_per_step; }

void add_axis(SearchSpace& s, const std::string& key, std::vector<std::string> values) {
  s.axes.push_back({key, std::move(values), false});
}

// The global batch stays what the job trains with, whatever the micro-batch and layout: grad_accum
// is derived. A job that states grad_accum instead gets its global batch written out.
void keep_global_batch(SearchSpace& s, const JobSpec& base, const ResolvedJob& r,
                       const std::set<std::string>& listed) {
  if (base.global_batch_size || listed.count("grad_accum") || listed.count("global_batch_size")) return;
  s.fixed.emplace_back("global_batch_size", std::to_string(static_cast<long long>(std::llround(samples_per_step(r)))));
}

// Micro-batches 1, 2, 4, ... up to the global batch (memory pruning finds the limit per layout).
std::vector<std::string> micro_batches(const JobSpec& base, const ResolvedJob& r) {
  std::vector<std::string> out;
  const double global = samples_per_step(r);
  for (long long mb = 1; mb <= global && out.size() < 40; mb *= 2)
    out.push_back(std::to_string(base.batch_tokens > 0 ? mb * base.seq_len : mb));
  return out;
}

// The job parser's message names the job file (and no line: --set values have none); the space file
// is what the user must fix, so its location replaces the job's.
std::string without_location(std::string message, const std::string& job_file) {
  if (message.rfind(job_file, 0) != 0) return message;
  std::size_t i = job_file.size();
  while (i < message.size() && (message[i] == ':' || std::isdigit(static_cast<unsigned char>(message[i])))) ++i;
  if (message.compare(i, 1, " ") == 0) ++i;
  return message.substr(i);
}

}  // namespace

const std::vector<std::string>& searchable_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& f : search_fields()) k.push_back(f.key);
    return k;
  }();
  return keys;
}

SearchSpace default_search_space(const JobSpec& base, const Predictor& predictor) {
  const ResolvedJob r = resolve_job(base, predictor.catalogs());
  SearchSpace s;
  std::vector<std::string> precisions;
  for (const auto& p : precision_table())
    if (precision_refusal(*r.gpu, p).empty()) precisions.push_back(p.id);
  add_axis(s, "precision", precisions);
  if (r.model->family == "transformer") {  // what layout_refusal lets split (resolve_job.cpp)
    add_axis(s, "parallelism.tensor", texts(divisors(r.gpus_per_node)));
    add_axis(s, "parallelism.pipeline", texts(divisors(count_blocks(r.workload))));
    s.axes.push_back({"parallelism.virtual_pipeline", {}, true});
    add_axis(s, "parallelism.context", texts(divisors(r.gpus_per_node)));
    // Sequence parallelism shards the activations the tensor group keeps whole (and trades its
    // all-reduces for reduce-scatter + all-gather): both values where TP > 1, none at TP 1.
    s.axes.push_back({"sequence_parallel", {"false", "true"}, false, true});
  }
  add_axis(s, "sharding", {sharding_name(Sharding::none), sharding_name(Sharding::zero1), sharding_name(Sharding::zero2),
                           sharding_name(Sharding::fsdp)});
  add_axis(s, "activation_checkpointing", names_of(recompute_names()));
  add_axis(s, base.batch_tokens > 0 ? "batch_tokens" : "batch_size", micro_batches(base, r));
  keep_global_batch(s, base, r, {});
  return s;
}

std::vector<std::string> virtual_pipeline_values(const JobSpec& job, int blocks) {
  const int pp = job.parallelism.pipeline;
  if (pp <= 1 || blocks % pp != 0) return {"1"};
  std::vector<std::string> out;
  for (int v : divisors(blocks / pp))
    if (v <= kMaxDefaultVirtualPipeline) out.push_back(std::to_string(v));
  return out;
}

SearchSpace load_search_space(const std::string& path, const JobSpec& base, const std::string& job_file,
                              const std::vector<Override>& overrides, const Predictor& predictor) {
  return parse_search_space(read_text_file(path, 1u << 20, "YAML text"), path, base, job_file, overrides, predictor);
}

SearchSpace parse_search_space(const std::string& text, const std::string& path, const JobSpec& base,
                               const std::string& job_file, const std::vector<Override>& overrides,
                               const Predictor& predictor) {
  const auto doc = YamlReader::load_string(text, path);
  if (!doc.node().IsDefined() || doc.node().IsNull())
    throw InputError(path, 0, 0, "", "empty document, expected a mapping of spec keys to lists of values");
  if (!doc.is_map())
    doc.fail("expected a mapping of spec keys to lists of values (e.g. precision: [bf16, fp8])");
  doc.check_keys(searchable_keys());
  if (doc.size() == 0) doc.fail("expected at least one key with a list of values");
  const std::string job_text = read_text_file(job_file, 4u << 20, "YAML text");
  std::set<std::string> listed;
  std::vector<std::pair<std::string, std::vector<std::string>>> lists;
  for (const auto& key : doc.keys()) {
    const auto list = doc.child(key);
    if (!list.is_sequence() || list.size() == 0) list.fail("expected a non-empty list of values");
    if (list.size() > kMaxAxisValues)
      list.fail(std::to_string(list.size()) + " values, more than " + std::to_string(kMaxAxisValues));
    const auto& field = search_field(key);
    std::vector<std::string> values;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto item = list.element(i);
      if (!item.is_scalar()) item.fail("expected a scalar value");
      const std::string raw = item.as_string();
      // The job spec's own validation judges the value: the job with --set key=value must parse.
      JobSpec parsed;
      try {
        YAML::Node root = YamlReader::load_string(job_text, job_file).node();
        for (const auto& ov : overrides) apply_override(root, ov);
        apply_override(root, {key, raw});
        parsed = parse_job_spec(YamlReader(root, job_file, ""));
        if (key == "cluster.gpu") predictor.catalogs().gpus().get(parsed.cluster.gpu, "");
        if (key == "cluster.inter_node") predictor.catalogs().fabrics().get(parsed.cluster.inter_node, "");
      } catch (const InputError& e) {
        item.fail("value '" + raw + "': " + without_location(e.what(), job_file));
      }
      const std::string canonical = field.get(parsed);
      if (std::find(values.begin(), values.end(), canonical) != values.end())
        item.fail("value '" + raw + "' appears twice");
      values.push_back(canonical);
    }
    listed.insert(key);
    lists.emplace_back(key, std::move(values));
  }
  // Listed keys replace their default axes; the rest of the default space stays.
  SearchSpace defaults = default_search_space(base, predictor);
  SearchSpace s;
  for (const auto& key : searchable_keys()) {
    auto it = std::find_if(lists.begin(), lists.end(), [&](const auto& l) { return l.first == key; });
    if (it != lists.end()) {
      s.axes.push_back({key, it->second, false});
      continue;
    }
    // The micro-batch is one axis under two spellings: a listed one replaces the default.
    const bool batch = key == "batch_size" || key == "batch_tokens";
    if (batch && (listed.count("batch_size") || listed.count("batch_tokens"))) continue;
    for (const auto& a : defaults.axes)
      if (a.key == key && !(batch && listed.count("grad_accum"))) s.axes.push_back(a);
  }
  const ResolvedJob r = resolve_job(base, predictor.catalogs());
  keep_global_batch(s, base, r, listed);
  s.file = path;
  return s;
}

const EnumNames<SearchObjective>& search_objective_names() {
  static const EnumNames<SearchObjective> names = {
      {SearchObjective::time, "time", ""},
      {SearchObjective::cost, "cost", ""},
      {SearchObjective::gpu_hours, "gpu_hours", ""},
      {SearchObjective::energy, "energy", "facility kWh"},
      {SearchObjective::carbon, "carbon", "needs energy.grid_gco2_per_kwh"},
  };
  return names;
}

SearchObjective parse_search_objective(const std::string& name) {
  return parse_named(search_objective_names(), name, "--objective");
}

const char* search_objective_name(SearchObjective o) { return name_of(search_objective_names(), o); }

}  // namespace ptp::predict
