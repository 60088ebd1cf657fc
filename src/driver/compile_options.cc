#include "driver/compile_options.h"

#include <algorithm>

namespace tinyfit::driver {

Result<TechniqueSet> parse_technique_list(std::string_view list) {
  const std::string valid = " (use a comma list of order, inplace, pex, motes and overlap, or none)";
  if (list == "none") return TechniqueSet{false, false, false, false, false};
  TechniqueSet set{false, false, false, false, false};
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t comma = std::min(list.find(',', begin), list.size());
    const std::string_view item = list.substr(begin, comma - begin);
    bool* flag = item == "order"     ? &set.order
                 : item == "inplace" ? &set.inplace
                 : item == "pex"     ? &set.pex
                 : item == "motes"   ? &set.motes
                 : item == "overlap" ? &set.overlap
                                     : nullptr;
    if (item.empty()) return fail("--techniques '" + std::string(list) + "' has an empty item" + valid, ExitCode::kBadCommandLine);
    if (!flag) {
      return fail("--techniques: unknown technique '" + std::string(item) + "'" + valid, ExitCode::kBadCommandLine);
    }
    if (*flag) return fail("--techniques names '" + std::string(item) + "' twice", ExitCode::kBadCommandLine);
    *flag = true;
    begin = comma + 1;
  }
  return set;
}

}  // namespace tinyfit::driver
