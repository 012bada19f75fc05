#include "ptp/profile/nccl_tests_ingest.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "ptp/profile/busbw.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/point_status.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {

std::vector<std::string> split_ws(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool parse_double(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0';
}

std::string collective_from_binary(std::string bin) {
  if (bin.size() > 5 && bin.compare(bin.size() - 5, 5, "_perf") == 0) bin.resize(bin.size() - 5);
  if (bin == "sendrecv") return "send_recv";
  if (bin == "alltoall") return "all_to_all";
  return bin;  // all_reduce, all_gather, reduce_scatter, broadcast, reduce
}

std::string dtype_name(const std::string& t) {
  if (t == "float" || t == "float32") return "fp32";
  if (t == "half" || t == "float16") return "fp16";
  if (t == "bfloat16") return "bf16";
  if (t == "double" || t == "float64") return "fp64";
  if (t == "f8e4m3") return "fp8_e4m3";
  if (t == "f8e5m2") return "fp8_e5m2";
  return t;  // int8, uint8, int32, ...
}

// Column layout of the result lines, found from the "#  size  count  type  redop  root  time ..."
// header (older nccl-tests have no root column).
struct Layout {
  bool has_root = true;
  std::size_t fields() const { return has_root ? 13 : 12; }
};

}  // namespace

IngestResult ingest_nccl_tests(const std::string& text, const std::string& log_name, const IngestOptions& opt) {
  if (opt.gpu.empty()) throw InputError(log_name + ": --gpu is required (catalog id of the GPUs in the log)");
  IngestResult res;
  std::string collective = opt.collective;
  Layout layout;
  int rank_lines = 0;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  struct Pending {
    int line;
    std::vector<std::string> f;
  };
  std::vector<Pending> results;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto t = split_ws(line);
    if (t.empty()) continue;
    if (t[0] == "#" || t[0][0] == '#') {
      const auto pos_coll = line.find("Collective test starting:");
      if (pos_coll != std::string::npos && opt.collective.empty()) {
        const auto name = split_ws(line.substr(pos_coll + 25));
        if (!name.empty()) collective = collective_from_binary(name[0]);
      }
      const auto pos_ver = line.find("NCCL version");
      if (pos_ver != std::string::npos) {
        const auto v = split_ws(line.substr(pos_ver + 12));
        if (!v.empty()) res.nccl_version = v[0];
      }
      if (t.size() >= 3 && t[1] == "Rank" && line.find("device") != std::string::npos) ++rank_lines;
      if (t.size() >= 5 && t[1] == "size" && t[2] == "count" && t[3] == "type")
        layout.has_root = t.size() > 5 && t[5] == "root";
      continue;
    }
    double first = 0;
    if (!parse_double(t[0], first)) continue;  // banner text between sections
    if (t.size() != layout.fields())
      throw InputError(log_name, lineno, 0, "result line",
                       "expected " + std::to_string(layout.fields()) + " fields, got " + std::to_string(t.size()));
    results.push_back({lineno, t});
  }
  res.ranks = opt.ranks > 0 ? opt.ranks : rank_lines;
  if (results.empty()) throw InputError(log_name + ": no nccl-tests result lines found");
  if (collective.empty())
    throw InputError(log_name + ": the log does not name the collective; pass --collective");
  if (res.ranks <= 0)
    throw InputError(log_name + ": the log lists no '#  Rank ... device' lines; pass --ranks");
  try {
    bus_factor(collective, res.ranks);  // validates the collective name
  } catch (const InputError& e) {
    throw InputError(log_name + ": " + e.what());
  }

  const std::size_t base = layout.has_root ? 5 : 4;  // index of the out-of-place time
  for (const auto& r : results) {
    const auto& f = r.f;
    double size = 0;
    parse_double(f[0], size);
    if (!(size >= 0) || !std::isfinite(size)) throw InputError(log_name, r.line, 0, "size", "expected a byte count, got '" + f[0] + "'");
    for (int in_place = 0; in_place < 2; ++in_place) {
      const std::size_t o = base + static_cast<std::size_t>(in_place) * 4;
      double time_us = 0, algbw = 0, busbw = 0;
      if (!parse_double(f[o], time_us) || !parse_double(f[o + 1], algbw) || !parse_double(f[o + 2], busbw))
        throw InputError(log_name, r.line, 0, in_place ? "in-place" : "out-of-place", "time/algbw/busbw are not numbers");
      // strtod takes nan, inf and 1e999: such rows must not become measurements.
      if (!std::isfinite(time_us) || time_us <= 0 || !std::isfinite(algbw) || algbw < 0 || !std::isfinite(busbw) ||
          busbw < 0)
        throw InputError(log_name, r.line, 0, in_place ? "in-place" : "out-of-place",
                         "time must be positive and algbw/busbw non-negative finite numbers");
      const std::string wrong = f[o + 3];
      Row row;
      row["point_id"] = opt.gpu + "/nccl-tests/" + collective + "/dtype=" + dtype_name(f[2]) + "/in_place=" +
                        std::to_string(in_place) + "/nodes=" + std::to_string(opt.nodes) + "/ranks=" +
                        std::to_string(res.ranks) + "/size=" + f[0];
      row["source"] = "nccl-tests";
      row["source_ref"] = opt.source_ref.empty() ? log_name : opt.source_ref;
      row["collective"] = collective;
      row["size_bytes"] = f[0];
      row["dtype"] = dtype_name(f[2]);
      row["ranks"] = std::to_string(res.ranks);
      row["nodes"] = std::to_string(opt.nodes);
      if (res.ranks % opt.nodes == 0) row["ranks_per_node"] = std::to_string(res.ranks / opt.nodes);
      row["gpu"] = opt.gpu;
      row["fabric_inter"] = opt.nodes > 1 ? opt.fabric_inter : "";
      row["time_s"] = format_number(time_us * 1e-6);
      row["algbw_GBps"] = f[o + 1];
      row["busbw_GBps"] = f[o + 2];
      row["in_place"] = std::to_string(in_place);
      const bool ok = wrong == "0" || wrong == "N/A";
      row["status"] = point_status_name(ok ? PointStatus::ok : PointStatus::failed);
      if (!ok) row["reason"] = "nccl-tests reported #wrong=" + wrong;
      row["notes"] = "nccl-tests " + f[3] + " root=" + (layout.has_root ? f[4] : "-") +
                     (res.nccl_version.empty() ? "" : " NCCL " + res.nccl_version);
      row["backend"] = "nccl-tests";
      res.rows.push_back(std::move(row));
    }
  }
  return res;
}

}  // namespace ptp::profile
