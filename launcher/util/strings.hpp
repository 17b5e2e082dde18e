#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace launcher::util {

// "a, b, c": the items with `sep` between them.
std::string join(const std::vector<std::string>& items, std::string_view sep);

// Text from outside (a setting's value, a server's message, a node name, a file) made safe
// for a one-line message on a terminal or in a log: control bytes become \n, \t, \r, \e or
// \xNN, a backslash becomes \\, bytes that are not valid UTF-8 become \xNN. Printable text,
// including valid UTF-8, is unchanged. At most `max` bytes of input are shown, then "…".
std::string printable(std::string_view text, std::size_t max = 256);

// "1 attempt", "2 attempts".
std::string plural(long n, const std::string& word);

// True when `text` is valid UTF-8 (JSON output replaces what is not).
bool is_valid_utf8(std::string_view text);

}  // namespace launcher::util
