#include "gang/pingpong_output.hpp"

#include <charconv>
#include <cmath>

#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::gang {

namespace {

std::optional<double> number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0) {
    return std::nullopt;
  }
  return v;
}

// size_str: "64", "1k", "1.5k", "4m", "1g" (powers of 1024); cnt_str: "20", "10k", "1m", "2b"
// (powers of 1000).
std::optional<std::uint64_t> scaled(std::string_view text, bool binary) {
  if (text.empty()) {
    return std::nullopt;
  }
  double unit = 1;
  const char last = text.back();
  if (last == 'k' || last == 'm' || last == 'g' || last == 'b') {
    const double step = binary ? 1024.0 : 1000.0;
    unit = last == 'k' ? step : last == 'm' ? step * step : step * step * step;
    text.remove_suffix(1);
  }
  const auto v = number(text);
  if (!v) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(std::llround(*v * unit));
}

std::optional<PingpongRow> row(std::string_view line) {
  const std::vector<std::string> w = util::split_words(line);
  if (w.size() != 8 || w[4].empty() || w[4].back() != 's') {
    return std::nullopt;
  }
  const auto bytes = scaled(w[0], true);
  const auto sent = scaled(w[1], false);
  const auto seconds = number(std::string_view(w[4]).substr(0, w[4].size() - 1));
  const auto mb = number(w[5]);
  const auto usec = number(w[6]);
  if (!bytes || !sent || !seconds || !mb || !usec || *bytes == 0) {
    return std::nullopt;
  }
  return PingpongRow{*bytes, *sent, *seconds, *mb, *usec};
}

}  // namespace

std::vector<PingpongRow> pingpong_rows(std::string_view output) {
  std::vector<PingpongRow> rows;
  for (const std::string& line : util::split_list(output, "\n")) {
    if (const auto r = row(line)) {
      rows.push_back(*r);
    }
  }
  return rows;
}

util::Result<LinkMeasure> link_measure(std::string_view output) {
  const auto rows = pingpong_rows(output);
  if (rows.empty()) {
    const std::string problem = pingpong_problem(output);
    return util::Result<LinkMeasure>::failure(problem.empty() ? "fi_pingpong printed no measurement" : problem);
  }
  const PingpongRow* smallest = &rows.front();
  const PingpongRow* largest = &rows.front();
  double seconds = 0;
  for (const PingpongRow& r : rows) {
    smallest = r.bytes < smallest->bytes ? &r : smallest;
    largest = r.bytes > largest->bytes ? &r : largest;
    seconds += r.seconds;
  }
  // MB/sec is the bytes of both directions over the whole time; a ping and its pong never
  // overlap, so that is also the rate one direction carries while it sends.
  return LinkMeasure{smallest->usec_per_xfer, largest->mb_per_s * 1e6, largest->bytes, seconds};
}

std::string pingpong_problem(std::string_view output) {
  std::string found;
  for (const std::string& raw : util::split_list(output, "\n")) {
    const std::string_view line = util::trim(raw);
    const bool error = line.find("ret=") != std::string_view::npos ||
                       line.find("[error]") != std::string_view::npos ||
                       line.find("timeout expired") != std::string_view::npos ||
                       line.find("rror") != std::string_view::npos;
    if (!error) {
      continue;
    }
    if (line.find("fi_getinfo") != std::string_view::npos && line.find("-61") != std::string_view::npos) {
      return "the provider is not available here (fi_getinfo: No data available): no such device or provider";
    }
    if (line.find("Connection refused") != std::string_view::npos) {
      return "nothing listens on the peer's control port (Connection refused)";
    }
    if (line.find("Address already in use") != std::string_view::npos) {
      return "the control port is taken (Address already in use)";
    }
    found = line;
  }
  return util::printable(found);
}

}  // namespace launcher::gang
