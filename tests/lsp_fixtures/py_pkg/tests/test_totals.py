import unittest

from orders.totals import summarize


class SummarizeTest(unittest.TestCase):
    def test_summarizes_lines(self):
        self.assertEqual(
            summarize([(10, 2), (3, 1)], 5),
            {"total": 15, "count": 3, "average": 5, "largest": 20},
        )

    def test_no_lines(self):
        self.assertEqual(summarize([], 5), {"total": 0, "count": 0, "average": 0, "largest": 0})


if __name__ == "__main__":
    unittest.main()
