#include "ptp/profile/plugins.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <map>

#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {
std::string& configured_dir() {
  static std::string dir;
  return dir;
}
}  // namespace

void set_plugin_dir(const std::string& dir) { configured_dir() = dir; }

std::string plugin_dir() {
  if (!configured_dir().empty()) return configured_dir();
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

void* plugin_symbol(const std::string& file, const char* symbol) {
  static std::map<std::string, void*> loaded;  // never dlclose'd: their objects live until exit
  const std::string path = plugin_dir() + "/" + file;
  void*& handle = loaded[path];
  if (!handle) {
    // RTLD_NOW: a plugin from another build fails here, naming the missing symbol, not mid-run.
    handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = ::dlerror();
      throw InputError("cannot load " + path + " (it must sit next to the ptp-profile it was built with): " +
                       (why ? why : "unknown reason"));
    }
  }
  ::dlerror();
  void* found = ::dlsym(handle, symbol);
  if (!found) throw InputError(path + ": no symbol " + symbol + " (a plugin from another build?)");
  return found;
}

}  // namespace ptp::profile
