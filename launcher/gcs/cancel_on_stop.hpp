#pragma once
#include <grpcpp/client_context.h>

#include <functional>
#include <stop_token>

namespace launcher::gcs {

// Cancels a call when `stop` is requested: a SIGTERM ends a wait now, not at the deadline.
class CancelOnStop {
 public:
  CancelOnStop(grpc::ClientContext& context, std::stop_token stop)
      : m_callback(std::move(stop), [&context] { context.TryCancel(); }) {}

 private:
  std::stop_callback<std::function<void()>> m_callback;
};

}  // namespace launcher::gcs
