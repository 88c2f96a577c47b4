"""Correctness rules: what AWS needs for EFA, placement, AMIs and FSx to work as designed."""
