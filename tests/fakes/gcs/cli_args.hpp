#pragma once
// FAKE GCS, for tests only: the few argument helpers the fake's modes share.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace fake {

// The value after the first `name`, or `fallback`.
inline std::string flag(const std::vector<std::string>& args, const std::string& name, const std::string& fallback) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == name) {
      return args[i + 1];
    }
  }
  return fallback;
}

// Every value given to a repeatable `name`.
inline std::vector<std::string> flags(const std::vector<std::string>& args, const std::string& name) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == name) {
      out.push_back(args[++i]);
    }
  }
  return out;
}

inline bool has(const std::vector<std::string>& args, const std::string& name) {
  return std::find(args.begin(), args.end(), name) != args.end();
}

// Written to a temporary name and renamed: readers never see a half-written port.
inline void write_port_file(const std::string& path, int port) {
  if (path.empty()) {
    return;
  }
  const std::string tmp = path + ".tmp";
  std::ofstream(tmp) << port << "\n";
  std::rename(tmp.c_str(), path.c_str());
}

// Ray's token authentication (ray-gcs-wire.md §4), read the way Ray reads it, for the fake's
// servers and clients started with --token-from-env: RAY_AUTH_MODE=token, then RAY_AUTH_TOKEN, the
// file named by RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token. Empty: no token auth.
std::string token_from_env();

}  // namespace fake
