"""Shared machinery of the benchmarks: the emulator, client processes, statistics, reports."""
