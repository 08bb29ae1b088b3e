// A first-in first-out queue that holds no memory until its first push.
//
// A switch keeps one queue per (egress, ingress, VC, flow-control class):
// P^2 x 6 of them for P ports, nearly all empty for the whole run. A
// std::deque allocates about 576 bytes when it is made, empty or not, so
// the 512-endpoint topology of `hxsim bench` (leaf switches of 65 ports)
// held 117 MB of empty queues. This one is a ring in a vector whose
// capacity doubles as needed: 24 bytes while empty, and no slower. A link
// end's queues of credit returns and ACKs, pushed and popped once per
// message, are cheaper in it than in a deque's blocks.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace hx {

template <class T>
class Fifo {
 public:
  bool empty() const { return m_count == 0; }
  std::size_t size() const { return m_count; }
  T& front() { return m_buf[m_head]; }
  const T& front() const { return m_buf[m_head]; }
  const T& operator[](std::size_t i) const { return m_buf[(m_head + i) & (m_buf.size() - 1)]; }  // the i-th from the front
  void push_back(T v) {
    if (m_count == m_buf.size()) grow();
    m_buf[(m_head + m_count) & (m_buf.size() - 1)] = std::move(v);
    ++m_count;
  }
  void pop_front() {
    m_head = (m_head + 1) & (m_buf.size() - 1);
    --m_count;
  }

 private:
  // Capacity stays a power of two, so that wrapping is a mask.
  void grow() {
    std::vector<T> bigger(m_buf.empty() ? 4 : 2 * m_buf.size());
    for (std::size_t i = 0; i < m_count; ++i) bigger[i] = std::move(m_buf[(m_head + i) & (m_buf.size() - 1)]);
    m_buf.swap(bigger);
    m_head = 0;
  }
  std::vector<T> m_buf;
  std::size_t m_head = 0, m_count = 0;
};

}  // namespace hx
