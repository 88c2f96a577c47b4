"""What a blueprint change does to the running cluster: `railyard diff`.

Both blueprints are compiled offline (railyard.mocked); their resources are
matched by URN and every changed input is classified by the replace table
(`replace_table`), then read in accelerator terms (`impact`).
"""
