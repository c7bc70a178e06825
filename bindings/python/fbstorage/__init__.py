"""fbstorage: Cloud Storage for Firebase client (ctypes binding over libfbstorage.so)."""
