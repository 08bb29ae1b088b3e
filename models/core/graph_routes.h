// Shortest routes and reachability in a small undirected graph given as
// pairs of vertices (sockets joined by socket links, in the coherent
// socket system and between root complexes alike), with Boost.Graph.
#pragma once
#include <array>
#include <vector>

namespace hx {

// [from * n + to]: the next vertex from `from` on a shortest route to `to`
// (`from` itself when from == to), by breadth-first search from `to`; of
// routes as short, the one the search meets first (edges in pair order).
std::vector<int> graph_next_hops(int n, const std::vector<std::array<int, 2>>& pairs);
// The vertices no route joins to vertex 0, in ascending order.
std::vector<int> graph_unreachable_from_0(int n, const std::vector<std::array<int, 2>>& pairs);

}  // namespace hx
