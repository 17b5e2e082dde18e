"""Rule restart-rules knows raylaunch's exit codes by the names docs/run.md's exit-code table gives them."""
import os
import re
import unittest

from manifest_check.rules.restart import ENDS_THE_POD

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class ExitCodesAreTheDocs(unittest.TestCase):
    def test_names_match_docs_run_md(self):
        table = {}
        with open(os.path.join(REPO, "docs", "run.md"), encoding="utf-8") as f:
            for line in f:
                match = re.match(r"\| (\d+|128\+N) \| ([^|]+) \|", line)
                if match:
                    table[match.group(1)] = match.group(2).strip()
        self.assertTrue(table, "docs/run.md has no exit-code table")
        for code, name in sorted(ENDS_THE_POD.items()):
            documented = table.get(str(code)) or (table.get("128+N") if code > 128 else None)
            self.assertEqual(name, documented, f"exit code {code}")


if __name__ == "__main__":
    unittest.main()
