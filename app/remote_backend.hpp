#pragma once
// A remote GPU over SSH as a Backend (reducelab/backend.hpp): the SSH client (remote_client.hpp)
// behind the interface every other source has.
#include <memory>

#include "reducelab/backend.hpp"
#include "remote_client.hpp"

namespace rl::app {

std::unique_ptr<Backend> makeRemoteBackend(std::unique_ptr<RemoteClient> client);

}  // namespace rl::app
