#include "redis/resp.hpp"

#include <hiredis/read.h>

#include <memory>
#include <new>

#include "util/strings.hpp"

namespace launcher::redis {

void append_command(std::string& out, const std::vector<std::string>& argv) {
  out += "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& arg : argv) {
    out += "$" + std::to_string(arg.size()) + "\r\n";
    out += arg;
    out += "\r\n";
  }
}

// hiredis' reader builds replies through these callbacks. A value is created when its bytes
// have arrived, in order, so a child is appended to its parent array; only the arrays still
// being filled are referenced by the reader, and each is the last element of its own parent,
// so appending never moves one of them. Only the root is freed by the reader (on an error);
// children live inside it. No exception may cross the C code: failures return nullptr, which
// the reader turns into an error.
struct ReaderCallbacks {
  static ReplyReader& owner(const redisReadTask* task) { return *static_cast<ReplyReader*>(task->privdata); }

  static Reply* place(const redisReadTask* task, Reply::Type type) noexcept {
    ReplyReader& reader = owner(task);
    if (++reader.m_objects > ReplyReader::k_max_objects) {
      reader.m_error = "a reply of more than " + std::to_string(ReplyReader::k_max_objects) + " values";
      return nullptr;
    }
    try {
      Reply* r = nullptr;
      if (task->parent == nullptr) {
        r = new Reply;
      } else {
        r = &static_cast<Reply*>(task->parent->obj)->elements.emplace_back();
      }
      r->type = type;
      return r;
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
  }

  static void* create_string(const redisReadTask* task, char* str, size_t len) {
    const Reply::Type type = task->type == REDIS_REPLY_ERROR    ? Reply::Type::error
                             : task->type == REDIS_REPLY_STATUS ? Reply::Type::status
                                                                : Reply::Type::string;
    Reply* r = place(task, type);
    if (r != nullptr) {
      try {
        r->text.assign(str, len);
      } catch (const std::bad_alloc&) {
        return nullptr;  // the reader frees the root, this value included
      }
    }
    return r;
  }

  // The claimed length allocates nothing: elements are appended as they arrive, and
  // k_max_objects bounds them.
  static void* create_array(const redisReadTask* task, int /*elements*/) { return place(task, Reply::Type::array); }

  static void* create_integer(const redisReadTask* task, long long value) {
    Reply* r = place(task, Reply::Type::integer);
    if (r != nullptr) {
      r->integer = value;
    }
    return r;
  }

  static void* create_nil(const redisReadTask* task) { return place(task, Reply::Type::nil); }

  static void free_object(void* obj) { delete static_cast<Reply*>(obj); }
};

namespace {

redisReplyObjectFunctions g_functions = {ReaderCallbacks::create_string, ReaderCallbacks::create_array,
                                         ReaderCallbacks::create_integer, ReaderCallbacks::create_nil,
                                         ReaderCallbacks::free_object};

}  // namespace

ReplyReader::ReplyReader() : m_reader(redisReaderCreateWithFunctions(&g_functions)) {
  if (m_reader == nullptr) {
    throw std::bad_alloc();
  }
  m_reader->privdata = this;
}

ReplyReader::~ReplyReader() { redisReaderFree(m_reader); }

std::string ReplyReader::feed(const char* data, std::size_t size) {
  m_reply_bytes += size;
  if (m_reply_bytes > k_max_reply_bytes) {
    return "a reply longer than " + std::to_string(k_max_reply_bytes >> 20) + " MiB (not a Redis server?)";
  }
  if (redisReaderFeed(m_reader, data, size) != REDIS_OK) {
    return "out of memory";
  }
  return "";
}

util::Result<std::optional<Reply>> ReplyReader::next() {
  using R = util::Result<std::optional<Reply>>;
  void* raw = nullptr;
  if (redisReaderGetReply(m_reader, &raw) != REDIS_OK) {
    std::string why = m_error.empty() ? std::string(m_reader->errstr) : m_error;
    if (why.starts_with("Protocol error, ")) {
      why.erase(0, 16);  // hiredis' "Protocol error, got "H" as reply type byte"
    }
    return R::failure("protocol error: " + util::printable(why, 160));
  }
  if (raw == nullptr) {
    return std::optional<Reply>();
  }
  std::unique_ptr<Reply> reply(static_cast<Reply*>(raw));
  // What is still buffered belongs to the next reply.
  m_reply_bytes = m_reader->len - m_reader->pos;
  m_objects = 0;
  return std::optional<Reply>(std::move(*reply));
}

}  // namespace launcher::redis
