// The ordering algorithms by name (--schedule=given|rpo|exact|hierarchical|best),
// and `best`, the minimum over all of them.
#pragma once

#include <span>
#include <string_view>

#include "analysis/buffer_graph.h"
#include "schedule/order_result.h"

namespace tinyfit::schedule {

using OrderFunction = OrderResult (*)(const analysis::BufferGraph&, const OrderOptions&);

struct OrderAlgorithm {
  std::string_view name;     // stable kebab-case, used on the command line
  std::string_view summary;  // one line for --help
  OrderFunction run;
};

// Every algorithm, in the order `best` breaks ties (exact first).
std::span<const OrderAlgorithm> list_order_algorithms();

// nullptr for an unknown name (the CLI turns that into a user error).
const OrderAlgorithm* find_order_algorithm(std::string_view name);

// What: runs every other algorithm and keeps the lowest peak (ties: the first in
// list_order_algorithms()). Since exact is seeded with the others it is
// normally exact's answer; `note` names the winner.
// Requires / Guarantees: those of order_exact; optimal if any run proved it.
OrderResult order_best(const analysis::BufferGraph& bg, const OrderOptions& options);

}  // namespace tinyfit::schedule
