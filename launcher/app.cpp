#include "app.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>

#include "cli.hpp"
#include "commands.hpp"
#include "error.hpp"
#include "exit_codes.hpp"
#include "version.hpp"

namespace launcher {

namespace {

constexpr const char* k_exit_codes_help =
    "Exit codes: 0 ok; 1 probe unhealthy; 64 bad setting; 69 head/GCS unreachable at the deadline;\n"
    "70 internal error; 75 join barrier timed out; 78 a node check failed (checks=strict);\n"
    "otherwise the launch command's own status (128+N when killed by signal N).";

// The settings each subcommand accepts: pod identity and checks for plan/run/probe,
// the GCS address for wait/status.
const std::initializer_list<std::string_view> k_pod_settings = {
    "nodes", "ordinal", "hostname", "namespace", "service", "cluster_domain", "head_address",
    "ray_port", "node_manager_port", "join_timeout", "ray", "ray_args", "object_store_memory",
    "checks", "gpus", "efa", "shm_min", "host_root", "output", "log_format", "log_level"};

int run_cli(int argc, char** argv) {
  CLI::App app{"raylaunch: starts a Ray cluster inside Kubernetes pods, one static binary per pod.", "raylaunch"};
  app.footer(k_exit_codes_help);
  app.require_subcommand(1);

  CliValues values;
  CLI::App* plan = app.add_subcommand("plan", "print what this pod would do (role, ray start argv, env, checks); start nothing");
  add_settings(*plan, values, k_pod_settings);
  add_command(*plan, values, "the launch command, after --");

  CLI::App* version = app.add_subcommand("version", "print the version and git commit");

  // [gcs subcommands: wait, status, probe] — see commands.hpp
  const std::initializer_list<std::string_view> gcs_settings = {
      "address", "nodes", "ordinal", "hostname", "namespace", "service", "cluster_domain", "head_address",
      "ray_port", "host_root", "log_format", "log_level"};
  std::string wait_for = "nodes";
  CLI::App* wait = app.add_subcommand("wait", "wait until N distinct pods are ALIVE in the GCS (nodes), or the head's GCS answers (head)");
  add_settings(*wait, values, gcs_settings);
  add_settings(*wait, values, {"join_timeout"});
  wait->add_option("what", wait_for, "nodes (default) or head")->check(CLI::IsMember({"nodes", "head"}));
  CLI::App* status = app.add_subcommand("status", "print the GCS node table and the count of ALIVE nodes");
  add_settings(*status, values, gcs_settings);
  add_settings(*status, values, {"output"});
  std::string probe_kind;
  CLI::App* probe = app.add_subcommand("probe", "kubelet exec probe: one RPC, exit 0 healthy or 1 unhealthy");
  add_settings(*probe, values, k_pod_settings);
  add_settings(*probe, values, {"probe_timeout"});
  probe->add_option("kind", probe_kind, "liveness or readiness")->required()->check(CLI::IsMember({"liveness", "readiness"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    throw Fatal(exit_code::usage, std::string(e.what()) + " (see raylaunch --help)");
  }

  const EnvMap env = process_env();
  if (version->parsed()) {
    return cmd_version();
  }
  if (plan->parsed()) {
    return cmd_plan(resolve_config(values, env), env, values.command);
  }
  if (wait->parsed()) {
    return cmd_wait(wait_for, resolve_config(values, env), env);
  }
  if (status->parsed()) {
    return cmd_status(resolve_config(values, env), env);
  }
  if (probe->parsed()) {
    return cmd_probe(probe_kind, resolve_config(values, env), env);
  }
  return exit_code::usage;
}

}  // namespace

int launcher_main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const Fatal& e) {
    for (const std::string& line : e.lines()) {
      std::fprintf(stderr, "raylaunch: error: %s\n", line.c_str());
    }
    return e.code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "raylaunch: internal error: %s (please report it)\n", e.what());
    return exit_code::software;
  }
}

}  // namespace launcher
