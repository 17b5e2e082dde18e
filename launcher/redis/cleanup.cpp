#include "redis/cleanup.hpp"

#include <unordered_set>

#include "redis/keyspace.hpp"
#include "util/strings.hpp"

namespace launcher::redis {

namespace {

using Kind = RedisError::Kind;
constexpr int k_legacy_sample = 16;

RedisError unexpected(const std::string& command, const Reply& reply) {
  if (reply.is_error()) {
    return {Kind::server, command + " failed: " + util::printable(reply.text, 200)};
  }
  return {Kind::protocol, command + " got a reply of an unexpected shape (not Redis?)"};
}

std::string quoted(const std::string& text) { return "\"" + util::printable(text, 200) + "\""; }

std::string count(long long n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// The <= 2.37 layout, one round trip: TYPE, HLEN and a sample of field names (HRANDFIELD
// returns names only; HSCAN would send values too, and the KV table's can be megabytes).
util::Result<bool, RedisError> inspect_legacy(Connection& c, const std::string& ns, CleanupReport& report) {
  using R = util::Result<bool, RedisError>;
  auto replies = c.pipeline({{"TYPE", ns}, {"HLEN", ns}, {"HRANDFIELD", ns, std::to_string(k_legacy_sample)}});
  if (!replies) {
    return R::failure(replies.error());
  }
  const Reply& type = replies.value()[0];
  const Reply& hlen = replies.value()[1];
  const Reply& sample = replies.value()[2];
  if (type.type != Reply::Type::status) {
    return R::failure(unexpected("TYPE", type));
  }
  if (type.text == "none") {
    return false;
  }
  report.legacy = CleanupReport::Legacy::left_alone;
  if (type.text != "hash") {
    report.legacy_note = "key " + quoted(ns) + " is a " + util::printable(type.text, 20) + ", not Ray's <= 2.37 hash";
    return false;
  }
  if (hlen.type != Reply::Type::integer) {
    return R::failure(unexpected("HLEN", hlen));
  }
  report.legacy_fields = hlen.integer;
  if (sample.is_error()) {
    report.legacy_note = "hash " + quoted(ns) + " could not be sampled (HRANDFIELD: " +
                         util::printable(sample.text, 120) + "; it needs Redis 6.2+): delete it yourself if it is Ray's";
    return false;
  }
  if (sample.type != Reply::Type::array) {
    return R::failure(unexpected("HRANDFIELD", sample));
  }
  for (const Reply& field : sample.elements) {
    if (!is_legacy_field(ns, field.text)) {
      report.legacy_note = "hash " + quoted(ns) + " holds fields that are not Ray's (e.g. " + quoted(field.text) +
                           "; Ray's start with " + quoted(ns + "@") + ")";
      return false;
    }
  }
  report.legacy = CleanupReport::Legacy::deleted;
  return true;
}

}  // namespace

util::Result<CleanupReport, RedisError> cleanup_namespace(Connection& connection, const CleanupOptions& options) {
  using R = util::Result<CleanupReport, RedisError>;
  const std::string& ns = options.storage_namespace;
  const std::string pattern = table_key_pattern(ns);  // throws for "" or an unbounded pattern
  const int start = connection.round_trips();
  CleanupReport report;
  report.dry_run = options.dry_run;

  const auto legacy = inspect_legacy(connection, ns, report);
  if (!legacy) {
    return R::failure(legacy.error());
  }
  const bool unlink_legacy = legacy.value() && !options.dry_run;

  std::unordered_set<std::string> seen;  // SCAN may return a key twice
  std::vector<std::string> pending;      // found by the last SCAN: counted and deleted next round
  std::string cursor = "0";
  for (bool first = true; first || cursor != "0" || !pending.empty(); first = false) {
    std::vector<Command> commands;
    for (const std::string& key : pending) {
      commands.push_back({"HLEN", key});
    }
    if (!options.dry_run && !pending.empty()) {
      Command unlink = {"UNLINK"};
      unlink.insert(unlink.end(), pending.begin(), pending.end());
      commands.push_back(std::move(unlink));
    }
    if (first && unlink_legacy) {
      commands.push_back({"UNLINK", ns});
    }
    const bool scanning = first || cursor != "0";
    if (scanning) {
      commands.push_back({"SCAN", cursor, "MATCH", pattern, "COUNT", std::to_string(options.batch)});
    }
    auto replies = connection.pipeline(commands);
    if (!replies) {
      return R::failure(replies.error());
    }
    std::size_t i = 0;
    for (const std::string& key : pending) {
      const Reply& hlen = replies.value()[i++];
      if (hlen.type == Reply::Type::integer) {
        report.keys.push_back({key, hlen.integer});
        report.fields += hlen.integer;
      } else if (hlen.is_error() && hlen.text.starts_with("WRONGTYPE")) {
        report.keys.push_back({key, -1});
      } else {
        return R::failure(unexpected("HLEN", hlen));
      }
    }
    for (int n = (!options.dry_run && !pending.empty() ? 1 : 0) + (first && unlink_legacy ? 1 : 0); n > 0; --n) {
      const Reply& unlinked = replies.value()[i++];
      if (unlinked.type != Reply::Type::integer) {
        return R::failure(unexpected("UNLINK", unlinked));
      }
      report.unlinked += unlinked.integer;
    }
    pending.clear();
    if (!scanning) {
      continue;
    }
    const Reply& scan = replies.value()[i];
    if (scan.type != Reply::Type::array || scan.elements.size() != 2 ||
        scan.elements[0].type != Reply::Type::string || scan.elements[1].type != Reply::Type::array) {
      return R::failure(unexpected("SCAN", scan));
    }
    cursor = scan.elements[0].text;
    for (const Reply& key : scan.elements[1].elements) {
      if (!seen.insert(key.text).second) {
        continue;
      }
      if (is_table_key(ns, key.text)) {
        pending.push_back(key.text);
      } else {
        report.other_keys.push_back(key.text);
      }
    }
  }
  report.round_trips = connection.round_trips() - start;
  return report;
}

std::vector<std::string> render_cleanup(const CleanupReport& report, const std::string& ns, std::size_t max_listed) {
  std::vector<std::string> lines;
  const std::string verb = report.dry_run ? "would delete " : "deleted ";
  for (std::size_t i = 0; i < report.keys.size() && i < max_listed; ++i) {
    const FoundKey& k = report.keys[i];
    lines.push_back(verb + util::printable(k.key, 200) + ": " +
                    (k.fields >= 0 ? count(k.fields, "field") : std::string("not a hash")));
  }
  if (report.keys.size() > max_listed) {
    lines.push_back("... and " + count(static_cast<long long>(report.keys.size() - max_listed), "more key"));
  }
  const bool legacy = report.legacy == CleanupReport::Legacy::deleted;
  if (legacy) {
    lines.push_back(verb + "hash " + quoted(ns) + " (Ray <= 2.37 layout): " + count(report.legacy_fields, "field"));
  } else if (report.legacy == CleanupReport::Legacy::left_alone) {
    lines.push_back("left alone: " + report.legacy_note);
  }
  if (!report.other_keys.empty()) {
    lines.push_back("left alone: " + count(static_cast<long long>(report.other_keys.size()), "key") +
                    " of another namespace that " +
                    util::printable(table_key_pattern(ns), 200) + " also matches (e.g. " +
                    quoted(report.other_keys.front()) + ")");
  }
  const std::size_t keys = report.keys.size() + (legacy ? 1 : 0);
  const long long fields = report.fields + (legacy ? report.legacy_fields : 0);
  const std::string totals = count(static_cast<long long>(keys), "key") + " (" + count(fields, "field") +
                             ") of namespace " + quoted(ns) + " in " + count(report.round_trips, "round trip");
  if (keys == 0) {
    lines.push_back("nothing to delete: no keys of namespace " + quoted(ns) + " (" +
                    util::printable(table_key_pattern(ns), 200) + ", or hash " + quoted(ns) + "); " +
                    count(report.round_trips, "round trip"));
  } else {
    lines.push_back(report.dry_run ? "dry run: would delete " + totals + "; nothing deleted" : "deleted " + totals);
  }
  return lines;
}

}  // namespace launcher::redis
