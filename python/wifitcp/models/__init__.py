"""Analytical models the simulator is checked against."""
