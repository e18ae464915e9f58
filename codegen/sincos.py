"""The sine and cosine polynomials the generated C (templates/c/sincos.c.j2) and the JAX module
(templates/jax/prelude.py) both evaluate, written once (hexadecimal floats, exact).

With ``y = hi + lo`` reduced to ``|y| <= pi/4`` and ``z = hi^2``: ``sin(y) ~ hi + hi z P(z) + lo (1 - z/2)``,
``cos(y) ~ 1 - z/2 + z^2 Q(z) - hi lo``; ``P`` and ``Q`` of degree 5 in ``z``, coefficients lowest first
(docs/generated-c.md, "Sine and cosine").
"""

#: 2/pi, for the quadrant k = round(x 2/pi).
TWO_OVER_PI = "0x1.45f306dc9c883p-1"

#: P(z), the sine's.
SIN = ("-0x1.5555555555548p-3", "0x1.111111110f7d0p-7", "-0x1.a01a019bfdeb3p-13", "0x1.71de3567d008cp-19",
       "-0x1.ae5e5a8eec9e3p-26", "0x1.5d8fd0e63869dp-33")

#: Q(z), the cosine's.
COS = ("0x1.555555555554bp-5", "-0x1.6c16c16c14f91p-10", "0x1.a01a019c844adp-16", "-0x1.27e4f7eac167dp-22",
       "0x1.1ee9d7b29290bp-29", "-0x1.8fa498ce27e4dp-37")
