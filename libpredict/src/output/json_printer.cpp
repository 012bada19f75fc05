// --format json: one pretty object. One job's prediction, or a search's counts, its job as written
// and its ranked rows together; several jobs or a sweep are refused (jsonl prints those).
#include "printers.hpp"
#include "ptp/vocab/error.hpp"
#include "search_cells.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::printers {

namespace {

class JsonPrinter final : public Printer {
 public:
  std::string predictions(const std::vector<SweepRow>& rows, bool) const override {
    if (rows.size() != 1)
      throw InputError("--format json prints one object; use --format jsonl or csv for several jobs or a sweep");
    return render_json(rows.front().prediction);
  }

  std::string search(const SearchResult& r) const override {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      auto j = search_cells::row_json(r, i);
      j["prediction"] = prediction_json(r.rows[i].prediction);
      rows.push_back(std::move(j));
    }
    const nlohmann::json out = {
        {"ptp", tool_json()}, {"search", search_cells::counts_json(r)}, {"job", prediction_json(r.job)}, {"rows", rows}};
    return out.dump(2) + "\n";
  }
};

}  // namespace

const Printer& json() {
  static const JsonPrinter printer;
  return printer;
}

}  // namespace ptp::predict::printers
