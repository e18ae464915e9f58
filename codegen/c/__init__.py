"""The C99 backend (being split into modules: the printer first)."""
