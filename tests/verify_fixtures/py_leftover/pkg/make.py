"""Class decoration in the style of attrs' `_make.py`: pylsp-rope's inline of
`_has_own_attribute` removes the definition but leaves the call in
`_determine_whether_to_implement` behind, so the module fails at run time."""


def _has_own_attribute(cls, attrib_name):
    """
    Check whether *cls* defines *attrib_name* (and doesn't just inherit it).
    """
    return attrib_name in cls.__dict__


def evolve(*args, **changes):
    try:
        (inst,) = args
    except ValueError:
        msg = f"evolve() takes 1 positional argument, but {len(args)} were given"
        raise TypeError(msg) from None
    cls = inst.__class__
    return cls(**changes)


def _determine_whether_to_implement(cls, flag, auto_detect, dunders, default=True):
    if flag is True or flag is False:
        return flag

    for dunder in dunders:
        if _has_own_attribute(cls, dunder):
            return False

    return default


def attrs(maybe_cls=None, repr_ns=None, auto_detect=False):
    if repr_ns is not None:
        import warnings

        warnings.warn(
            DeprecationWarning("The `repr_ns` argument is deprecated."),
            stacklevel=2,
        )

    def wrap(cls):
        has_own_setattr = auto_detect and _has_own_attribute(
            cls, "__setattr__"
        )
        return has_own_setattr

    return wrap
