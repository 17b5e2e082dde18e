"""The check's duration grammar on the vectors raylaunch's C++ parser shares (tests/data/durations.tsv)."""
import os
import unittest

from manifest_check.durations import parse_ms

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VECTORS = os.path.join(REPO, "tests", "data", "durations.tsv")


class SharedVectors(unittest.TestCase):
    def test_every_vector(self):
        total = 0
        with open(VECTORS, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                text, want = line.split("\t")
                total += 1
                with self.subTest(line=number, text=text):
                    self.assertEqual(parse_ms(text), None if want == "error" else int(want))
        self.assertGreater(total, 20, "the vectors file lost its vectors")


if __name__ == "__main__":
    unittest.main()
