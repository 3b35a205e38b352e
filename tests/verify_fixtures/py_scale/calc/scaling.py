"""pylsp-rope's inline of `scale` turns `scale(factor, 2)` into `2 * 2`: it substitutes `x` with
`factor`, then `factor` with `2`."""


def scale(x, factor):
    return x * factor


def grow(x, factor):
    y = scale(factor, 2)
    return x + y
