// A codebase's recipes fill the stack descriptors a job leaves unset (codebase_stack.hpp): the job
// then predicts as if it stated them, a stated value or a codebase the table does not name changes
// nothing, and the output says where each descriptor came from.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/codebase_stack.hpp"
#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/output.hpp"

using namespace ptp::predict;

namespace {
const Catalogs& catalogs() {
  static const Catalogs c(std::string(PTP_SOURCE_DIR) + "/configs");
  return c;
}

// Llama-3-8B on 16 H100: TP 4 + SP, PP 2 without the interleaved schedule, ZeRO-1 over DP 2.
const std::string kLayered =
    "model: llama3-8b\nprecision: bf16\nbatch_size: 1\nseq_len: 8192\ngrad_accum: 8\nsharding: zero1\n"
    "sequence_parallel: true\nparallelism: {tensor: 4, pipeline: 2}\n"
    "cluster: {gpu: h100-sxm5-80gb, num_gpus: 16}\n";

Prediction predict(const std::string& extra) {
  return predict_analytical(resolve_job(parse_job_spec(YamlReader::load_string(kLayered + extra, "job.yaml")), catalogs()));
}

const StackAssumption& assumption(const Prediction& p, const std::string& field) {
  for (const auto& s : p.stack)
    if (s.field == field) return s;
  FAIL("no stack element " << field);
  throw;
}
}  // namespace

TEST_CASE("every codebase stack row fills a flag field of the job spec and names its source", "[stack]") {
  REQUIRE_FALSE(codebase_stack_table().empty());
  for (const auto& row : codebase_stack_table()) {
    const JobField* f = find_job_field(row.field);
    REQUIRE(f != nullptr);
    CHECK(f->type == FieldType::flag);
    CHECK(std::string(row.source).size() > 20);
  }
}

TEST_CASE("a codebase's recipes predict as the descriptors they set, stated", "[stack][physics]") {
  // Megatron-Bridge: TP overlap on (TP 4 with SP), pipeline sends not overlapped without the
  // interleaved schedule, DP reduce and gather overlapped.
  const Prediction bridge = predict("codebase: megatron-bridge\n");
  const Prediction stated =
      predict("overlap: {tp_comm: true, p2p: false, grad_reduce: true, param_gather: true}\n");
  CHECK(bridge.iteration_s == Approx(stated.iteration_s).epsilon(1e-12));
  CHECK(bridge.breakdown.tp_communication == Approx(stated.breakdown.tp_communication).epsilon(1e-12));
  const Prediction none = predict("");
  CHECK(bridge.breakdown.forward == Approx(none.breakdown.forward).epsilon(1e-12));
  CHECK(bridge.breakdown.tp_communication < none.breakdown.tp_communication);  // half exposed -> hidden
  CHECK(bridge.breakdown.pp_communication > none.breakdown.pp_communication);  // half exposed -> exposed

  const auto& tp = assumption(bridge, "overlap.tp_comm");
  CHECK_FALSE(tp.stated);
  CHECK(tp.value);
  CHECK(tp.codebase == "megatron-bridge");
  CHECK(assumption(stated, "overlap.tp_comm").stated);
  CHECK(assumption(none, "overlap.tp_comm").codebase.empty());
}

TEST_CASE("a stated descriptor outranks the codebase's recipes", "[stack][physics]") {
  const Prediction bridge = predict("codebase: megatron-bridge\noverlap: {tp_comm: false}\n");
  const Prediction plain = predict("overlap: {tp_comm: false, p2p: false}\n");
  CHECK(bridge.breakdown.tp_communication == Approx(plain.breakdown.tp_communication).epsilon(1e-12));
  CHECK(assumption(bridge, "overlap.tp_comm").stated);
}

TEST_CASE("a codebase the table does not name, or a condition that does not hold, changes nothing", "[stack][physics]") {
  const Prediction none = predict("");
  const Prediction other = predict("codebase: my-own-trainer\n");
  CHECK(other.iteration_s == Approx(none.iteration_s).epsilon(1e-12));
  for (const auto& s : other.stack) CHECK(s.codebase.empty());
  // Megatron-Bridge gates TP overlap on sequence parallelism.
  std::string no_sp = kLayered + "codebase: megatron-bridge\n";
  no_sp.replace(no_sp.find("sequence_parallel: true"), 23, "sequence_parallel: false");
  JobSpec job = parse_job_spec(YamlReader::load_string(no_sp, "job.yaml"));
  for (const CodebaseStackDefault* row : apply_codebase_stack(job)) CHECK(std::string(row->field) != "overlap.tp_comm");
  CHECK_FALSE(job.overlap.tp_comm.has_value());
}

TEST_CASE("torchtitan without async TP exposes its TP collectives", "[stack][physics]") {
  const Prediction titan = predict("codebase: torchtitan\n");
  const Prediction exposed = predict("overlap: {tp_comm: false}\n");
  CHECK(titan.breakdown.tp_communication == Approx(exposed.breakdown.tp_communication).epsilon(1e-12));
}

TEST_CASE("the JSON says where each descriptor came from", "[stack][output]") {
  const Prediction bridge = predict("codebase: megatron-bridge\noverlap: {grad_reduce: true}\n");
  const auto j = nlohmann::json::parse(render_json(bridge));
  std::map<std::string, std::string> from;
  for (const auto& s : j["stack"]) from[s["field"].get<std::string>()] = s["from"].get<std::string>();
  CHECK(from["overlap.grad_reduce"] == "job");
  CHECK(from["overlap.tp_comm"] == "codebase");
  CHECK(from["overlap.p2p"] == "codebase");
  CHECK(from["cuda_graphs"] == "assumption");
  const std::string table = render_table(bridge);
  CHECK_THAT(table, Catch::Contains("megatron-bridge recipes: tp_comm overlapped with GEMMs"));
}
