// An empty module named GTMSessionFetcherCore: the Apple SDK's StoragePOSIXErrorTest.swift
// imports it (the SDK's HTTP library on Apple platforms) and uses nothing from it.
