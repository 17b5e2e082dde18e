#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "app/commands.hpp"
#include "app/process_setup.hpp"
#include "config/cli.hpp"
#include "util/fatal.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

struct Parsed {
  const CommandSpec* spec = nullptr;  // nullptr: help was printed, exit with `help_exit`
  int help_exit = 0;
  Invocation invocation;
};

// CLI11 says "The following arguments were not expected" for a mistyped command; name it.
void refuse_unknown_command(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    return;
  }
  std::string names;
  for (const CommandSpec& spec : command_table()) {
    if (spec.name == argv[1]) {
      return;
    }
    names += (names.empty() ? "" : ", ") + std::string(spec.name);
  }
  throw Fatal(exit_code::usage, "unknown command \"" + util::printable(argv[1]) + "\" (expected one of " + names +
                                    "; see raylaunch --help)");
}

// The command line → which command, and its settings (flags, then environment, then defaults).
Parsed parse_command_line(int argc, char** argv) {
  refuse_unknown_command(argc, argv);
  CLI::App app{"raylaunch: starts a Ray cluster inside Kubernetes pods, one static binary per pod.", "raylaunch"};
  app.footer(exit_codes_help());  // generated from util/exit_codes.cpp's list
  app.require_subcommand(1);
  CliValues values;
  std::string argument;
  std::vector<std::pair<const CommandSpec*, CLI::App*>> subs;
  for (const CommandSpec& spec : command_table()) {
    CLI::App* sub = app.add_subcommand(std::string(spec.name), std::string(spec.help));
    add_settings(*sub, values, spec.settings);
    if (!spec.argument.empty()) {
      CLI::Option* opt = sub->add_option(std::string(spec.argument), argument)
                             ->check(CLI::IsMember(spec.argument_choices));
      if (spec.argument_required) {
        opt->required();
      }
    }
    if (spec.takes_command) {
      add_command(*sub, values, "the launch command, after --");
    }
    subs.emplace_back(&spec, sub);
  }
  Parsed parsed;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    parsed.help_exit = app.exit(e);  // --help: printed from the same table, not an error
    return parsed;
  } catch (const CLI::ParseError& e) {
    throw Fatal(exit_code::usage, util::printable(e.what()) + " (see raylaunch --help)");
  }
  for (const auto& [spec, sub] : subs) {
    if (sub->parsed()) {
      parsed.spec = spec;
    }
  }
  parsed.invocation.env = util::process_env();
  parsed.invocation.config = resolve_config(values, parsed.invocation.env, parsed.spec->settings);
  parsed.invocation.command = values.command;
  parsed.invocation.argument =
      argument.empty() && !parsed.spec->argument_choices.empty() ? parsed.spec->argument_choices.front() : argument;
  return parsed;
}

// stdout is the product of plan and status: a full disk or a closed pipe must not exit 0.
int check_stdout(int code) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "raylaunch: error: cannot write the output: %s\n", std::strerror(errno));
    return code == exit_code::ok ? exit_code::io_error : code;
  }
  return code;
}

// Parses the command line, sets the process up, runs one subcommand, and owns the process
// exit code: the only place that catches Fatal (prints "raylaunch: error: …") or anything
// unexpected (exit 70).
int launcher_main(int argc, char** argv) {
  block_handled_signals();  // before anything else: a SIGTERM to PID 1 must never be lost
  try {
    const Parsed parsed = parse_command_line(argc, argv);          // which command, its settings
    if (parsed.spec == nullptr) {
      return check_stdout(parsed.help_exit);                        // --help
    }
    setup_process(parsed.invocation.config, parsed.spec->signals);  // logging, gRPC logs, signal mask
    const int code = parsed.spec->run(parsed.invocation);           // the command itself
    spdlog::default_logger()->flush();                               // its last lines, a second at most
    return check_stdout(code);
  } catch (const Fatal& e) {
    for (const std::string& line : e.lines()) {
      std::fprintf(stderr, "raylaunch: error: %s\n", line.c_str());
    }
    return e.code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "raylaunch: internal error: %s (please report it)\n", util::printable(e.what()).c_str());
    return exit_code::software;
  }
}

}  // namespace

}  // namespace launcher

int main(int argc, char** argv) { return launcher::launcher_main(argc, argv); }
