#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace launcher::util {

// "a, b, c": the items with `sep` between them.
std::string join(const std::vector<std::string>& items, std::string_view sep);

// Text from outside (a setting's value, a server's message, a node name, a file) made safe
// for a one-line message on a terminal or in a log: control bytes become \n, \t, \r, \e or
// \xNN, bytes that are not valid UTF-8 become \xNN, C1 controls and the bidirectional
// controls (U+202E, …) become \uNNNN. Printable text, including valid UTF-8 and backslashes,
// is unchanged, so escaping twice changes nothing (`\xff` stays `\xff`). At most `max` bytes of
// input are shown, then "…" (cut on a character boundary).
std::string printable(std::string_view text, std::size_t max = 256);

// True when printable() would leave `text` as it is (any length): valid UTF-8 without control
// characters. What a setting's value (a path, ray start's arguments) must be.
bool is_printable_text(std::string_view text);

// "1 attempt", "2 attempts".
std::string plural(long n, const std::string& word);

// The longest prefix of `text` of at most `max` bytes that does not end inside a UTF-8
// sequence (a cut that leaves the text valid, e.g. before redacted text is shortened).
std::string_view cut_utf8(std::string_view text, std::size_t max);

}  // namespace launcher::util
