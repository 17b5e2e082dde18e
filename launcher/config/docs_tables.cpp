#include "config/docs_tables.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "config/settings.hpp"
#include "util/exit_codes.hpp"

namespace launcher {

namespace {

// Table cells: '|' would end the cell, and <word> would be read as an HTML tag.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string code(std::string_view text) { return "`" + std::string(text) + "`"; }

std::string command_names(Commands commands) {
  static constexpr std::pair<Command, const char*> k_names[] = {
      {Command::run, "run"},     {Command::plan, "plan"},   {Command::wait, "wait"},
      {Command::status, "status"}, {Command::probe, "probe"}, {Command::redis_cleanup, "redis-cleanup"}};
  std::string out;
  for (const auto& [command, name] : k_names) {
    if (commands.has(command)) {
      out += (out.empty() ? "" : ", ") + code(name);
    }
  }
  return out;
}

}  // namespace

std::string settings_markdown() {
  std::string out =
      "| flag | environment | default | what it sets | read by |\n"
      "|---|---|---|---|---|\n";
  for (const Setting& s : settings()) {
    std::string flags;
    for (std::string_view rest = s.flags; !rest.empty();) {
      const std::string_view name = rest.substr(0, rest.find(','));
      flags += (flags.empty() ? "" : ", ") + code(name);
      rest.remove_prefix(std::min(rest.size(), name.size() + 1));
    }
    if (s.secret()) {
      flags = "— (a secret: environment only)";
    }
    const std::string default_cell = s.default_value.empty() ? cell(s.default_note) : code(s.default_value);
    std::string meaning = cell(s.help);
    if (!s.docs.empty()) {
      meaning += ". " + std::string(s.docs);
    }
    out += "| " + flags + " | " + code(s.env) + " | " + default_cell + " | " + meaning + " | " +
           command_names(s.commands) + " |\n";
  }
  return out;
}

std::string with_generated_tables(std::string_view doc) {
  std::string out(doc);
  for (const auto& [name, table] : {std::pair<std::string, std::string>{"settings", settings_markdown()},
                                    {"exit codes", exit_codes_markdown()}}) {
    const std::string begin = "<!-- generated: " + name + " table";
    const std::string end = "<!-- end: " + name + " table -->";
    const std::size_t b = out.find(begin);
    const std::size_t body = b == std::string::npos ? b : out.find('\n', b);
    const std::size_t e = body == std::string::npos ? body : out.find(end, body);
    if (e == std::string::npos) {
      throw std::runtime_error("no \"" + begin + " …-->\" line followed by \"" + end + "\"");
    }
    out.replace(body + 1, e - body - 1, table);
  }
  return out;
}

}  // namespace launcher
