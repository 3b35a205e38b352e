import unittest

import kit


class RecipesTests(unittest.TestCase):
    def test_take(self):
        self.assertEqual(kit.take(2, 'ABC'), ['A', 'B'])

    def test_tail(self):
        self.assertEqual(list(kit.tail(3, 'ABCDEFG')), ['E', 'F', 'G'])
        self.assertEqual(list(kit.tail(2, iter('ABC'))), ['B', 'C'])

    def test_powerset(self):
        self.assertEqual(list(kit.powerset([1, 2]))[-1], (1, 2))


if __name__ == '__main__':
    unittest.main()
