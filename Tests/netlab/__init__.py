"""A test network on one machine (make test-netlab; docs/field.md "The test network").

A client and a server network namespace joined by a veth pair with private IPv4 and IPv6
addresses (`namespaces`), dnsmasq answering the test names in the server namespace (`dns`), the
bundled emulator serving https on the server's addresses (`emulator`) and a userspace relay that
adds latency, jitter, stalls and resets (`relay`). `run` builds the namespaces, runs pytest in
the client namespace and always tears everything down.
"""
