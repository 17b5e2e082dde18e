#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"

struct redisReader;  // hiredis' RESP parser (hiredis/read.h), kept out of this header

namespace launcher::redis {

// One RESP2 reply, owned: what a Redis server answers to one command.
struct Reply {
  enum class Type { status, error, integer, string, nil, array };
  Type type = Type::nil;
  std::string text;             // status ("OK", "PONG"), error ("WRONGPASS …"), bulk string
  long long integer = 0;        // integer replies (HLEN, UNLINK)
  std::vector<Reply> elements;  // arrays (SCAN: [cursor, [keys…]])

  bool is_error() const { return type == Type::error; }
  bool is_status(const char* s) const { return type == Type::status && text == s; }
};

// Appends `argv` to `out` as one RESP request: an array of bulk strings, binary-safe (a
// password with spaces or quotes is one argument; nothing is interpreted).
void append_command(std::string& out, const std::vector<std::string>& argv);

// Decodes replies from a byte stream with hiredis' reader, bounded against a server that
// lies: one reply may take at most `k_max_reply_bytes` on the wire and `k_max_objects` values
// in all (elements are added as their bytes arrive, never allocated from a claimed length),
// so "*2147483647" or an endless bulk string cost at most a few MiB. Anything that is not
// RESP ("HTTP/1.1 400", a TLS alert) is an error, after which the stream is unusable.
class ReplyReader {
 public:
  static constexpr std::size_t k_max_reply_bytes = 8 << 20;  // SCAN COUNT 1000 replies are ~50 KiB
  static constexpr std::size_t k_max_objects = 1 << 17;

  ReplyReader();
  ~ReplyReader();
  ReplyReader(const ReplyReader&) = delete;
  ReplyReader& operator=(const ReplyReader&) = delete;

  // Adds bytes read from the socket; "" or why the stream cannot be read on.
  std::string feed(const char* data, std::size_t size);
  // The next complete reply, nullopt when more bytes are needed, or why the bytes are not RESP.
  util::Result<std::optional<Reply>> next();

 private:
  redisReader* m_reader = nullptr;
  std::size_t m_reply_bytes = 0;  // bytes of the reply being decoded (consumed or buffered)
  std::size_t m_objects = 0;      // values created for it
  std::string m_error;            // set by the object callbacks
  friend struct ReaderCallbacks;
};

}  // namespace launcher::redis
