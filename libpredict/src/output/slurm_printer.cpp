// --format slurm: the #SBATCH lines of exactly one job (render_slurm). A sweep, several jobs and a
// search have no one set of lines, and are refused.
#include "printers.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::printers {

namespace {

class SlurmPrinter final : public Printer {
 public:
  std::string predictions(const std::vector<SweepRow>& rows, bool) const override {
    if (rows.size() != 1)
      throw InputError("--format slurm prints the #SBATCH lines of one job; give one job file and no sweep");
    return render_slurm(rows.front().prediction);
  }
  bool prints_search() const override { return false; }
  std::string search(const SearchResult&) const override {
    throw InputError("--format slurm prints the #SBATCH lines of one job, not a search");
  }
};

}  // namespace

const Printer& slurm() {
  static const SlurmPrinter printer;
  return printer;
}

}  // namespace ptp::predict::printers
