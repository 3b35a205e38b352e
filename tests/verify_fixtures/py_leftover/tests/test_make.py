import unittest

from pkg.make import _determine_whether_to_implement, attrs


class Plain:
    pass


class Custom:
    def __eq__(self, other):
        return True


class MakeTest(unittest.TestCase):
    def test_a_class_that_defines_the_method_keeps_it(self):
        self.assertFalse(_determine_whether_to_implement(Custom, None, True, ("__eq__",)))
        self.assertTrue(_determine_whether_to_implement(Plain, None, True, ("__eq__",)))

    def test_setattr_detection(self):
        self.assertFalse(attrs(auto_detect=True)(Plain))


if __name__ == "__main__":
    unittest.main()
