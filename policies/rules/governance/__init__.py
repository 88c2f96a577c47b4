"""Governance rules: what the organisation allows (instance types, spot, tags, size)."""
