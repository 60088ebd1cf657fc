// A plain text table for terminal reports: columns padded to their widest
// cell, numbers right-aligned. Deliberately tiny; --json is the machine format.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tinyfit::tools {

class TextTable {
 public:
  enum class Align { kLeft, kRight };

  explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);
  void print(std::ostream& out, const std::string& indent = "  ") const;

 private:
  std::vector<std::string> header_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tinyfit::tools
