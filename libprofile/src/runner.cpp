#include "ptp/profile/runner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "ptp/profile/busbw.hpp"
#include "ptp/profile/columns.hpp"
#include "ptp/profile/comm.hpp"
#include "ptp/profile/context.hpp"
#include "ptp/profile/cuda_device.hpp"
#include "ptp/profile/duration.hpp"
#include "ptp/profile/plan.hpp"
#include "ptp/profile/progress.hpp"
#include "ptp/profile/row_writer.hpp"
#include "ptp/profile/detail/cuda_work.hpp"
#include "stop_signal.hpp"
#include "ptp/profile/sweep.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {

using Clock = std::chrono::steady_clock;

struct Target {
  Backend backend = Backend::host;
  std::string id = "host";        // catalog id (or a slug of the device name) used in rows and point ids
  const GpuSpec* spec = nullptr;  // for the roofline
  bool plan_only = false;         // cuda in a build without CUDA: the benchmarks describe, never run
};

std::string slug(const std::string& name) {
  std::string s;
  for (char c : to_lower(name)) s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '-');
  return s;
}

Target resolve_target(const ProfileOptions& opt, const GpuCatalog& catalog) {
  Target t;
  std::string why;
  if (opt.backend.empty()) {
    const int n = cuda::device_count(&why);
    t.backend = n > 0 ? Backend::cuda : Backend::host;
    if (n == 0 && !opt.plan) spdlog::info("no CUDA device ({}); using --backend host", why);
  } else if (opt.backend == "cuda") {
    t.backend = Backend::cuda;
  } else if (opt.backend == "host") {
    t.backend = Backend::host;
  } else {
    throw InputError("--backend: '" + opt.backend + "' is not one of cuda, host");
  }
  if (t.backend == Backend::host) {
    if (!opt.gpu.empty()) spdlog::warn("--gpu {} is ignored with --backend host", opt.gpu);
    return t;
  }
  if (!cuda::compiled()) {
    // A plan needs the catalog GPU's rates, not a device: the CUDA benchmarks' axes and work are CPU
    // code (cuda_work.hpp), registered here as stand-ins that cannot run.
    if (!opt.plan)
      throw InputError("--backend cuda: this ptp-profile was built without CUDA (configure with -DPTP_WITH_CUDA=ON; "
                       "--plan --gpu ID works without it)");
    cuda_work::register_plan_only(Registry::instance());
    t.plan_only = true;
  } else if (!cuda::load(&why)) {
    throw InputError("--backend cuda: " + why);  // registers its benchmarks
  }
  if (!opt.gpu.empty()) {
    t.spec = &catalog.get(opt.gpu, "--gpu");
    t.id = t.spec->id;
    return t;
  }
  if (opt.plan) throw InputError("--plan with --backend cuda needs --gpu ID (a configs/gpus id, e.g. a100-sxm4-80gb)");
  if (cuda::device_count(&why) <= opt.device)
    throw InputError("--backend cuda: CUDA device " + std::to_string(opt.device) + " not available (" + why + ")");
  const std::string name = cuda::device_name(opt.device);
  t.spec = catalog.find(name);
  if (!t.spec && name.rfind("NVIDIA ", 0) == 0) t.spec = catalog.find(name.substr(7));
  t.id = t.spec ? t.spec->id : slug(name);
  if (!t.spec) spdlog::warn("GPU '{}' is not in configs/gpus; rows use gpu={} (add a catalog file)", name, t.id);
  return t;
}

struct Outputs {
  std::map<Table, std::unique_ptr<RowWriter>> writers;
  std::set<std::string> done;
};

Row make_row(const PlannedPoint& p, const Target& target, const std::string& sweep_ref) {
  Row row = p.work.fields;
  row["point_id"] = p.id;
  row["source"] = "ptp-profile";
  row["source_ref"] = sweep_ref;
  row["gpu"] = target.id;
  row["backend"] = backend_name(target.backend);
  if (p.point.bench->table() == Table::ops) row["l2_flush"] = p.rule.l2_flush ? "1" : "0";
  return row;
}

void add_timing(Row& row, const PlannedPoint& p, const Measurement& m) {
  const Summary s = summarize(m.samples());
  row["time_s"] = format_number(s.median);
  row["time_s_min"] = format_number(s.min);
  row["time_s_max"] = format_number(s.max);
  row["reps"] = std::to_string(s.count);
  row["noise_rel"] = format_number(s.noise);
  row["stop_rule"] = stop_reason_name(m.stop_reason());
  if (p.point.bench->table() == Table::ops) {
    row["time_s_mean"] = format_number(s.mean);
  } else {
    const std::string coll = row["collective"];
    const int ranks = std::stoi(row["ranks"]);
    const double size = std::stod(row["size_bytes"]);
    row["algbw_GBps"] = format_number(algbw_GBps(size, s.median));
    row["busbw_GBps"] = format_number(busbw_GBps(coll, ranks, size, s.median));
  }
}

// Runs one point on this rank: its row and how it ended.
struct PointResult {
  Row row;
  PointStatus status = PointStatus::failed;
};
PointResult run_point(const PlannedPoint& p, const Target& target, const std::string& sweep_ref) {
  PointResult r{make_row(p, target, sweep_ref), PointStatus::failed};
  Measurement m(p.rule);
  try {
    p.point.bench->run(p.point, m);
    if (m.samples().empty()) throw PointFailure(PointStatus::failed, "benchmark produced no samples");
    add_timing(r.row, p, m);
    r.status = PointStatus::ok;
  } catch (const PointFailure& f) {
    r.status = f.status;
    r.row["reason"] = f.what();
  } catch (const std::exception& e) {
    r.status = PointStatus::failed;
    r.row["reason"] = e.what();
  }
  r.row["status"] = point_status_name(r.status);
  for (const auto& [k, v] : m.extra()) r.row[k] = v;
  return r;
}

void check_backends(const Sweep& sweep, Backend backend) {
  for (const auto& p : sweep.points)
    if (p.point.bench->backend() != backend)
      throw InputError(sweep.file + ": benchmark '" + p.point.bench->name() + "' runs on the " +
                       backend_name(p.point.bench->backend()) + " backend, but this run uses --backend " +
                       backend_name(backend) + " (sweeps are per backend)");
}

int print_plan(const Sweep& sweep, const std::vector<PlannedPoint>& points, const Roofline& roof, bool plan_only) {
  double wall = 0, gpu_s = 0, converged = 0, capped = 0;
  std::printf("# plan for %s on %s: %zu points (most informative first)%s\n", sweep.file.c_str(), roof.target.c_str(),
              points.size(), plan_only ? "; this build has no CUDA backend: it plans, a CUDA build runs" : "");
  std::printf("%12s  %s\n", "est_s", "point_id");
  for (const auto& p : points) {
    const PointEstimate e = estimate_point(p, roof);
    wall += e.s;
    converged += e.converged_s;
    capped += e.capped_s;
    gpu_s += e.s * p.work.gpus;
    std::printf("%12.4f  %s\n", e.s, p.id.c_str());
  }
  for (const auto& line : sweep.skipped) std::printf("# %s\n", line.c_str());
  if (roof.gpu)
    std::printf("# total: %zu points, estimated wall time %s (%.1f min), %.1f GPU-minutes on %s\n", points.size(),
                format_duration(wall).c_str(), wall / 60, gpu_s / 60, roof.target.c_str());
  else  // plan.hpp: whether a host loop converges depends on the machine's noise at run time
    std::printf("# total: %zu points, estimated wall time %s (%.1f min) on host; %s if every repetition loop "
                "converges at min_reps, %s if none does (max_reps or max_time_s)\n",
                points.size(), format_duration(wall).c_str(), wall / 60, format_duration(converged).c_str(),
                format_duration(capped).c_str());
  return 0;
}

}  // namespace

std::string output_path(const std::string& stem, const char* table) {
  std::string s = stem;
  if (s.size() > 4 && s.compare(s.size() - 4, 4, ".csv") == 0) s.resize(s.size() - 4);
  return s + "." + table + ".csv";
}

int run_profile(const ProfileOptions& opt) {
  const GpuCatalog catalog = load_gpu_catalog(config_root() + "/gpus");
  const Target target = resolve_target(opt, catalog);
  Sweep sweep = opt.sweep_yaml ? parse_sweep(opt.sweep_yaml(target.backend == Backend::host), opt.sweep_path,
                                             target.id, Registry::instance())
                                : load_sweep(opt.sweep_path, target.id, Registry::instance());
  check_backends(sweep, target.backend);
  if (opt.only_runnable && drop_unsupported(sweep) > 0) {
    for (const auto& line : sweep.skipped) spdlog::info("note: {}", line);
    if (sweep.points.empty() && !opt.plan) {
      std::string why;
      for (const auto& line : sweep.skipped) why += (why.empty() ? "" : "; ") + line;
      throw InputError(sweep.file + ": no point runs on the " + backend_name(target.backend) + " backend (" + why + ")");
    }
  }
  const std::vector<PlannedPoint> points = informative_order(sweep.points);
  const Roofline roof = target.spec ? gpu_roofline(*target.spec) : host_roofline();
  if (opt.plan) return print_plan(sweep, points, roof, target.plan_only);

  Comm& comm = Comm::world();
  const bool writer_rank = comm.rank() == 0;
  // Device and context before any output file exists: a plugin that cannot load leaves nothing behind.
  if (target.backend == Backend::cuda) cuda::select_device(opt.device);
  Row context = capture_host_context();
  if (target.backend == Backend::cuda)
    for (auto& [k, v] : cuda::capture_context(opt.device)) context[k] = v;
  const std::string stem = opt.out.empty() ? "ptp-profile-" + sweep.name + "-" + target.id : opt.out;
  Outputs out;
  if (writer_rank) {
    std::set<Table> tables;
    for (const auto& p : points) tables.insert(p.point.bench->table());
    for (Table t : tables) {
      auto w = std::make_unique<RowWriter>(output_path(stem, table_name(t)), output_header(t), opt.resume);
      out.done.insert(w->existing_ids().begin(), w->existing_ids().end());
      out.writers[t] = std::move(w);
    }
  }
  install_stop_handlers();

  const std::string sweep_ref = sweep.file + "@ptp-" + ptp_version();
  double planned_total = 0;
  for (const auto& p : points) planned_total += estimate_point_s(p, roof);
  Progress progress(points.size(), planned_total, opt.tty && writer_rank);
  const auto start = Clock::now();
  double planned_done = 0, planned_run = 0, actual_run = 0;
  int written = 0, resumed = 0, failed = 0, over_budget = 0;
  enum Action { run = 0, skip_done = 1, skip_budget = 2, stop = 3 };

  for (const auto& p : points) {
    const double planned = estimate_point_s(p, roof);
    int action = run;
    if (writer_rank) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      const double pace = planned_run > 0 ? actual_run / planned_run : 1.0;  // calibrates the roofline
      if (stop_requested() || (opt.budget_s > 0 && elapsed >= opt.budget_s)) action = stop;
      else if (out.done.count(p.id)) action = skip_done;
      else if (opt.budget_s > 0 && elapsed + planned * pace > opt.budget_s) action = skip_budget;
    }
    action = comm.agree_int(action);
    if (action == stop) break;
    planned_done += planned;
    if (action == skip_done) ++resumed;
    if (action == skip_budget) ++over_budget;
    if (action != run) continue;
    // Single-rank benchmarks run on rank 0 only; collectives need every rank.
    const bool participates = p.point.bench->table() == Table::collectives || writer_rank;
    if (!participates) continue;
    const auto t0 = Clock::now();
    auto [row, status] = run_point(p, target, sweep_ref);
    const double took = std::chrono::duration<double>(Clock::now() - t0).count();
    planned_run += planned;
    actual_run += took;
    if (!writer_rank) continue;
    for (const auto& [k, v] : context) row[k] = v;
    row["ctx_time_utc"] = utc_timestamp();
    out.writers.at(p.point.bench->table())->append(row);
    ++written;
    if (status != PointStatus::ok) {
      ++failed;
      progress.note("point " + p.id + ": " + point_status_name(status) + ": " + row["reason"]);
    }
    progress.point_done(p.id, point_status_name(status), took, planned_done);
  }
  progress.finish();
  const int left = static_cast<int>(points.size()) - written - resumed;
  if (writer_rank) {
    std::string files;
    for (const auto& [t, w] : out.writers) files += (files.empty() ? "" : ", ") + w->path();
    spdlog::info("{} rows written ({} not ok), {} already present, {} left; output: {}", written, failed, resumed,
                 left, files);
    if (over_budget > 0 || (opt.budget_s > 0 && left > 0))
      spdlog::info("budget {} reached: {} points not run; rerun with --resume to continue",
                   format_duration(opt.budget_s), left);
  }
  const int sig = comm.agree_int(stop_signal_number());
  if (sig != 0) {
    if (writer_rank) spdlog::warn("stopped by signal {} after finishing the current point; rerun with --resume", sig);
    return kExitSignalBase + sig;
  }
  // Like nccl-tests: a run in which no point measured anything fails, so batch jobs notice.
  if (comm.agree_int(written > 0 && failed == written ? 1 : 0) != 0) {
    if (writer_rank) spdlog::error("no point succeeded: all {} rows written are not ok (see their reason column)", written);
    return kExitNoPointSucceeded;
  }
  return 0;
}

}  // namespace ptp::profile
