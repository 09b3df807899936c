"""Whole modules and .pyc files (placeholder, being written)."""


def decompile_module(code):
    raise NotImplementedError


def decompile_pyc(path):
    raise NotImplementedError
