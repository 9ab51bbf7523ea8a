"""The engine both front ends drive (executor.py): boundary, reads, writes and their safety net.
May import: protocol."""
