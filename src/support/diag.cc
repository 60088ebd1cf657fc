#include "support/diag.h"

namespace tinyfit {

std::string Diag::format() const {
  std::string line = "tinyfit: error: ";
  if (!file.empty()) line += file + ": ";
  if (!node.empty() || !op.empty()) {
    line += "node '" + node + "'";
    if (!op.empty()) line += " (" + op + ")";
    line += ": ";
  }
  line += message;
  // One line, always: a message built from untrusted names must not break it.
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

}  // namespace tinyfit
