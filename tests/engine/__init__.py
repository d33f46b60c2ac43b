"""Tests of the rules engine, kachuful_core."""
