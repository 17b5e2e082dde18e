#pragma once

namespace launcher {

// Parses the command line, sets the process up, runs one subcommand, and owns the process
// exit code: the only place that catches Fatal (prints "raylaunch: error: …") or anything
// unexpected (exit 70).
int launcher_main(int argc, char** argv);

}  // namespace launcher
