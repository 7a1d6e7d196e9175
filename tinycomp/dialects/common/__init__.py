"""Syntax and base classes shared by several dialects."""
