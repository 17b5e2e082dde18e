#include "redis/cleanup.hpp"

#include <unordered_set>

#include "redis/keyspace.hpp"
#include "util/strings.hpp"

namespace launcher::redis {

namespace {

using Kind = RedisError::Kind;
constexpr int k_legacy_sample = 16;

bool is_noperm(const Reply& reply) { return reply.is_error() && reply.text.starts_with("NOPERM"); }

RedisError unexpected(const std::string& command, const Reply& reply) {
  if (is_noperm(reply)) {  // will not heal by retrying: the ACL user needs more rights
    return {Kind::auth, command + " refused: " + util::printable(reply.text, 200) +
                            " (the ACL user needs the keys ~RAY<namespace>@* and the commands SCAN, HLEN, UNLINK)"};
  }
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
  if (is_noperm(type)) {
    report.legacy = CleanupReport::Legacy::unchecked;
    report.legacy_note = "key " + quoted(ns) + " (Ray <= 2.37 layout): this user may not read it (NOPERM); a "
                         "Ray >= 2.38 cluster has none";
    return false;
  }
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
  // Deleted once its UNLINK is answered (a dry run: would be).
  report.legacy = report.dry_run ? CleanupReport::Legacy::deleted : CleanupReport::Legacy::absent;
  return true;
}

}  // namespace

CleanupReport cleanup_namespace(Connection& connection, const CleanupOptions& options) {
  const std::string& ns = options.storage_namespace;
  const std::string pattern = table_key_pattern(ns);  // throws for "" or an unbounded pattern
  const int start = connection.round_trips();
  CleanupReport report;
  report.dry_run = options.dry_run;
  const auto done = [&](std::optional<RedisError> error) {
    report.round_trips = connection.round_trips() - start;
    report.error = std::move(error);
    return report;
  };

  const auto legacy = inspect_legacy(connection, ns, report);
  if (!legacy) {
    return done(legacy.error());
  }
  const bool unlink_legacy = legacy.value() && !options.dry_run;

  std::unordered_set<std::string> seen;  // SCAN may return a key twice
  std::vector<std::string> to_check;     // found by the last SCAN: HLEN this round
  std::vector<std::size_t> to_unlink;    // hashes by last round's HLEN (in report.keys): UNLINK this round
  std::string cursor = "0";
  for (bool first = true; first || cursor != "0" || !to_check.empty() || !to_unlink.empty(); first = false) {
    if (std::chrono::steady_clock::now() >= options.deadline) {
      return done(RedisError{Kind::timeout, "gave up at the deadline after " +
                                                std::to_string(connection.round_trips() - start) + " round trips" +
                                                (cursor != "0" ? " (SCAN had not come back to cursor 0: a server "
                                                                 "whose SCAN never ends?)"
                                                               : "")});
    }
    std::vector<Command> commands;
    for (const std::string& key : to_check) {
      commands.push_back({"HLEN", key});
    }
    if (!to_unlink.empty()) {
      Command unlink = {"UNLINK"};
      for (const std::size_t k : to_unlink) {
        unlink.push_back(report.keys[k].key);
      }
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
      return done(replies.error());
    }
    std::size_t i = 0;
    std::vector<std::size_t> hashes;
    for (const std::string& key : to_check) {
      const Reply& hlen = replies.value()[i++];
      if (hlen.type == Reply::Type::integer) {
        hashes.push_back(report.keys.size());
        report.keys.push_back({key, hlen.integer, false});
        report.fields += hlen.integer;
      } else if (hlen.is_error() && hlen.text.starts_with("WRONGTYPE")) {
        report.not_hashes.push_back(key);  // Ray's tables are hashes: not Ray's, left alone
      } else {
        return done(unexpected("HLEN", hlen));
      }
    }
    for (int n = (!to_unlink.empty() ? 1 : 0) + (first && unlink_legacy ? 1 : 0); n > 0; --n) {
      const Reply& unlinked = replies.value()[i++];
      if (unlinked.type != Reply::Type::integer) {
        return done(unexpected("UNLINK", unlinked));
      }
      report.unlinked += unlinked.integer;
    }
    for (const std::size_t k : to_unlink) {
      report.keys[k].deleted = true;
    }
    if (first && unlink_legacy) {
      report.legacy = CleanupReport::Legacy::deleted;
    }
    to_unlink = options.dry_run ? std::vector<std::size_t>{} : std::move(hashes);
    to_check.clear();
    if (options.progress) {
      report.round_trips = connection.round_trips() - start;
      options.progress(report);
    }
    if (!scanning) {
      continue;
    }
    const Reply& scan = replies.value()[i];
    if (scan.type != Reply::Type::array || scan.elements.size() != 2 ||
        scan.elements[0].type != Reply::Type::string || scan.elements[1].type != Reply::Type::array) {
      return done(unexpected("SCAN", scan));
    }
    cursor = scan.elements[0].text;
    for (const Reply& key : scan.elements[1].elements) {
      if (!seen.insert(key.text).second) {
        continue;
      }
      if (is_table_key(ns, key.text)) {
        to_check.push_back(key.text);
      } else {
        report.other_keys.push_back(key.text);
      }
    }
  }
  return done(std::nullopt);
}

std::vector<std::string> render_cleanup(const CleanupReport& report, const std::string& ns, std::size_t max_listed) {
  std::vector<std::string> lines;
  const std::string verb = report.dry_run ? "would delete " : "deleted ";
  std::size_t listed = 0;
  std::size_t keys = 0;
  long long fields = 0;
  for (const FoundKey& k : report.keys) {
    if (!report.dry_run && !k.deleted) {
      continue;  // found, but the cleanup ended before its UNLINK
    }
    ++keys;
    fields += k.fields;
    if (listed++ < max_listed) {
      lines.push_back(verb + util::printable(k.key, 200) + ": " + count(k.fields, "field"));
    }
  }
  if (listed > max_listed) {
    lines.push_back("... and " + count(static_cast<long long>(listed - max_listed), "more key"));
  }
  const bool legacy = report.legacy == CleanupReport::Legacy::deleted;
  if (legacy) {
    lines.push_back(verb + "hash " + quoted(ns) + " (Ray <= 2.37 layout): " + count(report.legacy_fields, "field"));
    ++keys;
    fields += report.legacy_fields;
  } else if (report.legacy == CleanupReport::Legacy::left_alone) {
    lines.push_back("left alone: " + report.legacy_note);
  } else if (report.legacy == CleanupReport::Legacy::unchecked) {
    lines.push_back("not looked at: " + report.legacy_note);
  }
  if (!report.not_hashes.empty()) {
    lines.push_back("left alone: " + count(static_cast<long long>(report.not_hashes.size()), "key") + " of namespace " +
                    quoted(ns) + " that " + (report.not_hashes.size() == 1 ? "is" : "are") +
                    " not a hash (e.g. " + quoted(report.not_hashes.front()) + "): Ray's tables are hashes");
  }
  if (!report.other_keys.empty()) {
    lines.push_back("left alone: " + count(static_cast<long long>(report.other_keys.size()), "key") +
                    " of another namespace that " +
                    util::printable(table_key_pattern(ns), 200) + " also matches (e.g. " +
                    quoted(report.other_keys.front()) + ")");
  }
  const std::string totals = count(static_cast<long long>(keys), "key") + " (" + count(fields, "field") +
                             ") of namespace " + quoted(ns) + " in " + count(report.round_trips, "round trip");
  if (report.error) {
    lines.push_back((report.dry_run ? "stopped early: had found " : "stopped early: had deleted ") + totals);
  } else if (keys == 0) {
    lines.push_back("nothing to delete: no keys of namespace " + quoted(ns) + " (" +
                    util::printable(table_key_pattern(ns), 200) + ", or hash " + quoted(ns) + "); " +
                    count(report.round_trips, "round trip"));
  } else {
    lines.push_back(report.dry_run ? "dry run: would delete " + totals + "; nothing deleted" : "deleted " + totals);
  }
  return lines;
}

}  // namespace launcher::redis
