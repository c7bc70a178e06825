"""The `wan` workload: fbstorage and its peers over a WAN-shaped link (benchmarks/README.md "WAN")."""
