"""Tests of the topology checker: fixtures with sketches, brute-force references on the explicit graph, and the checks."""
