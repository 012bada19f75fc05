// ptp-profile: runs microbenchmark sweeps and writes ops/collectives dataset rows. Only command-line
// parsing lives here; everything else is in libprofile.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "../run_main.hpp"
#include "from_job.hpp"
#include "ptp/profile/comm.hpp"
#include "ptp/profile/commands.hpp"
#include "ptp/profile/duration.hpp"
#include "ptp/profile/progress.hpp"
#include "ptp/profile/runner.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/exit_codes.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/vocab/dataset_schema.hpp"
#include "ptp/vocab/version.hpp"

int main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_st("ptp-profile"));
  spdlog::set_pattern("ptp-profile: %l: %v");

  CLI::App app{"ptp-profile: microbenchmark sweeps -> ops/collectives dataset rows"};
  app.set_version_flag("--version", ptp::vocab::version_line("ptp-profile", std::string("dataset schema ") + ptp::vocab::kDatasetSchemaVersion));
  app.require_subcommand(0, 1);
  app.footer(ptp::vocab::exit_codes_help("ptp-profile"));
  ptp::profile::ProfileOptions opt;
  std::string budget, from_job;
  app.add_option("sweep", opt.sweep_path, "sweep file (configs/sweeps/*.yaml)");
  app.add_option("--from-job", from_job, "profile exactly the op shapes of this job spec (configs/jobs/*.yaml)");
  app.add_option("--backend", opt.backend, "cuda | host (default: cuda when a device is visible)")
      ->check(CLI::IsMember({"cuda", "host"}));
  app.add_flag("--plan", opt.plan, "print every point and the estimated wall time, run nothing");
  app.add_option("--gpu", opt.gpu, "GPU catalog id (configs/gpus): planning target / name of the device");
  app.add_option("--device", opt.device, "CUDA device ordinal")->check(CLI::Range(0, 1023));
  app.add_option("--out", opt.out, "output stem: writes STEM.ops.csv and STEM.collectives.csv");
  app.add_flag("--resume", opt.resume, "continue an interrupted run: skip point_ids already in the output");
  app.add_option("--budget", budget, "stop cleanly after this long (e.g. 30m, 1h); informative points first");

  ptp::profile::IngestOptions ingest;
  std::string ingest_log, ingest_out;
  auto* ing = app.add_subcommand("ingest-nccl-tests", "convert nccl-tests text output to collectives rows");
  ing->add_option("log", ingest_log, "nccl-tests output (all_reduce_perf etc.)")->required();
  ing->add_option("--gpu", ingest.gpu, "GPU catalog id of the GPUs in the log")->required();
  ing->add_option("--collective", ingest.collective, "override the collective named in the log");
  ing->add_option("--ranks", ingest.ranks, "ranks (default: count of '#  Rank' lines)")->check(CLI::Range(1, 10000000));
  ing->add_option("--nodes", ingest.nodes, "nodes the run spanned")->check(CLI::Range(1, 100000));
  ing->add_option("--fabric-inter", ingest.fabric_inter, "inter-node fabric id");
  ing->add_option("--source-ref", ingest.source_ref, "provenance (default: the log path)");
  ing->add_option("--out", ingest_out, "collectives CSV to create or append to (default: stdout)");
  auto* list = app.add_subcommand("list", "list the microbenchmarks of this build and their axes");

  const int rc = ptp::cli::run_main("ptp-profile", app, argc, argv, [&]() -> int {
    if (*ing) {
      const auto n = ptp::profile::ingest_nccl_tests_command(ingest_log, ingest, ingest_out, std::cout);
      spdlog::info("{} collectives rows from {}", n, ingest_log);
    } else if (*list) {
      ptp::profile::list_benchmarks(std::cout);
    } else {
      if (!from_job.empty()) {
        if (!opt.sweep_path.empty())
          throw ptp::vocab::InputError("give either a sweep file or --from-job, not both ('" + opt.sweep_path + "')");
        opt.sweep_path = from_job;
        opt.only_runnable = true;  // a job's bf16 GEMMs are no host work: counted as skipped, not planned
        opt.sweep_yaml = [&from_job](bool host) {
          const auto js = ptp::profile_app::load_job_sweep(from_job, ptp::vocab::config_root(), host);
          spdlog::info("{}: {} ops -> {} distinct points ({} backend)", from_job, js.ops, js.points.size(),
                       host ? "host" : "cuda");
          for (const auto& n : js.notes) spdlog::info("note: {}", n);
          return ptp::profile_app::job_sweep_yaml(js, host);
        };
      }
      if (opt.sweep_path.empty())
        throw ptp::vocab::InputError("a sweep file (configs/sweeps/*.yaml) or --from-job JOB.yaml is required");
      if (!budget.empty()) opt.budget_s = ptp::profile::parse_duration_s(budget, "--budget");
      opt.tty = ptp::profile::stderr_is_tty();
      return ptp::profile::run_profile(opt);
    }
    return ptp::vocab::kExitOk;
  });
  ptp::profile::Comm::finalize_world();
  return rc;
}
