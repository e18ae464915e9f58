"""rbdgen's version: the package, the command line and the generated files read it here."""

__version__ = "0.1.0"
