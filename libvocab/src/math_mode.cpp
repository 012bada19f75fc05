#include "ptp/vocab/math_mode.hpp"

#include "ptp/vocab/enum_names.hpp"
#include "ptp/vocab/error.hpp"

namespace ptp::vocab {

namespace {
MathMode mode(const char* id, bool tensor_core, double operand_bytes, int alignment_elements, const char* trains_as) {
  MathMode m;
  m.id = id, m.tensor_core = tensor_core, m.operand_bytes = operand_bytes;
  m.alignment_elements = alignment_elements, m.trains_as = trains_as;
  return m;
}
}  // namespace

const std::vector<MathMode>& math_mode_table() {
  //                                          id  tensor core  operand B  aligned at  trains as
  static const std::vector<MathMode> table = {mode("fp32", false, 4, 1, "fp32"),
                                              mode("tf32", true, 4, 4, "tf32"),
                                              mode("fp16", true, 2, 8, "fp16"),
                                              mode("bf16", true, 2, 8, "fp16"),
                                              mode("fp8", true, 1, 16, "fp8"),
                                              mode("fp4", true, 0.5, 16, "fp4"),
                                              mode("fp16_nontensor", false, 2, 8, "fp16_nontensor")};
  return table;
}

const MathMode* find_math_mode(std::string_view id) { return find_by_id(math_mode_table(), id); }

const MathMode& math_mode(std::string_view id) {
  if (const auto* m = find_math_mode(id)) return *m;
  throw InputError("unknown math mode '" + std::string(id) + "'; expected one of " + joined_names(ids_of(math_mode_table())));
}

}  // namespace ptp::vocab
