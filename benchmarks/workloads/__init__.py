"""One module per workload; each run(context) returns its section of latest.json."""
