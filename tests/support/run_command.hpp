#pragma once
// Runs a real binary through the shell and captures exit code, stdout and stderr (end-to-end tests).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace ptp::test {

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The temp dirs this test process made, removed when it exits: ctest runs every test case as its
// own process, and CI runs the suite several times on one machine, whose disk they would fill.
inline std::vector<std::string>& temp_dirs_made() {
  static std::vector<std::string>* dirs = [] {
    auto* made = new std::vector<std::string>();  // outlives static destructors, for the exit handler
    std::atexit([] {
      for (const auto& dir : temp_dirs_made()) {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
      }
    });
    return made;
  }();
  return *dirs;
}

inline std::string temp_dir() {
  char tmpl[] = "/tmp/ptp-test-XXXXXX";
  const char* dir = ::mkdtemp(tmpl);
  if (!dir) return "/tmp";
  temp_dirs_made().push_back(dir);
  return dir;
}

inline CommandResult run_command(const std::string& command) {
  static int counter = 0;
  const std::string base = temp_dir() + "/cmd" + std::to_string(++counter) + "_" + std::to_string(::getpid());
  const std::string full = command + " >" + base + ".out 2>" + base + ".err";
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

inline std::string binary(const std::string& name) {
  return std::string(PTP_BINARY_DIR) + "/apps/" + name + "/" + name;
}

inline std::string source_path(const std::string& rel) { return std::string(PTP_SOURCE_DIR) + "/" + rel; }

inline std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string path = temp_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace ptp::test
