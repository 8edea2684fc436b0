// The CAF 0.17 side of remote_bench: a ping-pong and a one-way stream between two processes over
// libcaf_io's BASP (`publish` / `remote_actor`) on 127.0.0.1, with the same counts and payload (one
// 64-bit integer per message) as the other systems.
//
//   caf_bench serve PORT                      publishes the echo/sink actor, prints READY, exits
//                                             when stdin closes
//   caf_bench client PORT WARMUP RTT STREAM   prints "RTTS <ns> <ns> ..." (one per measured round
//                                             trip) and "STREAM <msgs/s> <checked 0|1>"
//
// Built by remote_bench with g++ against Debian's libcaf-dev (`-lcaf_io -lcaf_core`).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "caf/all.hpp"
#include "caf/io/all.hpp"

using namespace caf;

using ping_atom = atom_constant<atom("ping")>;
using item_atom = atom_constant<atom("item")>;
using report_atom = atom_constant<atom("report")>;

namespace {

struct server_state {
  uint64_t next = 0;
  bool ok = true;
};

// Echoes pings; counts stream items and checks that they arrive in order.
behavior server(stateful_actor<server_state>* self) {
  return {
    [](ping_atom, uint64_t x) { return x; },
    [=](item_atom, uint64_t x) {
      if (x != self->state.next)
        self->state.ok = false;
      ++self->state.next;
    },
    [=](report_atom) {
      return make_message(self->state.next, self->state.ok);
    },
  };
}

int serve(actor_system& sys, uint16_t port) {
  auto a = sys.spawn(server);
  auto p = sys.middleman().publish(a, port, "127.0.0.1");
  if (!p) {
    std::cerr << "publish: " << sys.render(p.error()) << std::endl;
    return 1;
  }
  std::cout << "READY" << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  anon_send_exit(a, exit_reason::user_shutdown);
  return 0;
}

int client(actor_system& sys, uint16_t port, uint64_t warmup, uint64_t rtt_n, uint64_t stream_n) {
  auto h = sys.middleman().remote_actor("127.0.0.1", port);
  if (!h) {
    std::cerr << "remote_actor: " << sys.render(h.error()) << std::endl;
    return 1;
  }
  auto server = *h;
  scoped_actor self{sys};
  bool checked = true;
  std::vector<int64_t> rtts;
  rtts.reserve(rtt_n);
  using clock = std::chrono::steady_clock;
  for (uint64_t i = 0; i < warmup + rtt_n; ++i) {
    auto t = clock::now();
    self->request(server, infinite, ping_atom::value, i)
      .receive([&](uint64_t r) { checked &= r == i; },
               [&](error&) { checked = false; });
    if (i >= warmup)
      rtts.push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t).count());
  }
  std::cout << "RTTS";
  for (auto r : rtts)
    std::cout << ' ' << r;
  std::cout << std::endl;
  auto t = clock::now();
  for (uint64_t i = 0; i < stream_n; ++i)
    self->send(server, item_atom::value, i);
  uint64_t got = 0;
  bool ok = false;
  self->request(server, infinite, report_atom::value)
    .receive(
      [&](uint64_t n, bool o) {
        got = n;
        ok = o;
      },
      [&](error&) { ok = false; });
  double secs = std::chrono::duration<double>(clock::now() - t).count();
  checked &= ok && got == stream_n;
  std::cout << "STREAM " << (double(stream_n) / secs) << ' ' << (checked ? 1 : 0) << std::endl;
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: caf_bench serve PORT | client PORT WARMUP RTT STREAM" << std::endl;
    return 2;
  }
  std::string role = argv[1];
  auto port = static_cast<uint16_t>(std::strtoul(argv[2], nullptr, 10));
  actor_system_config cfg;
  cfg.load<io::middleman>();
  actor_system sys{cfg};
  if (role == "serve")
    return serve(sys, port);
  if (role == "client" && argc == 6)
    return client(sys, port, std::strtoull(argv[3], nullptr, 10),
                  std::strtoull(argv[4], nullptr, 10), std::strtoull(argv[5], nullptr, 10));
  std::cerr << "usage: caf_bench serve PORT | client PORT WARMUP RTT STREAM" << std::endl;
  return 2;
}
