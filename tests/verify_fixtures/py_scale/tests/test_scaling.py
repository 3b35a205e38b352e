import unittest

from calc.scaling import grow


class GrowTest(unittest.TestCase):
    def test_grow_adds_twice_the_factor(self):
        self.assertEqual(grow(1, 3), 7)


if __name__ == "__main__":
    unittest.main()
