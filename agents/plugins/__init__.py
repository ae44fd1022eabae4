"""Agents brought by users: Python classes (a file, a module, an installed entry point) and
programs in any language (``cmd:``)."""
