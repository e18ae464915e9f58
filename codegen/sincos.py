"""The sine and cosine polynomials the generated C (templates/c/sincos.c.j2) and the JAX module
(templates/jax/prelude.py) both evaluate, written once (hexadecimal floats, exact).

With ``y = hi + lo`` reduced to ``|y| <= pi/4`` and ``z = hi^2``: ``sin(y) ~ hi + hi z P(z) + lo (1 - z/2)``,
``cos(y) ~ 1 - z/2 + z^2 Q(z) - hi lo``; ``P`` and ``Q`` of degree 5 in ``z``, coefficients lowest first
(docs/generated-c.md, "Sine and cosine").
"""

#: 2/pi, for the quadrant k = round(x 2/pi).
TWO_OVER_PI = "0x1.45f306dc9c883p-1"

#: pi/2 in three 33-bit parts (exact products with k for |k| <= 2^20) and a tail: y = x - k (P1 + P2 + P3 + P4).
PI_2 = ("0x1.921fb544p+0", "0x1.0b4611a6p-34", "0x1.3198a2ep-69", "0x1.b839a252049c1p-104")

#: P2 + P3 rounded to a double (the usual path's one-step reduction).
PI_2_LOW = "0x1.0b4611a626331p-34"

#: The largest |x| the reduction serves (2^19 pi/2); beyond, libm's sin and cos.
LIMIT = "0x1.921fb54442d18p+19"

#: P(z), the sine's.
SIN = ("-0x1.5555555555548p-3", "0x1.111111110f7d0p-7", "-0x1.a01a019bfdeb3p-13", "0x1.71de3567d008cp-19",
       "-0x1.ae5e5a8eec9e3p-26", "0x1.5d8fd0e63869dp-33")

#: Q(z), the cosine's.
COS = ("0x1.555555555554bp-5", "-0x1.6c16c16c14f91p-10", "0x1.a01a019c844adp-16", "-0x1.27e4f7eac167dp-22",
       "0x1.1ee9d7b29290bp-29", "-0x1.8fa498ce27e4dp-37")
