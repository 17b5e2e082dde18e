#pragma once
#include <string>

namespace launcher::redis {

// Why a Redis exchange failed, told apart the way the waits need it: only `auth` and `tls`
// will not heal by retrying (util::Attempt::Kind::refused, exit 69 at once); the rest are retried
// until the deadline.
struct RedisError {
  enum class Kind {
    connect,   // no TCP connection (refused, unreachable, no answer to SYN)
    timeout,   // connected, but no complete reply before the deadline
    closed,    // the server closed the connection
    protocol,  // the bytes are not RESP: not a Redis server, or one that lies
    auth,      // credentials rejected or missing (WRONGPASS, NOAUTH, …): will not heal
    tls,       // TLS: the server's certificate does not verify (CA, name, expiry), the server does
               // not speak TLS, or it refuses our client certificate: will not heal
    server,    // any other error reply (LOADING, MASTERDOWN, …)
    stopped,   // the caller's stop_token was triggered
  };
  Kind kind = Kind::server;
  std::string detail;  // one line, server text escaped; never a credential

  bool will_not_heal() const { return kind == Kind::auth || kind == Kind::tls; }
};

// How an error reply to AUTH or PING reads: an auth error (with a hint that names the
// setting to fix) or another server error. `reply` is the server's text, e.g.
// "WRONGPASS invalid username-password pair or user is disabled.".
RedisError classify_error_reply(const std::string& reply, bool sent_password, bool sent_username);

}  // namespace launcher::redis
