#pragma once
#include <string>

#include "gcs/gcs_channel.hpp"

namespace launcher::gcs {

// For a failed call to `target`: "" when the failure may heal by waiting (nothing listens yet, a
// restart, a slow server), else one sentence saying what in the TLS setup is wrong and how to
// fix it. `tls` is what this client used (null: plaintext).
std::string diagnose_tls_failure(const RpcError& error, const std::string& target, const TlsCredentials* tls);

}  // namespace launcher::gcs
