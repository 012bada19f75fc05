#include <algorithm>

#include "ptp/profile/cuda_device.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

const char* backend_name(Backend b) { return b == Backend::host ? "host" : "cuda"; }

Registry& Registry::instance() {
  static Registry r;  // function-local: registrars in other TUs may run first
  return r;
}

void Registry::add(std::unique_ptr<Microbenchmark> bench) {
  if (find(bench->name())) throw std::logic_error("microbenchmark registered twice: " + bench->name());
  benches_.push_back(std::move(bench));
}

const Microbenchmark* Registry::find(const std::string& name) const {
  for (const auto& b : benches_)
    if (b->name() == name) return b.get();
  return nullptr;
}

const Microbenchmark& Registry::get(const std::string& name, const std::string& where) const {
  if (const auto* b = find(name)) return *b;
  // The CUDA benchmarks register when the CUDA plugin loads, which only a CUDA run does.
  const bool cuda_unloaded = cuda::compiled() && !cuda::loaded();
  throw InputError(where + ": unknown microbenchmark '" + name + "'" + did_you_mean(name, names()) +
                   (names().empty() ? "" : "; " + std::string(cuda_unloaded ? "the host backend" : "this build") + " has: " + [&] {
                     std::string all;
                     for (const auto& n : names()) all += (all.empty() ? "" : ", ") + n;
                     return all;
                   }()) +
                   (cuda_unloaded ? " (the CUDA benchmarks load with --backend cuda)" : ""));
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& b : benches_) out.push_back(b->name());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<const Microbenchmark*> Registry::all() const {
  std::vector<const Microbenchmark*> out;
  for (const auto& b : benches_) out.push_back(b.get());
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name() < b->name(); });
  return out;
}

}  // namespace ptp::profile
