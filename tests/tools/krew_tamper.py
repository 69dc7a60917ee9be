#!/usr/bin/env python3
"""Writes a copy of a krew manifest with the first platform's sha256 changed by one digit.

    krew_tamper.py SRC DST

Used by tests/cmake/krew.cmake to prove check_krew.py notices an archive that does not
match its manifest.
"""
import os
import re
import sys

src, dst = sys.argv[1], sys.argv[2]
with open(src, encoding="utf-8") as f:
    text = f.read()
m = re.search(r"sha256: ([0-9a-f]{64})", text)
if not m:
    sys.exit(f"krew_tamper.py: no sha256 in {src}")
digest = m.group(1)
tampered = ("1" if digest[0] == "0" else "0") + digest[1:]
os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
with open(dst, "w", encoding="utf-8") as f:
    f.write(text.replace(digest, tampered, 1))
