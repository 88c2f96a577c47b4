"""railyard's policy pack: the rules, their registry, and the offline runner.

* `policies.registry.RULES` - every rule, one module each under `rules/`;
* `policies.runner.run_policies` - run them over an offline preview;
* `policies/__main__.py` - the CrossGuard pack (`pulumi preview --policy-pack policies`).

Importing this package never starts the analyzer: only `__main__.py`
constructs a `PolicyPack`, whose constructor serves forever.
"""
