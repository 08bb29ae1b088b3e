#include "models/core/graph_routes.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>

#include <cstddef>

namespace hx {

namespace {
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

Graph graph_of(int n, const std::vector<std::array<int, 2>>& pairs) {
  Graph g(static_cast<std::size_t>(n));
  for (const auto& p : pairs) boost::add_edge(static_cast<std::size_t>(p[0]), static_cast<std::size_t>(p[1]), g);
  return g;
}
}  // namespace

std::vector<int> graph_next_hops(int n, const std::vector<std::array<int, 2>>& pairs) {
  const Graph g = graph_of(n, pairs);
  std::vector<int> next(static_cast<std::size_t>(n * n), -1);
  for (int to = 0; to < n; ++to) {
    std::vector<std::size_t> pred(static_cast<std::size_t>(n));
    for (std::size_t v = 0; v < pred.size(); ++v) pred[v] = v;
    boost::breadth_first_search(
        g, static_cast<std::size_t>(to),
        boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(pred.data(), boost::on_tree_edge()))));
    for (int from = 0; from < n; ++from)
      next[static_cast<std::size_t>(from * n + to)] = static_cast<int>(pred[static_cast<std::size_t>(from)]);
  }
  return next;
}

std::vector<int> graph_unreachable_from_0(int n, const std::vector<std::array<int, 2>>& pairs) {
  const Graph g = graph_of(n, pairs);
  std::vector<int> comp(static_cast<std::size_t>(n));
  boost::connected_components(g, comp.data());
  std::vector<int> lone;
  for (int v = 1; v < n; ++v)
    if (comp[static_cast<std::size_t>(v)] != comp[0]) lone.push_back(v);
  return lone;
}

}  // namespace hx
