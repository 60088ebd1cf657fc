#include "devices/device_plan.h"

#include <algorithm>

namespace tinyfit::devices {

bool Box::is_empty() const {
  return axes.empty() || std::any_of(axes.begin(), axes.end(), [](const ir::Range& r) { return r.size() <= 0; });
}

int64_t Box::count_elements() const {
  if (is_empty()) return 0;
  int64_t n = 1;
  for (const ir::Range& r : axes) n *= r.size();
  return n;
}

ir::Shape Box::extents() const {
  ir::Shape shape;
  for (const ir::Range& r : axes) shape.push_back(std::max<int64_t>(0, r.size()));
  return shape;
}

bool Box::contains(const Box& other) const {
  if (other.is_empty()) return true;
  if (other.axes.size() != axes.size()) return false;
  for (size_t a = 0; a < axes.size(); ++a) {
    if (other.axes[a].begin < axes[a].begin || other.axes[a].end > axes[a].end) return false;
  }
  return true;
}

Box make_full_box(const ir::Shape& shape) {
  Box box;
  for (int64_t extent : shape) box.axes.push_back({0, extent});
  return box;
}

Box intersect_boxes(const Box& a, const Box& b) {
  Box box;
  for (size_t i = 0; i < a.axes.size() && i < b.axes.size(); ++i) {
    box.axes.push_back({std::max(a.axes[i].begin, b.axes[i].begin), std::min(a.axes[i].end, b.axes[i].end)});
  }
  return box;
}

Box bound_boxes(const Box& a, const Box& b) {
  if (a.is_empty()) return b;
  if (b.is_empty()) return a;
  Box box;
  for (size_t i = 0; i < a.axes.size(); ++i) {
    box.axes.push_back({std::min(a.axes[i].begin, b.axes[i].begin), std::max(a.axes[i].end, b.axes[i].end)});
  }
  return box;
}

std::string format_box(const Box& box) {
  std::string text;
  for (const ir::Range& r : box.axes) {
    if (!text.empty()) text += "x";
    text += "[" + std::to_string(r.begin) + "," + std::to_string(r.end) + ")";
  }
  return text;
}

std::string_view split_name(Split split) {
  switch (split) {
    case Split::kWhole: return "whole";
    case Split::kChannels: return "cout";
    case Split::kRows: return "fmh";
    case Split::kLength: return "len";
  }
  return "?";
}

std::string_view exchange_kind_name(ExchangeKind kind) {
  switch (kind) {
    case ExchangeKind::kScatter: return "scatter";
    case ExchangeKind::kGather: return "gather";
    case ExchangeKind::kHalo: return "halo";
    case ExchangeKind::kRedistribute: return "redistribute";
    case ExchangeKind::kLocalCopy: return "local-copy";
  }
  return "?";
}

int64_t DevicePlan::count_link_bytes() const {
  int64_t bytes = 0;
  for (const Stage& stage : stages) {
    for (const Transfer& t : stage.transfers) {
      if (t.kind != ExchangeKind::kLocalCopy) bytes += t.bytes;
    }
  }
  return bytes;
}

ir::Range split_extent(int64_t extent, int part, int parts) {
  return {extent * part / parts, extent * (part + 1) / parts};
}

}  // namespace tinyfit::devices
