"""Partitioning functions, growth-function bounds and VC dimension of tree structures."""
