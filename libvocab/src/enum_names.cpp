#include "ptp/vocab/enum_names.hpp"

#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"

namespace ptp::vocab {

std::string joined_names(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : " | ") + n;
  return list;
}

void fail_unknown_name(const std::string& what, const std::string& text, const std::vector<std::string>& names) {
  throw InputError(what + " '" + text + "': expected " + joined_names(names) + did_you_mean(text, names));
}

}  // namespace ptp::vocab
