// --calibrate-log's reader (training_log.hpp): each format's sample, sniffing, the steady-state
// rule, rank streams, restarts, rate conversion and located errors. Every log here and under
// tests/data/training_logs/ is synthetic: written to the frameworks' public print formats for these
// tests, never taken from a real run. Expected medians are worked out by hand in the comments.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "ptp/predict/training_log.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp::predict;

namespace {

std::string sample_path(const std::string& name) {
  return std::string(PTP_SOURCE_DIR) + "/tests/data/training_logs/" + name;
}

std::string sample(const std::string& name) {
  std::ifstream in(sample_path(name), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

SteadyStep parse(const std::string& text, std::optional<LogFormat> format = std::nullopt,
                 const LogJobShape& shape = {}) {
  return parse_training_log(text, "run.log", format, shape);
}

std::string error_of(const std::string& text, std::optional<LogFormat> format = std::nullopt,
                     const LogJobShape& shape = {}) {
  try {
    parse(text, format, shape);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string setting(const SteadyStep& s, const std::string& field) {
  for (const auto& x : s.settings)
    if (x.field == field) return x.value;
  return "";
}

std::string csv_of(const std::vector<double>& seconds) {
  std::string out = "step,step_time_s\n";
  for (std::size_t i = 0; i < seconds.size(); ++i)
    out += std::to_string(i + 1) + "," + std::to_string(seconds[i]) + "\n";
  return out;
}

// Synthetic torchtitan metrics line (metrics.py's fields, no colours).
std::string titan(int step, const std::string& tps) {
  return "[titan] 2025-03-01 10:00:00,000 - root - INFO - step: " + std::to_string(step) +
         "  loss:  7.12340  memory: 40.12GiB(50.71%)  tps: " + tps + "  tflops: 400.00  mfu: 40.00%\n";
}

// Synthetic Megatron training_log line.
std::string megatron(int iteration, const std::string& ms) {
  return " [2024-05-01 10:00:00.000000] iteration " + std::to_string(iteration) +
         "/     500 | consumed samples:         1280 | elapsed time per iteration (ms): " + ms +
         " | learning rate: 3.000000E-04 | global batch size:   128 |\n";
}

const LogJobShape kTitanJob{64, 8192, 64};  // 64 samples x 8192 tokens over 64 GPUs: 8192 tokens per GPU per step

}  // namespace

TEST_CASE("every log format has a name and a reader, and the names round-trip", "[training_log]") {
  CHECK(names_of(log_format_names()) ==
        std::vector<std::string>{"megatron", "nemo", "torchtitan", "hf_trainer", "lightning", "mllog", "csv"});
  for (const auto& e : log_format_names()) CHECK(parse_named(log_format_names(), e.name, "log format") == e.value);
}

TEST_CASE("Megatron: milliseconds per logged iteration, and the arguments block as settings", "[training_log]") {
  // 11 lines: 9876.5 and 1510.2 are the warm-up (ceil(11/10) = 2); median of the other 9 ms values
  // 1247.6 1248.8 1249.3 1250.0 [1250.4] 1251.7 1253.1 1255.0 1262.0 -> 1.2504 s.
  const SteadyStep s = parse(sample("megatron.log"));
  CHECK(s.format == LogFormat::megatron);
  CHECK(s.step_s == Approx(1.2504));
  CHECK(s.steps_logged == 11);
  CHECK(s.steps_dropped == 2);
  CHECK(s.steps_used == 9);
  CHECK(s.stream.empty());
  CHECK(setting(s, "global_batch_size") == "128");
  CHECK(setting(s, "seq_len") == "2048");
  CHECK(setting(s, "batch_size") == "2");
  CHECK(setting(s, "parallelism.tensor") == "2");
  CHECK(setting(s, "parallelism.pipeline") == "1");
  CHECK(setting(s, "parallelism.context") == "1");
  CHECK(setting(s, "parallelism.expert") == "1");
  CHECK(setting(s, "cluster.num_gpus") == "16");
  CHECK(s.settings.size() == 8);
  CHECK(s.settings.front().line > 3);
}

TEST_CASE("NeMo: train_step_timing in s, progress printer, progress bar and delta timing forms", "[training_log]") {
  // 12.47 is the warm-up; 3.6 > 1.5 x 2.101 (the median after it) is still warming up; median of
  // 2.095 2.097 2.099 [2.1 2.101] 2.104 2.108 2.112 -> 2.1005 s.
  const SteadyStep s = parse(sample("nemo.log"));
  CHECK(s.format == LogFormat::nemo);
  CHECK(s.step_s == Approx(2.1005));
  CHECK(s.steps_dropped == 2);
  CHECK(s.steps_used == 8);
  CHECK(setting(s, "global_batch_size") == "32");

  // NeMo 1's bar, redrawn after '\r' with the same global_step: one step per global_step.
  std::string bar;
  const char* times[] = {"9.000", "1.000", "1.100", "0.900", "1.000"};
  for (int i = 0; i < 5; ++i)
    for (int redraw = 0; redraw < 3; ++redraw)
      bar += "Epoch 0: : " + std::to_string(20 * i) + "%|##        | " + std::to_string(i + 1) +
             "/5 [00:10<00:40, reduced_train_loss=2.1, global_step=" + std::to_string(i) +
             ".00, train_step_timing in s=" + times[i] + "]\r";
  const SteadyStep b = parse(bar + "\n");
  CHECK(b.format == LogFormat::nemo);
  CHECK(b.steps_logged == 5);
  CHECK(b.step_s == Approx(1.0));

  const SteadyStep d = parse(
      "[NeMo I 2024-05-01 10:00:01 exp_manager:443] Step 0: train_step_timing in s=5.5\n"
      "[NeMo I 2024-05-01 10:00:02 exp_manager:443] Step 1: train_step_timing in s=0.51\n"
      "[NeMo I 2024-05-01 10:00:03 exp_manager:443] Step 0: validation_step_timing in s=0.2\n"
      "[NeMo I 2024-05-01 10:00:04 exp_manager:443] Step 2: train_step_timing in s=0.49\n"
      "[NeMo I 2024-05-01 10:00:05 exp_manager:443] Step 3: train_step_timing in s=0.50\n");
  CHECK(d.step_s == Approx(0.50));
  CHECK(d.steps_logged == 4);
}

TEST_CASE("torchtitan: tps per GPU converted with the job's batch, colour codes and validation lines ignored",
          "[training_log]") {
  // 8192 tokens per GPU per step / tps. Warm-up: 1,024 and 7,950 tps; the median of the other nine
  // tps is 8,192 -> exactly 1 s (an odd count: the median step is the median tps's).
  const SteadyStep s = parse(sample("torchtitan.log"), std::nullopt, kTitanJob);
  CHECK(s.format == LogFormat::torchtitan);
  CHECK(s.step_s == Approx(1.0));
  CHECK(s.steps_logged == 11);
  CHECK(s.steps_used == 9);
  REQUIRE(!s.notes.empty());
  CHECK_THAT(s.notes.front(), Catch::Contains("64 samples x 8192 tokens per step over 64 GPUs"));

  // 2 GPUs sharing 4 samples of 1000 tokens: 2000 tokens per GPU per step at 4,000 tps = 0.5 s.
  std::string log;
  for (int i = 1; i <= 5; ++i) log += titan(i, "4,000");
  CHECK(parse(log, LogFormat::torchtitan, LogJobShape{4, 1000, 2}).step_s == Approx(0.5));
  CHECK(parse("Step 1 wps: 1,000\n" + log, std::nullopt, LogJobShape{4, 1000, 2}).steps_logged == 5);
}

TEST_CASE("torchtitan without the job's shape is an error at the rate", "[training_log]") {
  const std::string e = error_of(titan(1, "6,543"));
  CHECK_THAT(e, Catch::StartsWith("run.log:1:"));
  CHECK_THAT(e, Catch::Contains("tps: torchtitan logs a rate (tokens per second per GPU), not a step time"));
}

TEST_CASE("HF Trainer: the summary is one averaged figure, accepted with a note", "[training_log]") {
  // 250.1234 s x 0.8 steps/s (3 decimals) pins 200 steps: 250.1234 / 200 = 1.250617 s.
  const SteadyStep s = parse(sample("hf_trainer.log"));
  CHECK(s.format == LogFormat::hf_trainer);
  CHECK(s.step_s == Approx(1.250617));
  CHECK(s.steps_logged == 1);
  CHECK(s.steps_used == 1);
  CHECK(s.steps_dropped == 0);
  REQUIRE(!s.notes.empty());
  CHECK(s.notes.front() == "HF Trainer: train_steps_per_second averages the whole run, warm-up included");
  CHECK(setting(s, "global_batch_size") == "64");
  CHECK(setting(s, "batch_size") == "8");

  // Newer transformers print floats as strings ('{:.4g}'). 1234 s x 0.037 steps/s (+-0.0005) is
  // 45.0..46.3 steps: 46, so 1234 / 46 s; 1.234e+04 s (+-5 s) x 0.037 leaves 450..462 steps open,
  // so 1 / 0.037 s, known to 0.0005 / 0.037 = 1.35 %.
  CHECK(parse("{'train_runtime': '1234', 'train_steps_per_second': '0.037'}\n").step_s == Approx(1234.0 / 46));
  const SteadyStep q =
      parse("{'train_runtime': '1.234e+04', 'train_samples_per_second': '1.2', 'train_steps_per_second': '0.037'}\n");
  CHECK(q.step_s == Approx(1 / 0.037));
  CHECK_THAT(q.notes.back(), Catch::Contains("known to +-1.35135 %"));

  // Per-step dicts with a callback's time: the steady-state rule applies.
  const SteadyStep p = parse(
      "{'loss': 2.1, 'step_time': 4.0, 'epoch': 0.1}\n{'loss': 2.0, 'step_time': 1.0, 'epoch': 0.2}\n"
      "{'loss': 1.9, 'step_time': 1.2, 'epoch': 0.3}\n{'loss': 1.8, 'step_time': 1.1, 'epoch': 0.4}\n");
  CHECK(p.step_s == Approx(1.1));
  CHECK(p.notes.empty());

  CHECK_THAT(error_of("{'loss': 2.1, 'learning_rate': 1e-05, 'epoch': 0.1}\n"),
             Catch::Contains("no hf_trainer steps: expected a line like"));
}

TEST_CASE("Lightning: the bar's running average is differenced into stretches of batches", "[training_log]") {
  // Two epochs of 100 batches: the first batch takes 5 s, every other 0.25 s; the bar's rate is
  // the average since the epoch began (5.38it/s style, 2 decimals), so only differences of the
  // implied elapsed times give the steady 0.25 s per batch.
  const SteadyStep s = parse(sample("lightning.log"));
  CHECK(s.format == LogFormat::lightning);
  CHECK(s.step_s == Approx(0.25).epsilon(0.005));
  CHECK(s.steps_logged >= 30);
  CHECK(s.spread < 0.05);
  CHECK_THAT(s.notes.front(), Catch::Contains("counts batches"));

  LogJobShape accumulating;
  accumulating.batches_per_step = 4;
  const SteadyStep a = parse(sample("lightning.log"), std::nullopt, accumulating);
  CHECK(a.step_s == Approx(1.0).epsilon(0.005));
  CHECK(a.notes.empty());

  // Before Lightning 2.1 a slow bar said s/it.
  // n batches in 2n s is 2 s each from the first: every stretch is 2 s.
  std::string cumulative;
  for (int n = 1; n <= 40; ++n)
    cumulative += "Epoch 0:  50%|#####     | " + std::to_string(n) + "/40 [00:00<00:00,  2.00s/it]\r";
  CHECK(parse(cumulative + "\n").step_s == Approx(2.0));
}

TEST_CASE("MLPerf: block time per sample x global batch, evaluation inside a block excluded", "[training_log]") {
  // 384 samples a block, global batch 8 = 48 steps: 96 s (warm-up), then 48, 48.48, 47.52 (plus a
  // 20 s evaluation inside the block, excluded), 48, 48.96 s -> 1.0 1.01 0.99 1.0 1.02 s per step;
  // median 1.0 s.
  const SteadyStep s = parse(sample("mllog.log"));
  CHECK(s.format == LogFormat::mllog);
  CHECK(s.step_s == Approx(1.0));
  CHECK(s.steps_logged == 6);
  CHECK(s.steps_used == 5);
  CHECK(setting(s, "global_batch_size") == "8");
  CHECK(setting(s, "seq_len") == "8192");

  // Without the log's global batch the job's is used, and without either it is an error.
  std::string no_batch;
  std::istringstream lines(sample("mllog.log"));
  for (std::string l; std::getline(lines, l);)
    if (l.find("\"global_batch_size\"") == std::string::npos) no_batch += l + "\n";
  CHECK(parse(no_batch, std::nullopt, LogJobShape{16, 1, 8}).step_s == Approx(2.0));
  CHECK_THAT(error_of(no_batch), Catch::Contains("global_batch_size: MLPerf logs time per sample"));
}

TEST_CASE("CSV: step_time_s rows, and a time in other units refused", "[training_log]") {
  // 3.5 is the warm-up; median of 0.49 0.50 0.50 [0.50] 0.51 0.52 0.52 = 0.50; p10 = 0.496,
  // p90 = 0.52 -> spread 0.048.
  const SteadyStep s = parse(sample("steps.csv"));
  CHECK(s.format == LogFormat::csv);
  CHECK(s.step_s == Approx(0.50));
  CHECK(s.spread == Approx(0.048));
  CHECK(s.steps_used == 7);
  CHECK(error_of("step,step_time_ms\n1,512\n") ==
        "run.log:1:2: step_time_ms: wrong units: give seconds per step in a step_time_s column");
  CHECK_THAT(error_of("job,step_time_s\na.yaml,0.5\n"),
             Catch::Contains("job: a measured-steps CSV (one row per job) is for --calibrate"));
  CHECK_THAT(error_of("step,step_time_s\n1,0.5\n2,-0.5\n"),
             Catch::StartsWith("run.log:3:2: step_time_s: expected a positive number"));
}

TEST_CASE("sniffing picks each sample's format; none or the wrong one is an error naming the choices",
          "[training_log]") {
  const std::pair<const char*, LogFormat> samples[] = {{"megatron.log", LogFormat::megatron},
                                                       {"nemo.log", LogFormat::nemo},
                                                       {"torchtitan.log", LogFormat::torchtitan},
                                                       {"hf_trainer.log", LogFormat::hf_trainer},
                                                       {"lightning.log", LogFormat::lightning},
                                                       {"mllog.log", LogFormat::mllog},
                                                       {"steps.csv", LogFormat::csv}};
  for (const auto& [file, format] : samples) {
    INFO(file);
    CHECK(read_training_log(sample_path(file), std::nullopt, kTitanJob).format == format);
    CHECK(parse(sample(file), format, kTitanJob).format == format);
  }
  CHECK(
      error_of("hello\nworld\n") ==
      "run.log: not a training log ptp reads: expected one of megatron | nemo | torchtitan | hf_trainer | lightning | "
      "mllog | csv (give --log-format)");
  CHECK_THAT(error_of(sample("megatron.log"), LogFormat::torchtitan),
             Catch::StartsWith("run.log: no torchtitan steps: expected a line like 'step: 10  loss:"));
  CHECK_THAT(error_of(""), Catch::Contains("empty file, expected a training log"));
  CHECK_THAT(error_of(std::string("iteration\0x", 11)), Catch::Contains("binary data, expected a training log"));
  CHECK_THAT(error_of(sample("steps.csv"), LogFormat::megatron), Catch::Contains("no megatron steps"));
}

TEST_CASE("steady state: a tenth of the steps and the slow ones after them are warm-up, at least 3 remain",
          "[training_log]") {
  // 20 steps: the first 2 are the fixed warm-up; 3.0 and 2.0 after them exceed 1.5 x the median
  // of the 18 after it (1.02) and go too; a 30 s checkpoint step later on does not move the median
  // of the 16 left, (0.98 + 1.02) / 2.
  std::vector<double> t{9.0, 5.0, 3.0, 2.0};
  for (int i = 0; i < 16; ++i) t.push_back(i == 9 ? 30.0 : (i % 2 ? 1.02 : 0.98));  // 8 x 0.98, 7 x 1.02
  const SteadyStep s = parse(csv_of(t));
  CHECK(s.steps_logged == 20);
  CHECK(s.steps_dropped == 4);
  CHECK(s.steps_used == 16);
  CHECK(s.step_s == Approx(1.0));

  // Drops are capped so 3 remain: of 9 9 9 1 1 only the first two go.
  const SteadyStep capped = parse(csv_of({9, 9, 9, 1, 1}));
  CHECK(capped.steps_dropped == 2);
  CHECK(capped.step_s == Approx(1.0));

  // A steady run keeps all but the first.
  CHECK(parse(csv_of({2.0, 1.0, 1.0, 1.0})).steps_used == 3);
  CHECK(error_of(csv_of({2.0, 1.0, 1.0})) ==
        "run.log: 3 steps logged, at least 4 needed: the first is warm-up and 3 steady-state steps must remain (run "
        "longer or log more often)");
  const SteadyStep noisy = parse(csv_of({1, 1, 2, 1, 2, 1, 2}));
  CHECK_THAT(noisy.notes.back(), Catch::Contains("the steady-state steps vary"));
}

TEST_CASE("rank streams: the rank with the most steps, the lowest on a tie", "[training_log]") {
  std::string log;
  for (int i = 1; i <= 6; ++i) {
    log += "[rank2]:" + titan(i, "8,192");
    log += "[rank1]:" + titan(i, "4,096");
    if (i <= 4) log += "[rank0]:" + titan(i, "2,048");
  }
  log += "[rank0]: some other output\n";
  const SteadyStep s = parse(log, std::nullopt, kTitanJob);
  CHECK(s.step_s == Approx(2.0));  // rank 1: 8192 tokens / 4,096 tps
  CHECK(s.stream == "lines prefixed [rank1]: (the most steps of 3 ranks logging steps)");

  // srun --label and torchrun's [default0]: prefixes, Megatron printing on the last rank only.
  std::string srun =
      "0: [default0]:------------------------ arguments ------------------------\n"
      "0: [default0]:  global_batch_size ....................................... 256\n"
      "0: [default0]:-------------------- end of arguments ---------------------\n";
  for (int i = 1; i <= 5; ++i) srun += "1: [default7]:" + megatron(10 * i, i == 1 ? "5000.0" : "800.0");
  const SteadyStep m = parse(srun);
  CHECK(m.step_s == Approx(0.8));
  CHECK(m.stream == "lines prefixed 1: [default7]:");
  CHECK(setting(m, "global_batch_size") == "256");

  // "rank 3:" and srun labels with leading spaces; errors still point at the right column.
  CHECK(parse("rank 3: " + megatron(1, "9.0") + "rank 3: " + megatron(2, "1.0") + "rank 3: " + megatron(3, "1.0") +
              "rank 3: " + megatron(4, "1.0"))
            .stream == "lines prefixed rank 3:");
  const std::string e = error_of(" 12: " + megatron(1, "nan"));
  CHECK_THAT(e, Catch::StartsWith("run.log:1:"));
  CHECK_THAT(e, Catch::Contains("elapsed time per iteration (ms): expected a finite number, got 'nan'"));
}

TEST_CASE("restarts: the last run is used and named", "[training_log]") {
  // The iteration counter goes back (resumed from an earlier checkpoint).
  std::string log;
  for (int i = 1; i <= 6; ++i) log += megatron(10 * i, "2000.0");
  for (int i = 5; i <= 10; ++i) log += megatron(10 * i, i == 5 ? "9000.0" : "1000.0");
  const SteadyStep s = parse(log);
  CHECK(s.step_s == Approx(1.0));
  CHECK(s.steps_logged == 6);
  CHECK(s.stream == "the last of 2 runs (from line 7)");

  // A second arguments block starts a run even if the counter carries on; its settings count.
  const std::string args1 =
      "------------------------ arguments ------------------------\n  global_batch_size ... 64\n"
      "-------------------- end of arguments ---------------------\n";
  const std::string args2 =
      "------------------------ arguments ------------------------\n  global_batch_size ... 128\n"
      "-------------------- end of arguments ---------------------\n";
  std::string two = args1;
  for (int i = 1; i <= 5; ++i) two += megatron(i, "3000.0");
  two += args2;
  for (int i = 6; i <= 10; ++i) two += megatron(i, "1500.0");
  const SteadyStep t = parse(two);
  CHECK(t.step_s == Approx(1.5));
  CHECK(t.stream == "the last of 2 runs (from line 9)");
  CHECK(setting(t, "global_batch_size") == "128");

  // Too few steps in the last run is an error that says so.
  CHECK_THAT(error_of(log + megatron(1, "1000.0") + megatron(2, "1000.0")),
             Catch::Contains("2 steps logged in the last of 3 runs (from line 13), at least 4 needed"));
}

TEST_CASE("bad step values are refused at their line and column", "[training_log]") {
  const std::string ok = megatron(1, "900.0") + megatron(2, "100.0") + megatron(3, "100.0");
  CHECK_THAT(error_of(ok + megatron(4, "0.0")),
             Catch::Contains("run.log:4:120: elapsed time per iteration (ms): expected a positive time per step"));
  CHECK_THAT(error_of(ok + megatron(4, "-5.0")),
             Catch::Contains("run.log:4:120: elapsed time per iteration (ms): expected a positive time"));
  CHECK_THAT(error_of(ok + megatron(4, "1e400")),
             Catch::Contains("run.log:4:120: elapsed time per iteration (ms): expected a finite number, got '1e400'"));
  CHECK_THAT(error_of(ok + megatron(4, "2e11")), Catch::Contains("is absurd (more than 1e5 s)"));
  CHECK_THAT(error_of(ok + " [2024-05-01] iteration 4/ 500 | elapsed time per iteration (ms): 12"),
             Catch::Contains("run.log:4:69: elapsed time per iteration (ms): the line ends after the number"));
  CHECK_THAT(error_of(ok + " iteration 4/ 500 | elapsed time per iteration (ms): 1.2e |"),
             Catch::Contains("run.log:4:54: elapsed time per iteration (ms): expected a number, got '1.2e'"));
  // Colour codes are cut before reading but columns count them: the rate starts at byte 41.
  const std::string coloured = "\x1b[31mstep: 1  \x1b[32mloss: 7.1  \x1b[34mtps: 12x4  \x1b[36mtflops: 1\x1b[39m\n";
  CHECK_THAT(error_of(coloured, std::nullopt, kTitanJob),
             Catch::StartsWith("run.log:1:41: tps: expected a number, got '12x4'"));
}

TEST_CASE("a log file is read with a size limit and refused when binary or missing", "[training_log]") {
  CHECK(read_training_log(sample_path("steps.csv"), std::nullopt, {}).step_s == Approx(0.5));
  CHECK_THROWS_WITH(read_training_log("/nonexistent/run.log", std::nullopt, {}), Catch::Contains("cannot read file"));
}
