#pragma once
#include <string_view>

namespace launcher::net {

// Names as Kubernetes issues them (RFC 1123, the rules of k8s.io/apimachinery validation):
// - a label: 1-63 characters of [a-z0-9-], starting and ending with a letter or digit
//   (namespaces, pod hostnames, headless Service subdomains);
// - a subdomain: labels joined by dots, at most 253 characters (the cluster domain).
// Uppercase letters are refused: Kubernetes never issues them, and DNS answers would not match.
bool is_dns_label(std::string_view name);
bool is_dns_subdomain(std::string_view name);

// A host name as it may appear in an address (`training-0.training.ml.svc.cluster.local`,
// `GCS-Head.example.com`): a subdomain in either case, with an optional trailing dot.
bool is_host_name(std::string_view name);

}  // namespace launcher::net
