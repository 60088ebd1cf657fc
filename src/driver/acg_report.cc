#include "driver/acg_report.h"

#include <algorithm>

#include "analysis/buffer_graph.h"
#include "partition/acg.h"
#include "partition/cells.h"
#include "partition/partition_scheme.h"

namespace tinyfit::driver {
namespace {

AcgComponentReport describe_component(const ir::Graph& graph, const partition::AxisConnectingGraph& acg,
                                      const std::vector<int>& component) {
  AcgComponentReport report;
  report.min_extent = acg.vertices[static_cast<size_t>(component.front())].extent;
  report.max_extent = report.min_extent;
  for (int v : component) {
    const partition::AcgVertex& vertex = acg.vertices[static_cast<size_t>(v)];
    report.min_extent = std::min(report.min_extent, vertex.extent);
    report.max_extent = std::max(report.max_extent, vertex.extent);
    const std::string name =
        vertex.is_reduce() ? "reduce" : partition::name_axis(graph.tensor(vertex.tensor).shape.size(), vertex.axis);
    if (std::find(report.axis_names.begin(), report.axis_names.end(), name) == report.axis_names.end()) {
      report.axis_names.push_back(name);
    }
    report.members.push_back(partition::describe_acg_vertex(graph, vertex));
  }
  return report;
}

}  // namespace

AcgReport describe_acg(const ir::Graph& graph) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const partition::AxisConnectingGraph acg = partition::build_acg(graph);
  AcgReport report;
  report.vertex_count = static_cast<int>(acg.vertices.size());
  report.edge_count = static_cast<int>(acg.edges.size());
  for (const partition::Cell& cell : partition::find_cells(bg)) {
    AcgCellReport cell_report;
    cell_report.first_node = bg.operators[static_cast<size_t>(cell.operators.front())].name;
    cell_report.last_node = bg.operators[static_cast<size_t>(cell.operators.back())].name;
    cell_report.operator_count = static_cast<int>(cell.operators.size());
    for (const std::vector<int>& component :
         partition::find_acg_components(acg, partition::select_subgraph_vertices(graph, bg, acg, cell.operators))) {
      cell_report.components.push_back(describe_component(graph, acg, component));
    }
    // Components that connect several axes are the partition candidates.
    std::stable_sort(cell_report.components.begin(), cell_report.components.end(),
                     [](const AcgComponentReport& a, const AcgComponentReport& b) {
                       return (a.members.size() > 1) > (b.members.size() > 1);
                     });
    report.cells.push_back(std::move(cell_report));
  }
  return report;
}

}  // namespace tinyfit::driver
