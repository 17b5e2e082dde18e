#include "watch/nccl_ras_status.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "util/json.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::watch {

namespace {

using R = util::Result<RasStatus>;

// NCCL's ncclResult_t: ncclSuccess 0, ncclInProgress 7 (src/nccl.h.in); anything else on a rank's
// init state or async error is an error, as rasClientRunComms counts them.
bool is_error(int result) { return result != 0 && result != 7; }

std::string normal_hash(std::string_view h) {
  if (h.starts_with("0x") || h.starts_with("0X")) {
    h.remove_prefix(2);
  }
  while (h.size() > 1 && h.front() == '0') {
    h.remove_prefix(1);
  }
  std::string out(h);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// --- JSON (NCCL >= 2.29): every rank, with its counts per operation kind ------------------------
RasRank json_rank(const util::Json& r) {
  RasRank out;
  out.rank = r.value("rank", -1);
  out.host = r.value("host", std::string());
  out.host = out.host == "unknown" ? "" : out.host;
  out.pid = r.value("pid", -1);
  out.gpu = r.value("cuda_dev", -1);
  return out;
}

R parse_json(const std::string& body) {
  const util::Json doc = util::Json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("communicators") || !doc["communicators"].is_array()) {
    return R::failure("not an NCCL RAS status dump: the JSON has no \"communicators\" array");
  }
  RasStatus s;
  s.format = RasFormat::json;
  try {
    s.nccl_version = doc.value("nccl_version", std::string());
    std::set<std::string> dead;
    for (const util::Json& c : doc["communicators"]) {
      RasComm comm;
      comm.hash = normal_hash(c.value("hash", std::string()));
      comm.size = c.value("size", 0);
      std::optional<util::Json> first_counts;
      for (const util::Json& r : c.value("ranks", util::Json::array())) {
        RasRank rank = json_rank(r);
        const util::Json status = r.value("status", util::Json::object());
        comm.error = comm.error || is_error(status.value("init_state", 0)) || is_error(status.value("async_error", 0));
        comm.finished = comm.finished || status.value("finalize_called", false) || status.value("destroy_flag", false) ||
                        status.value("abort_flag", false);
        const util::Json counts = r.value("collective_counts", util::Json::object());
        std::uint64_t total = 0;
        for (const auto& [kind, n] : counts.items()) {
          total += n.is_number_unsigned() ? n.get<std::uint64_t>() : 0;
        }
        rank.ops = total;
        comm.counts_differ = comm.counts_differ || (first_counts && *first_counts != counts);
        first_counts = first_counts.value_or(counts);
        comm.progress += std::to_string(rank.rank) + ":" + std::to_string(total) + ",";
        comm.ranks.push_back(std::move(rank));
      }
      for (const util::Json& m : c.value("missing_ranks", util::Json::array())) {
        RasRank rank = json_rank(m);
        const util::Json status = m.value("status", util::Json::object());
        if (status.value("considered_dead", false) && !rank.host.empty()) {
          dead.insert("process " + std::to_string(rank.pid) + " on node " + rank.host);
        }
        comm.progress += "missing " + std::to_string(rank.rank) + ",";
        comm.missing.push_back(std::move(rank));
      }
      comm.missing_count = static_cast<int>(comm.missing.size());
      s.comms.push_back(std::move(comm));
    }
    s.communicators = static_cast<int>(s.comms.size());
    s.dead.assign(dead.begin(), dead.end());
    s.dead_processes = static_cast<int>(s.dead.size());
  } catch (const std::exception& e) {
    return R::failure(std::string("not an NCCL RAS status dump: unexpected JSON (") + e.what() + ")");
  }
  return s;
}

// --- text (every release since 2.24): the summary table, then the Errors and Warnings sections,
// where a communicator that waits for some of its ranks has a block of its own -------------------
const std::regex& k_block() {  // "#0-0 (0123abcd…) MISMATCH"
  static const std::regex r(R"(^#(\d+)-(\d+) \(([0-9a-fA-F]+)\) (INCOMPLETE|ERROR|MISMATCH)\s*$)");
  return r;
}
const std::regex& k_summary_row() {  // "    0         1         2         8        16        16   RUNNING  OK"
  static const std::regex r(R"(^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s*$)");
  return r;
}
// "Rank 7 has launched up to operation 99 -- GPU 3 managed by process 4242 on node 10.0.0.7"
// "Rank 7 -- GPU 3 managed by process 4242 on node 10.0.0.7", "Rank 7 -- [process information not found]"
const std::regex& k_rank_line() {
  static const std::regex r(
      R"(^\s+Rank (\d+)( has launched up to operation (\d+)| has not launched any operations| has status \S+| reported .*)?)"
      R"( -- (GPU (\d+)(?: \(NVML \d+\))? managed by process (\d+) on node (\S+)|\[process information not found\])\s*$)");
  return r;
}
const std::regex& k_group_ops() {  // "  12 ranks have launched up to operation 100", "  3 ranks have not launched any operations"
  static const std::regex r(R"(^\s+\d+ ranks have (launched up to operation (\d+)|not launched any operations)\s*$)");
  return r;
}
const std::regex& k_kind() {  // "  Communicator ranks have different AllReduce operation counts"
  static const std::regex r(R"(^\s+Communicator ranks have different (\S+) operation counts\s*$)");
  return r;
}
const std::regex& k_missing_ranks() {  // "  Missing communicator data from 2 ranks"
  static const std::regex r(R"(^\s+Missing communicator data from (\d+) ranks?\s*$)");
  return r;
}
const std::regex& k_process() {  // "  Process 4242 on node 10.0.0.7 managing GPU 3"
  static const std::regex r(R"(^\s+Process (\d+) on node (\S+) managing GPUs? .*$)");
  return r;
}
const std::regex& k_dead_count() {  // "  2 job processes are considered dead (unreachable via the RAS network)"
  static const std::regex r(R"(^\s+(\d+) job process(?:es are| is) considered dead.*$)");
  return r;
}

std::uint64_t to_u64(const std::string& s) { return static_cast<std::uint64_t>(std::stoull(s)); }

R parse_text(const std::string& body) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < body.size();) {
    const std::size_t end = std::min(body.find('\n', at), body.size());
    lines.emplace_back(body.substr(at, end - at));
    at = end + 1;
  }
  const auto first = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return !util::trim(l).empty(); });
  if (first == lines.end() || !first->starts_with("NCCL version ")) {
    return R::failure("not an NCCL RAS status dump: it does not begin with \"NCCL version\" (" +
                      (first == lines.end() ? std::string("empty") : "'" + util::printable(*first, 60) + "'") + ")");
  }
  RasStatus s;
  s.format = RasFormat::text;
  const std::string version = first->substr(std::string("NCCL version ").size());
  s.nccl_version = version.substr(0, version.find_first_of(" +"));

  std::map<std::string, RasComm> comms;  // by hash
  std::map<int, int> group_size;          // summary row: group number → ranks per communicator
  RasComm* block = nullptr;               // the communicator block being read
  enum class Top { none, summary, dead, missing } top = Top::none;
  // The count a "N ranks have launched up to …" line set (a flag beside a number, not an
  // optional: GCC 12 at -O2 calls a copy of the optional maybe-uninitialized, -Werror in CI).
  bool group_ops_set = false;
  std::uint64_t group_ops = 0;
  std::string kind;
  std::string block_type;  // INCOMPLETE, ERROR or MISMATCH
  bool in_summary = false;
  for (const std::string& line : lines) {
    std::smatch m;
    if (util::trim(line).empty()) {
      block = nullptr;
      top = Top::none;
      continue;
    }
    if (line.starts_with("Group ")) {
      in_summary = true;
      continue;
    }
    if (in_summary && std::regex_match(line, m, k_summary_row())) {
      s.communicators += std::stoi(m[2]);
      group_size[std::stoi(m[1])] = std::stoi(m[5]);
      continue;
    }
    if (line.starts_with("Errors") || line.starts_with("Warnings")) {
      in_summary = false;
      continue;
    }
    if (std::regex_match(line, m, k_block())) {
      in_summary = false;
      RasComm& c = comms[normal_hash(m[3].str())];
      c.hash = normal_hash(m[3].str());
      c.size = group_size.count(std::stoi(m[1])) > 0 ? group_size[std::stoi(m[1])] : 0;
      c.error = c.error || m[4] == "ERROR";
      c.progress += line + "\n";
      block = &c;
      block_type = m[4];
      group_ops_set = false;
      kind.clear();
      continue;
    }
    if (line == "DEAD") {
      top = Top::dead;
      continue;
    }
    if (line == "INCOMPLETE") {
      top = Top::missing;
      continue;
    }
    if (block == nullptr) {
      if (top == Top::dead && std::regex_match(line, m, k_dead_count())) {
        s.dead_processes = std::stoi(m[1]);
      } else if (top == Top::dead && std::regex_match(line, m, k_process())) {
        s.dead.push_back("process " + m[1].str() + " on node " + m[2].str());
      }
      continue;
    }
    block->progress += line + "\n";
    if (std::regex_match(line, m, k_kind())) {
      block->counts_differ = true;
      kind = m[1];
      group_ops_set = false;
    } else if (std::regex_match(line, m, k_group_ops())) {
      group_ops = m[2].matched ? to_u64(m[2]) : 0;
      group_ops_set = true;
    } else if (std::regex_match(line, m, k_missing_ranks())) {
      block->missing_count += std::stoi(m[1]);
    } else if (std::regex_match(line, m, k_rank_line())) {
      RasRank r;
      r.rank = std::stoi(m[1]);
      if (m[5].matched) {
        r.gpu = std::atoi(m[5].str().c_str());
        r.pid = std::stoi(m[6]);
        r.host = m[7];
      }
      const std::string how = m[2];
      if (block_type == "INCOMPLETE") {
        block->missing.push_back(std::move(r));
      } else if (!kind.empty() && (how.starts_with(" has launched") || how.starts_with(" has not launched") ||
                                   (how.empty() && group_ops_set))) {
        r.op = kind;
        std::uint64_t n = 0;  // "has not launched any operations": 0
        if (m[3].matched) {
          n = to_u64(m[3]);
        } else if (how.empty() && group_ops_set) {
          n = group_ops;  // listed under "N ranks have launched up to operation X"
        }
        r.ops = n;
        block->ranks.push_back(std::move(r));
      }
    }
  }
  for (auto& [hash, c] : comms) {
    c.missing_count = std::max(c.missing_count, static_cast<int>(c.missing.size()));
    s.comms.push_back(std::move(c));
  }
  s.dead_processes = std::max(s.dead_processes, static_cast<int>(s.dead.size()));
  s.communicators = std::max(s.communicators, static_cast<int>(s.comms.size()));
  return s;
}

}  // namespace

std::vector<RasRank> RasComm::lagging() const {
  std::map<std::string, std::uint64_t> lowest;  // by operation kind
  for (const RasRank& r : ranks) {
    if (r.ops) {
      auto [it, fresh] = lowest.emplace(r.op, *r.ops);
      it->second = fresh ? *r.ops : std::min(it->second, *r.ops);
    }
  }
  std::vector<RasRank> out;
  std::set<int> named;
  if (counts_differ) {
    for (const RasRank& r : ranks) {
      if (r.ops && *r.ops == lowest[r.op] && named.insert(r.rank).second) {
        out.push_back(r);
      }
    }
  }
  for (const RasRank& r : missing) {
    if (named.insert(r.rank).second) {
      out.push_back(r);
    }
  }
  return out;
}

std::string describe_rank(const RasRank& r) {
  std::string out = "rank " + std::to_string(r.rank);
  if (!r.host.empty()) {
    out += " (GPU " + std::to_string(r.gpu) + ", process " + std::to_string(r.pid) + " on node " +
           util::printable(r.host, 64) + ")";
  }
  if (r.ops) {
    out += " at " + (r.op.empty() ? std::string("operation ") : util::printable(r.op, 32) + " ") + std::to_string(*r.ops);
  }
  return out;
}

util::Result<RasStatus> parse_ras_status(const RasDump& dump) {
  return dump.format == RasFormat::json ? parse_json(dump.body) : parse_text(dump.body);
}

}  // namespace launcher::watch
