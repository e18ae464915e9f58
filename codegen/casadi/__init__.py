"""The CasADi backend: the operations traced on SX (`sx`) and made into ``casadi.Function`` s
(`emit_casadi`)."""
