"""The rule catalog: one rule per module, grouped by domain; `policies.registry` lists them."""
