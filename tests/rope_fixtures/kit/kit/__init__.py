"""A few itertools recipes, re-exported by a star import as more-itertools does: the fixture of
candor's behaviour-guard tests (tests/guards_real.rs)."""
from .recipes import *  # noqa
