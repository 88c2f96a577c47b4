"""The compile stage: Pulumi ComponentResources built from a validated blueprint.

Components plan, then emit: pure planning functions turn models into specs
(tested without Pulumi), thin ComponentResources turn specs into resources.
"""
