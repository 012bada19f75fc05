// The hostile-input corpus: every file under tests/hostile/<kind>/ is fed to the REAL binary the way
// a user would, and must be refused cleanly:
//   * exit code 2 (not a crash, not 1 = internal error, not 0 = silently accepted);
//   * exactly one line on stderr, naming the file and containing the problem listed in expect.txt;
//   * nothing on stdout;
//   * no file written: the binary runs in an empty scratch cwd that must stay empty, and the
//     --trace/--out paths it is given must not appear;
//   * without hanging (a 60 s kill; wall time itself is not asserted: a loaded CI machine is no benchmark).
// Kinds (how a file is run; see runner_for):
//   job/        ptp-predict FILE --trace T
//   model/, hf_config/   ptp-predict fixtures/job.yaml --set model=FILE --trace T
//   gpu/, fabric/        ptp-predict fixtures/job.yaml --config-dir C --set cluster.gpu=<file stem> (or
//                        cluster.inter_node=) --trace T, where C is a scratch configs/ whose gpus/
//                        (fabrics/) holds the file next to the real a100-sxm4-80gb (ib-hdr-200) entry
//   bundle/     ptp-predict fixtures/job.yaml --bundle DIR --trace T, where DIR is a valid bundle built
//               for this build (fixtures/bundle-manifest.json + this build's feature lists + tiny
//               boosters and their flattened trees, see make_bundle) with the case applied:
//               {"manifest": merge-patch (null deletes), "manifest_text": replaces manifest.json,
//               "files": {name: text}, "truncate": {name: bytes kept}, "patch": {name: {"offset": N,
//               "u32": V}} (a little-endian word written at N), "rehash": true = manifest hashes
//               (files and trees) follow the edited files, "checksum": CHECKSUM text (default:
//               correct), "remove": [names]}. Generated so feature-schema changes cannot stale them.
//   calibrate/  ptp-predict fixtures/job.yaml --calibrate FILE --trace T
//   calibrate_log/  ptp-predict fixtures/job.yaml --calibrate-log FILE --trace T (the format recognised
//               from the file's lines)
//   space/      ptp-predict fixtures/job.yaml --search --space FILE
//   args/       ptp-predict fixtures/job.yaml <one argument per line of FILE> (TRACE = a trace path,
//               @HOSTILE@ = this folder);
//               the input is the command line, so the message must name the flag, not the file
//   sweep/      ptp-profile FILE --backend host --out O           (O.ops.csv, O.collectives.csv must not appear)
//   nccl/       ptp-profile ingest-nccl-tests FILE --gpu a100-sxm4-80gb --ranks 16 --out O.csv
//   csv/        ptp-train --data D --out O --no-cv: D is tests/data/train-fixture with the table named by
//               the file's prefix (runs-, ops-, collectives-) replaced by a folder holding only FILE
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/predict/learned/sha256.hpp"
#include "ptp/train/booster.hpp"
#include "ptp/train/write_bundle.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using ptp::test::binary;
using ptp::test::slurp;
using ptp::test::source_path;

namespace {

const std::string kHostileDir = source_path("tests/hostile");

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Scratch {  // a fresh directory, removed afterwards
  fs::path path = ptp::test::temp_dir();
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct Run {
  int exit_code = -1;
  std::string out, err;
  double seconds = 0;
  std::vector<std::string> written;  // files that appeared in the cwd
};

// Runs argv in an empty scratch cwd under a hard kill timeout (a hang fails the case, not CI).
Run run_in_scratch(const std::vector<std::string>& argv) {
  Scratch cwd, io;
  std::string cmd = "cd " + quote(cwd.path.string()) + " && exec timeout -s KILL 60";
  for (const auto& a : argv) cmd += " " + quote(a);
  cmd += " >" + quote((io.path / "out").string()) + " 2>" + quote((io.path / "err").string());
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = slurp((io.path / "out").string());
  r.err = slurp((io.path / "err").string());
  for (const auto& e : fs::recursive_directory_iterator(cwd.path)) r.written.push_back(e.path().string());
  return r;
}

// expect.txt: "<path under tests/hostile> <problem text the message must contain>"
std::map<std::string, std::string> manifest() {
  std::map<std::string, std::string> m;
  std::ifstream in(kHostileDir + "/expect.txt");
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto sp = line.find_first_of(" \t");
    REQUIRE(sp != std::string::npos);
    const auto rest = line.find_first_not_of(" \t", sp);
    REQUIRE(rest != std::string::npos);
    m[line.substr(0, sp)] = line.substr(rest);
  }
  return m;
}

const std::vector<std::string> kKinds{"job",    "model", "hf_config", "gpu",  "fabric",   "bundle",
                                      "args",   "sweep", "nccl",      "csv",  "calibrate", "space",
                                      "calibrate_log"};

std::vector<std::string> corpus_files(const std::string& kind) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kHostileDir + "/" + kind, ec))
    if (e.is_regular_file())
      files.push_back(kind + "/" + e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

// A scratch configs/ with the real catalogs, except that `dir` (gpus or fabrics) holds only `file`
// and the entry the fixture job needs.
fs::path scratch_configs(const fs::path& root, const std::string& dir, const std::string& file) {
  const fs::path cfg = root / "configs";
  fs::create_directories(cfg);
  for (const char* d : {"gpus", "fabrics", "models"}) {
    if (d == dir) {
      fs::create_directories(cfg / d);
      const std::string keep = dir == "gpus" ? "a100-sxm4-80gb.yaml" : "ib-hdr-200.yaml";
      fs::copy_file(source_path("configs/" + dir + "/" + keep), cfg / d / keep);
      fs::copy_file(file, cfg / d / fs::path(file).filename(), fs::copy_options::overwrite_existing);
    } else {
      fs::create_directory_symlink(source_path(std::string("configs/") + d), cfg / d);
    }
  }
  return cfg;
}

std::string tiny_booster(std::size_t width) {
  ptp::predict::DenseMatrix x;
  std::vector<float> y;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < width; ++i) names.push_back("f" + std::to_string(i));
  for (int r = 0; r < 16; ++r) {
    std::vector<float> row(width);
    for (std::size_t i = 0; i < width; ++i) row[i] = static_cast<float>((r * 7 + static_cast<int>(i)) % 5);
    x.add_row(row);
    y.push_back(0.0f);  // log(measured / analytical) = 0: the bundle answers like the analytical model
  }
  ptp::train::BoosterParams p;
  p.rounds = 2;
  p.max_depth = 2;
  p.threads = 1;
  p.subsample = 1;
  p.colsample = 1;
  return ptp::train::Booster::train(x, y, names, p).save_ubj();
}

// A valid bundle for this build in `dir`, with the hostile case `spec` (see the header) applied.
void make_bundle(const fs::path& dir, const nlohmann::json& spec = nlohmann::json::object()) {
  nlohmann::json m = nlohmann::json::parse(slurp(kHostileDir + "/fixtures/bundle-manifest.json"));
  m["schema_version"] = ptp::predict::kBundleSchemaVersion;
  m["features"] = {{"aggregator", ptp::predict::run_feature_names(false)},
                   {"compute", ptp::predict::op_feature_names()},
                   {"communication", ptp::predict::collective_feature_names()}};
  ptp::train::write_bundle(dir.string(), m,
                    {{"aggregator", tiny_booster(ptp::predict::run_feature_names(false).size())},
                     {"compute", tiny_booster(ptp::predict::op_feature_names().size())},
                     {"communication", tiny_booster(ptp::predict::collective_feature_names().size())}});
  m = nlohmann::json::parse(slurp((dir / "manifest.json").string()));
  if (spec.contains("manifest")) m.merge_patch(spec["manifest"]);
  if (spec.contains("files"))
    for (const auto& [name, text] : spec["files"].items())
      std::ofstream(dir / name, std::ios::binary) << text.get<std::string>();
  if (spec.contains("truncate"))
    for (const auto& [name, size] : spec["truncate"].items()) fs::resize_file(dir / name, size.get<std::uintmax_t>());
  if (spec.contains("patch"))
    for (const auto& [name, at] : spec["patch"].items()) {
      std::string bytes = slurp((dir / name).string());
      const auto word = at["u32"].get<std::uint32_t>();
      for (int i = 0; i < 4; ++i) bytes.at(at["offset"].get<std::size_t>() + i) = static_cast<char>(word >> (8 * i));
      std::ofstream(dir / name, std::ios::binary | std::ios::trunc) << bytes;
    }
  if (spec.value("rehash", false))
    for (const char* section : {"files", "trees"})
      if (m.contains(section))
        for (auto& [key, entry] : m[section].items())
          entry["sha256"] = ptp::predict::sha256_hex(slurp((dir / entry["path"].get<std::string>()).string()));
  const std::string manifest = spec.contains("manifest_text") ? spec["manifest_text"].get<std::string>()
                                                               : m.dump(2) + "\n";
  std::ofstream(dir / "manifest.json", std::ios::binary | std::ios::trunc) << manifest;
  std::ofstream(dir / "CHECKSUM", std::ios::binary | std::ios::trunc)
      << (spec.contains("checksum") ? spec["checksum"].get<std::string>() : ptp::predict::sha256_hex(manifest)) << "\n";
  if (spec.contains("remove"))
    for (const auto& name : spec["remove"]) fs::remove(dir / name.get<std::string>());
}

void check_refused(const std::string& what, const Run& r, const std::string& must_name, const std::string& problem,
                   const std::string& trace, const std::string& tool = "ptp-predict") {
  INFO(what);
  INFO("exit code " << r.exit_code << " after " << r.seconds << " s (not asserted: wall time on a loaded CI machine is no test)");
  INFO("stderr: " << r.err);
  INFO("stdout: " << r.out.substr(0, 400));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK((!r.err.empty() && r.err.back() == '\n'));
  CHECK_THAT(r.err, Catch::StartsWith(tool + ": error: "));
  CHECK_THAT(r.err, Catch::Contains(must_name));
  CHECK_THAT(r.err, Catch::Contains(problem));
  CHECK(r.written.empty());
  CHECK(!fs::exists(trace));
  for (const char* suffix : {"", ".ops.csv", ".collectives.csv"}) CHECK(!fs::exists(trace + suffix));
}

}  // namespace

TEST_CASE("hostile corpus: manifest lists every file, >= 40 of them", "[hostile]") {
  const auto m = manifest();
  std::size_t files = 0;
  for (const auto& kind : kKinds) {
    for (const auto& f : corpus_files(kind)) {
      INFO(f << " has no line in tests/hostile/expect.txt");
      CHECK(m.count(f) == 1);
      ++files;
    }
  }
  for (const auto& [f, problem] : m) {
    INFO("expect.txt names " << f << ", which does not exist");
    CHECK(fs::is_regular_file(kHostileDir + "/" + f));
  }
  CHECK(files >= 40);
}

TEST_CASE("hostile corpus: ptp-predict refuses every file cleanly", "[hostile]") {
  const auto m = manifest();
  const std::string predict = binary("ptp-predict");
  const std::string fixture = kHostileDir + "/fixtures/job.yaml";
  for (const auto& kind : kKinds) {
    for (const auto& rel : corpus_files(kind)) {
      const std::string file = kHostileDir + "/" + rel;
      Scratch scratch;
      const std::string trace = (scratch.path / "trace.json").string();
      std::vector<std::string> argv{predict};
      std::string must_name = fs::path(file).filename().string();
      if (kind == "job") {
        argv.insert(argv.end(), {file, "--trace", trace});
      } else if (kind == "model" || kind == "hf_config") {
        argv.insert(argv.end(), {fixture, "--set", "model=" + file, "--trace", trace});
      } else if (kind == "gpu" || kind == "fabric") {
        // The job asks for the entry by its file name (catalogs may load entries on demand).
        const auto cfg = scratch_configs(scratch.path, kind == "gpu" ? "gpus" : "fabrics", file);
        const std::string ask = (kind == "gpu" ? "cluster.gpu=" : "cluster.inter_node=") + fs::path(file).stem().string();
        argv.insert(argv.end(), {fixture, "--config-dir", cfg.string(), "--set", ask, "--trace", trace});
      } else if (kind == "calibrate") {
        argv.insert(argv.end(), {fixture, "--calibrate", file, "--trace", trace});
      } else if (kind == "calibrate_log") {
        argv.insert(argv.end(), {fixture, "--calibrate-log", file, "--trace", trace});
      } else if (kind == "space") {
        argv.insert(argv.end(), {fixture, "--search", "--space", file});
      } else if (kind == "bundle") {
        const fs::path dir = scratch.path / fs::path(file).stem();
        make_bundle(dir, nlohmann::json::parse(slurp(file)));
        argv.insert(argv.end(), {fixture, "--bundle", dir.string(), "--trace", trace});
        must_name = dir.string();
      } else if (kind == "sweep" || kind == "nccl" || kind == "csv") {
        continue;  // other tools: next test case
      } else if (kind == "args") {
        argv.push_back(fixture);
        std::istringstream lines(slurp(file));
        for (std::string a; std::getline(lines, a);)
          if (!a.empty()) {
            if (a == "TRACE") a = trace;
            if (auto at = a.find("@HOSTILE@"); at != std::string::npos) a.replace(at, 9, kHostileDir);
            argv.push_back(a);
          }
        must_name = "ptp-predict: error: ";
      }
      const auto it = m.find(rel);
      check_refused(rel, run_in_scratch(argv), must_name, it == m.end() ? "?" : it->second, trace);
    }
  }
}

TEST_CASE("hostile corpus: giant and endless inputs are refused without reading them whole", "[hostile]") {
  Scratch scratch;
  const std::string predict = binary("ptp-predict");
  const std::string trace = (scratch.path / "trace.json").string();
  // A 64 GiB sparse file: reading it whole would take minutes and all memory.
  const std::string giant = (scratch.path / "giant.yaml").string();
  std::ofstream(giant) << "model: bert-large\n";
  fs::resize_file(giant, std::uintmax_t{64} << 30);
  check_refused("64 GiB job", run_in_scratch({predict, giant, "--trace", trace}), "giant.yaml",
                "file is larger than 4 MiB", trace);
  check_refused("/dev/zero as the job", run_in_scratch({predict, "/dev/zero", "--trace", trace}), "/dev/zero",
                "file is larger than 4 MiB", trace);
  check_refused("a directory as the job", run_in_scratch({predict, scratch.path.string(), "--trace", trace}),
                scratch.path.string(), "is a directory", trace);
  check_refused("a missing job file", run_in_scratch({predict, "/nonexistent/job.yaml", "--trace", trace}),
                "/nonexistent/job.yaml", "cannot read file", trace);
  const std::string fixture = kHostileDir + "/fixtures/job.yaml";
  check_refused("64 GiB model", run_in_scratch({predict, fixture, "--set", "model=" + giant, "--trace", trace}),
                "giant.yaml", "file is larger than 4 MiB", trace);
  const std::string giant_json = (scratch.path / "config.json").string();
  std::ofstream(giant_json) << "{\"model_type\": \"llama\",";
  fs::resize_file(giant_json, std::uintmax_t{64} << 30);
  check_refused("64 GiB config.json",
                run_in_scratch({predict, fixture, "--set", "model=" + giant_json, "--trace", trace}), "config.json",
                "file is larger than 4 MiB", trace);
  // A bundle whose trees file is /dev/zero (kept out of the corpus: fuzzers read it as a seed).
  const fs::path bundle = scratch.path / "bundle";
  make_bundle(bundle);
  fs::remove(bundle / "compute.trees");
  fs::create_symlink("/dev/zero", bundle / "compute.trees");
  check_refused("bundle with /dev/zero as a trees file",
                run_in_scratch({predict, fixture, "--bundle", bundle.string(), "--trace", trace}), "compute.trees",
                "file is larger than 16 MiB", trace);
}

TEST_CASE("hostile corpus: the fixture job itself is accepted", "[hostile]") {
  // Guards the corpus: if the fixture broke, every model/gpu case would 'pass' for the wrong reason.
  Scratch scratch;
  const std::string trace = (scratch.path / "trace.json").string();
  const auto r = run_in_scratch({binary("ptp-predict"), kHostileDir + "/fixtures/job.yaml", "--trace", trace});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(trace));
  make_bundle(scratch.path / "bundle");
  const auto b = run_in_scratch({binary("ptp-predict"), kHostileDir + "/fixtures/job.yaml", "--bundle",
                                 (scratch.path / "bundle").string(), "--format", "json"});
  INFO(b.err);
  CHECK(b.exit_code == 0);
  CHECK_THAT(b.out, Catch::Contains("\"learned\""));
}

TEST_CASE("hostile corpus: ptp-profile refuses every sweep and nccl-tests log cleanly", "[hostile]") {
  const auto m = manifest();
  const std::string profile = binary("ptp-profile");
  for (const std::string kind : {"sweep", "nccl"}) {
    for (const auto& rel : corpus_files(kind)) {
      const std::string file = kHostileDir + "/" + rel;
      Scratch scratch;
      const std::string out = (scratch.path / "out").string();  // also checked with .ops.csv/.collectives.csv
      std::vector<std::string> argv{profile};
      if (kind == "sweep")
        argv.insert(argv.end(), {file, "--backend", "host", "--out", out});
      else
        argv.insert(argv.end(), {"ingest-nccl-tests", file, "--gpu", "a100-sxm4-80gb", "--ranks", "16", "--out", out});
      const auto it = m.find(rel);
      check_refused(rel, run_in_scratch(argv), fs::path(file).filename().string(), it == m.end() ? "?" : it->second,
                    out, "ptp-profile");
    }
  }
}

TEST_CASE("hostile corpus: ptp-train refuses every dataset file cleanly", "[hostile]") {
  const auto m = manifest();
  const std::string train = binary("ptp-train");
  for (const auto& rel : corpus_files("csv")) {
    const std::string file = kHostileDir + "/" + rel;
    const std::string name = fs::path(file).filename().string();
    const std::string table = name.substr(0, name.find('-'));
    REQUIRE((table == "runs" || table == "ops" || table == "collectives"));
    Scratch scratch;
    const fs::path data = scratch.path / "data";
    fs::copy(source_path("tests/data/train-fixture"), data, fs::copy_options::recursive);
    fs::remove_all(data / (table + ".csv"));
    fs::remove_all(data / table);
    fs::create_directories(data / table);
    fs::copy_file(file, data / table / name);
    const std::string out = (scratch.path / "bundle").string();
    const auto it = m.find(rel);
    // The message names the file, or for table-wide problems (no data rows) the table's folder.
    check_refused(rel, run_in_scratch({train, "--data", data.string(), "--out", out, "--no-cv", "-q"}),
                  (data / table).string(), it == m.end() ? "?" : it->second, out, "ptp-train");
  }
}
